// Subscriptions end to end, managing: pause that resumes, retry, plan change, lists, isolation,
// production without a provider, public pages (the confirmation after subscribing among them),
// expiring cards, coupons, the sweep.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { advanceDue } from '../src/modules/subscriptions/sweep.ts';
import { call, cpf, merchant } from './helpers.ts';
import { GOOD, card, SOFT, ctx, m, newPlan, subscribe, get, sim, emails, events } from './subscriptions-kit.ts';

describe('subscriptions: managing', () => {
  test('pause with resumesAt resumes by itself', async () => {
    const plan = await newPlan();
    const sub = await subscribe(plan.id, { paymentMethod: 'CARD', card: GOOD });
    const resumesAt = new Date(Date.now() + 10 * 86_400_000).toISOString();
    assert.equal((await call(ctx.app, 'PATCH', `/api/subscriptions/${sub.id}/pause`, { key: m.devKey, body: { resumesAt } })).body.subscription.status, 'PAUSED');
    assert.equal((await sim(sub.id, 9)).status, 'PAUSED');
    const s = await sim(sub.id, 2);
    assert.equal(s.status, 'ACTIVE');
    assert.ok((await events(sub.id)).includes('subscription.resumed'));
  });

  test('retry now: POST /api/subscriptions/{id}/retry', async () => {
    const plan = await newPlan({ trialDays: 1 });
    const sub = await subscribe(plan.id, { paymentMethod: 'CARD', card: card(SOFT) });
    const early = await call(ctx.app, 'POST', `/api/subscriptions/${sub.id}/retry`, { key: m.devKey });
    assert.equal(early.status, 400);
    assert.equal(early.body.code, 'INVALID_STATE_TRANSITION');
    await sim(sub.id, 1);
    const res = await call(ctx.app, 'POST', `/api/subscriptions/${sub.id}/retry`, { key: m.devKey });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.subscription.cycles[0].attempts, 2);
    assert.equal(res.body.subscription.status, 'PAST_DUE');
  });

  test('plan change: preview, upgrade now with a prorated charge, downgrade at period end', async () => {
    const basic = await newPlan({ name: 'Básico', amountCents: 3000 });
    const pro = await newPlan({ name: 'Pro', amountCents: 6000 });
    const sub = await subscribe(basic.id, { paymentMethod: 'CARD', card: GOOD });
    const preview = await call(ctx.app, 'POST', `/api/v1/subscriptions/${sub.id}/change-plan`, { key: m.devKey, body: { planId: pro.id, preview: true } });
    assert.equal(preview.status, 200, preview.raw);
    const ch = preview.body.change;
    assert.equal(ch.kind, 'UPGRADE');
    assert.equal(ch.prorationCents, Math.floor((3000 * ch.remainingDays) / ch.periodDays));
    assert.equal((await get(sub.id)).planId, basic.id, 'a preview changes nothing');
    const up = await call(ctx.app, 'POST', `/api/v1/subscriptions/${sub.id}/change-plan`, { key: m.devKey, body: { planId: pro.id } });
    assert.equal(up.body.subscription.planId, pro.id);
    const proration = up.body.subscription.cycles.find((c: { kind: string }) => c.kind === 'PRORATION');
    assert.equal(proration.status, 'PAID');
    assert.equal(proration.amountCents, ch.prorationCents);
    const down = await call(ctx.app, 'POST', `/api/subscriptions/${sub.id}/change-plan`, { key: m.devKey, body: { planId: basic.id } });
    assert.equal(down.body.change.effective, 'PERIOD_END');
    assert.equal(down.body.subscription.planId, pro.id);
    assert.equal(down.body.subscription.pendingPlanId, basic.id);
    const s = await sim(sub.id, 31);
    assert.equal(s.planId, basic.id);
    assert.equal(s.cycles[0].amountCents, 3000);
  });

  test('list with filters and cursor; isolation (404), permissions (403), production simulate (403)', async () => {
    const plan = await newPlan();
    const subs = [];
    for (let i = 0; i < 3; i++) subs.push(await subscribe(plan.id, { paymentMethod: 'CARD', card: GOOD }));
    const page1 = await call(ctx.app, 'GET', `/api/v1/subscriptions?planId=${plan.id}&limit=2`, { key: m.devKey });
    assert.equal(page1.status, 200);
    assert.equal(page1.body.subscriptions.length, 2);
    assert.equal(page1.body.pagination.hasMore, true);
    const page2 = await call(ctx.app, 'GET', `/api/v1/subscriptions?planId=${plan.id}&limit=2&cursor=${encodeURIComponent(page1.body.pagination.nextCursor)}`, { key: m.devKey });
    assert.equal(page2.body.subscriptions.length, 1);
    assert.equal((await call(ctx.app, 'GET', `/api/subscriptions?status=ACTIVE&clientEmail=${encodeURIComponent(subs[0].client.email)}`, { key: m.devKey })).body.subscriptions.length, 1);
    const other = await merchant(ctx.app);
    assert.equal((await call(ctx.app, 'GET', `/api/v1/subscriptions/${subs[0].id}`, { key: other.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'PATCH', `/api/v1/subscriptions/${subs[0].id}/cancel`, { key: other.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: other.devKey, body: { planId: plan.id, paymentMethod: 'PIX', client: { name: 'X', email: 'x@example.com', document: cpf() } } })).status, 400, "another merchant's plan");
    const reader = await merchant(ctx.app, { permissions: ['subscriptions:read'] });
    assert.equal((await call(ctx.app, 'POST', `/api/v1/subscriptions/${subs[0].id}/retry`, { key: reader.devKey })).status, 403);
    const live = await merchant(ctx.app, { live: true });
    const livePlan = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: live.liveKey, body: { name: 'Live', amountCents: 900, interval: 'MONTHLY', paymentMethods: ['PIX'] } });
    assert.equal(livePlan.status, 201);
    const liveSub = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: live.liveKey, body: { planId: livePlan.body.plan.id, paymentMethod: 'PIX', client: { name: 'X', email: 'x@example.com', document: cpf() } } });
    assert.equal(liveSub.status, 503, 'production payments need a configured provider');
    assert.equal((await call(ctx.app, 'GET', `/api/subscriptions/plans/${livePlan.body.plan.id}`, { key: live.liveKey })).body.plan.subscriberCount, 0, 'refused before anything was written');
    assert.equal((await call(ctx.app, 'GET', `/api/v1/subscriptions/${subs[0].id}`, { key: live.liveKey })).status, 404);
  });

  test('a production card subscription without a payment provider answers as a one-off production card payment does: 503, nothing written', async () => {
    const live = await merchant(ctx.app, { live: true });
    const plan = (await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: live.liveKey, body: { name: 'Live', amountCents: 900, interval: 'MONTHLY', paymentMethods: ['CARD'] } })).body.plan;
    const link = (await call(ctx.app, 'POST', '/api/v1/payment-links', { key: live.liveKey, body: { title: 'Ingresso', amountCents: 900 } })).body.paymentLink;
    const buyer = () => ({ clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'CARD', card: GOOD });
    const oneOff = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${link.slug}/checkout`, { body: buyer() });
    assert.equal(oneOff.status, 503, oneOff.raw);
    const viaApi = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: live.liveKey, body: { planId: plan.id, paymentMethod: 'CARD', card: GOOD, client: { name: 'Ana Souza', email: 'ana@example.com', document: cpf() } } });
    const b = buyer();
    const viaCheckout = await call(ctx.app, 'POST', '/api/subscriptions/checkout', { body: { planId: plan.id, ...b } });
    for (const res of [viaApi, viaCheckout]) {
      assert.equal(res.status, oneOff.status, res.raw);
      assert.equal(res.body.message, oneOff.body.message, 'the same answer as the one-off card payment');
    }
    const db = ctx.app.deps.db;
    assert.equal((await db.selectFrom('subscriptions').select('id').where('user_id', '=', live.id).execute()).length, 0);
    assert.equal((await db.selectFrom('clients').select('id').where('user_id', '=', live.id).execute()).length, 0, 'no client was created');
    assert.equal((await db.selectFrom('subscription_plans').select('subscriber_count').where('id', '=', plan.id).executeTakeFirstOrThrow()).subscriber_count, 0);
  });

  test('public plan page data and public checkout', async () => {
    const plan = await newPlan({ trialDays: 14, maxSubscribers: 5 });
    const pub = await call(ctx.app, 'GET', `/api/subscriptions/public/${plan.id}`);
    assert.equal(pub.status, 200);
    assert.equal(pub.body.plan.merchantName, 'Loja Teste');
    assert.equal(pub.body.plan.available, true);
    assert.equal(pub.body.plan.subscriberCount, undefined, 'nothing private');
    assert.equal(pub.body.plan.maxSubscribers, undefined);
    const res = await call(ctx.app, 'POST', '/api/subscriptions/checkout', {
      body: { planId: plan.id, clientName: 'Caio Lima', clientEmail: 'caio@example.com', clientDocument: cpf(), paymentMethod: 'CREDIT_CARD', card: GOOD } });
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.subscription.status, 'TRIALING');
    assert.match(res.body.subscription.manageUrl, /\/subscription\/[0-9a-f-]+\?t=/);
    assert.equal(res.body.subscription.metadata, undefined);
    const self = await call(ctx.app, 'GET', res.body.subscription.manageUrl.replace(/^https?:\/\/[^/]+\/subscription\//, '/api/subscriptions/self/'));
    assert.equal(self.status, 200, self.raw);
    assert.equal(self.body.subscription.id, res.body.subscription.id);
    assert.equal((await call(ctx.app, 'GET', `/api/subscriptions/public/00000000-0000-4000-8000-000000000000`)).status, 404);
  });

  test('the subscriber page with &assinado=1 (where the plan page lands): the confirmation and the first PIX to pay; without it, none', async () => {
    const plan = await newPlan({ paymentMethods: ['PIX'] });
    const res = await call(ctx.app, 'POST', '/api/subscriptions/checkout', { body: { planId: plan.id, clientName: 'Rui Prado', clientEmail: 'rui@example.com', clientDocument: cpf(), paymentMethod: 'PIX' } });
    assert.equal(res.status, 201, res.raw);
    const sub = res.body.subscription;
    const path = sub.manageUrl.replace(/^https?:\/\/[^/]+/, '');
    const page = await call(ctx.app, 'GET', `${path}&assinado=1`);
    assert.equal(page.status, 200);
    const tx = await ctx.app.deps.db.selectFrom('transactions').select(['pix_qr_code', 'pix_txid']).where('id', '=', sub.payment.transactionId).executeTakeFirstOrThrow();
    assert.match(page.raw, /<h1 id="title" tabindex="-1">Falta só o primeiro pagamento<\/h1>/);
    assert.match(page.raw, /Você assinou <strong>Clube<\/strong> de Loja Teste: <strong>R\$\s49,90 por mês<\/strong>/);
    for (const part of [`data-pay-tx="${sub.payment.transactionId}"`, `>${tx.pix_qr_code}</textarea>`, `src="/pix/${tx.pix_txid}/qr.png"`]) assert.ok(page.raw.includes(part), part);
    const plain = await call(ctx.app, 'GET', path);
    assert.equal(plain.status, 200);
    assert.doesNotMatch(plain.raw, /id="confirmation"|data-pay-tx/);
  });

  test('a card that expires before the next renewal is warned about once, at the renewal before it', async () => {
    const plan = await newPlan();
    const soon = new Date(Date.now() + 20 * 86_400_000); // expires at the end of that month: before the renewal after next
    const sub = await subscribe(plan.id, { paymentMethod: 'CARD', card: { ...GOOD, expMonth: soon.getUTCMonth() + 1, expYear: soon.getUTCFullYear() } });
    assert.equal((await emails(sub.id, 'card_expiring')).length, 0);
    await sim(sub.id, 31);
    const warned = await emails(sub.id, 'card_expiring');
    assert.equal(warned.length, 1);
    assert.match(warned[0].subject, /VISA final 4242 vai vencer/);
    assert.match(warned[0].text_body, /#cartao/);
  });

  test('a coupon discounts the first charge, or its first subscriptionCycles charges; its use is counted once', async () => {
    const plan = await newPlan({ amountCents: 10000 });
    const once = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: `UMA${Date.now()}`, discountType: 'PERCENTAGE', discountValue: 10 } });
    const twice = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: `DUAS${Date.now()}`, discountType: 'FIXED', discountValue: 2500, subscriptionCycles: 2 } });
    assert.equal(twice.status, 201, twice.raw);
    assert.equal(twice.body.coupon.subscriptionCycles, 2);
    const a = await subscribe(plan.id, { paymentMethod: 'CARD', card: GOOD, couponCode: once.body.coupon.code });
    const b = await subscribe(plan.id, { paymentMethod: 'CARD', card: GOOD, couponCode: twice.body.coupon.code });
    assert.equal(a.cycles[0].amountCents, 9000);
    assert.equal(b.cycles[0].amountCents, 7500);
    const a2 = await sim(a.id, 31);
    let b2 = await sim(b.id, 31);
    assert.deepEqual(a2.cycles.map((c: { amountCents: number }) => c.amountCents), [10000, 9000]);
    assert.deepEqual(b2.cycles.map((c: { amountCents: number }) => c.amountCents), [7500, 7500]);
    b2 = await sim(b.id, 31);
    assert.deepEqual(b2.cycles.map((c: { amountCents: number }) => c.amountCents), [10000, 7500, 7500]);
    const coupon = await call(ctx.app, 'GET', `/api/v1/coupons/${twice.body.coupon.id}`, { key: m.devKey });
    assert.equal(coupon.body.coupon.usedCount, 1, 'one subscription, one use');
    const bad = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: plan.id, paymentMethod: 'CARD', card: GOOD, couponCode: 'NAOEXISTE', client: { name: 'X', email: 'x@example.com', document: cpf() } } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'INVALID_COUPON');
  });

  test("a coupon's use is held from subscribing: usageLimit and perUserLimit count trials, unpaid first charges and free first periods; a subscription that ends unpaid gives it back", async () => {
    const coupon = async (body: Record<string, unknown>) => {
      const res = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: `LIM${Math.random().toString(36).slice(2, 10)}`, discountType: 'PERCENTAGE', discountValue: 50, ...body } });
      assert.equal(res.status, 201, res.raw);
      return res.body.coupon as { id: string; code: string };
    };
    const used = async (id: string) => (await call(ctx.app, 'GET', `/api/v1/coupons/${id}`, { key: m.devKey })).body.coupon.usedCount;
    const refused = async (planId: string, body: Record<string, unknown>) => {
      const res = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId, client: { name: 'Bia Lima', email: `bia.${Math.random().toString(36).slice(2)}@example.com`, document: cpf() }, ...body } });
      assert.equal(res.status, 400, res.raw);
      assert.equal(res.body.code, 'INVALID_COUPON');
    };
    // A trial takes the only use at once; cancelled before its first charge, it gives it back.
    const once = await coupon({ usageLimit: 1 });
    const trial = await newPlan({ amountCents: 2000, trialDays: 3 });
    const a = await subscribe(trial.id, { paymentMethod: 'CARD', card: GOOD, couponCode: once.code });
    assert.equal(a.status, 'TRIALING');
    assert.equal(await used(once.id), 1);
    await refused(trial.id, { paymentMethod: 'CARD', card: GOOD, couponCode: once.code });
    assert.equal((await call(ctx.app, 'PATCH', `/api/v1/subscriptions/${a.id}/cancel`, { key: m.devKey, body: {} })).status, 200);
    assert.equal(await used(once.id), 0);
    const c = await subscribe(trial.id, { paymentMethod: 'CARD', card: GOOD, couponCode: once.code });
    const paid = await sim(c.id, 3);
    assert.deepEqual([paid.status, paid.cycles[0].status, paid.cycles[0].amountCents], ['ACTIVE', 'PAID', 1000]);
    assert.equal(await used(once.id), 1, 'counted once, when held and when paid');
    await refused(trial.id, { paymentMethod: 'CARD', card: GOOD, couponCode: once.code });
    // A coupon that leaves nothing to pay: the first period is paid without a charge and the use is counted.
    const free = await coupon({ discountValue: 100, usageLimit: 1 });
    const plan = await newPlan({ amountCents: 3000 });
    const d = await subscribe(plan.id, { paymentMethod: 'CARD', card: GOOD, couponCode: free.code });
    assert.deepEqual([d.status, d.cycles[0].status, d.cycles[0].transactionId], ['ACTIVE', 'PAID', null]);
    assert.equal(await used(free.id), 1);
    await refused(plan.id, { paymentMethod: 'CARD', card: GOOD, couponCode: free.code });
    // perUserLimit: an unpaid first PIX holds the customer's use until the subscription expires unpaid.
    const perUser = await coupon({ perUserLimit: 1 });
    const document = cpf();
    const client = { name: 'Caio Reis', email: 'caio.reis@example.com', document };
    const e = await subscribe(plan.id, { paymentMethod: 'PIX', client, couponCode: perUser.code });
    assert.equal(e.status, 'INCOMPLETE');
    await refused(plan.id, { paymentMethod: 'PIX', client, couponCode: perUser.code });
    assert.equal((await sim(e.id, 2)).status, 'EXPIRED');
    assert.equal(await used(perUser.id), 0);
    const again = await subscribe(plan.id, { paymentMethod: 'PIX', client, couponCode: perUser.code });
    assert.equal(again.cycles[0].amountCents, 1500);
    assert.equal(await used(perUser.id), 1);
  });

  test('the sweep does what simulate does, on the injected clock', async () => {
    const plan = await newPlan({ trialDays: 2 });
    const sub = await subscribe(plan.id, { paymentMethod: 'CARD', card: GOOD });
    const n = await advanceDue(ctx.app.deps.subscriptions, new Date(Date.now() + 2 * 86_400_000 + 60_000));
    assert.ok(n >= 1);
    const s = await get(sub.id);
    assert.equal(s.status, 'ACTIVE');
    assert.equal(s.cycles[0].status, 'PAID');
  });
});
