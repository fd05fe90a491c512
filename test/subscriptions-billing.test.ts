// Subscriptions end to end, billing: subscribing by card (with a trial or not), renewals, price
// changes, dunning (soft and hard declines, final action), recovery by a new card, PIX issued ahead,
// expiry of an unpaid first charge, cancel / pause / resume.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, cpf } from './helpers.ts';
import { GOOD, card, SOFT, HARD, ctx, m, newPlan, subscribe, get, sim, emails, events } from './subscriptions-kit.ts';

describe('subscriptions: billing', () => {
  test('card without a trial: charged at once through an ordinary transaction; ACTIVE with cycle 1 PAID', async () => {
    const plan = await newPlan();
    const sub = await subscribe(plan.id, { paymentMethod: 'CREDIT_CARD', card: GOOD, metadata: { pedido: 'A1' } });
    assert.equal(sub.status, 'ACTIVE');
    assert.equal(sub.paymentMethod, 'CARD');
    assert.deepEqual(sub.card, { brand: 'VISA', last4: '4242', expMonth: 12, expYear: 2035 });
    assert.deepEqual(sub.metadata, { pedido: 'A1' });
    assert.equal(sub.cycles.length, 1);
    assert.equal(sub.cycles[0].status, 'PAID');
    assert.equal(sub.cycles[0].amountCents, 4990);
    const tx = await call(ctx.app, 'GET', `/api/v1/transactions/${sub.cycles[0].transactionId}`, { key: m.devKey });
    assert.equal(tx.body.transaction.status, 'PAID');
    assert.equal(tx.body.transaction.subscriptionId, sub.id);
    assert.equal(tx.body.transaction.amountCents, 4990);
    // The card is kept only as the provider's token plus brand, last 4 and expiry.
    const row = await ctx.app.deps.db.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
    assert.match(row.card_token!, /^sbx_tok_/);
    assert.ok(!JSON.stringify(row).includes('4242424242424242'));
    assert.ok(!ctx.logs.join('').includes('4242424242424242'), 'the PAN is never logged');
    assert.deepEqual((await emails(sub.id)).map((e) => e.template).sort(), ['receipt', 'welcome']);
    assert.deepEqual(await events(sub.id), ['subscription.created']);
  });

  test('trial: TRIALING, trial_will_end 3 days before, then the card is charged at trial end and renewed monthly', async () => {
    const plan = await newPlan({ trialDays: 7 });
    const sub = await subscribe(plan.id, { paymentMethod: 'CARD', card: GOOD });
    assert.equal(sub.status, 'TRIALING');
    assert.equal(sub.cycles.length, 0, 'nothing charged during the trial');
    assert.equal(new Date(sub.trialEnd).getTime() - new Date(sub.createdAt).getTime(), 7 * 86_400_000);
    let s = await sim(sub.id, 4);
    assert.equal(s.status, 'TRIALING');
    assert.deepEqual(await events(sub.id), ['subscription.created', 'subscription.trial_will_end']);
    s = await sim(sub.id, 3);
    assert.equal(s.status, 'ACTIVE');
    assert.equal(s.cycles.length, 1);
    assert.equal(s.cycles[0].status, 'PAID');
    assert.equal(s.currentPeriodStart, sub.trialEnd);
    s = await sim(sub.id, 31);
    assert.equal(s.cycles.length, 2);
    assert.ok(s.cycles.every((c: { status: string }) => c.status === 'PAID'));
    assert.equal((await events(sub.id)).filter((t) => t === 'subscription.renewed').length, 2);
  });

  test('a price change applies from the next period', async () => {
    const plan = await newPlan();
    const sub = await subscribe(plan.id, { paymentMethod: 'CARD', card: GOOD });
    assert.equal((await call(ctx.app, 'PATCH', `/api/subscriptions/plans/${plan.id}`, { key: m.devKey, body: { amountCents: 5990 } })).status, 200);
    assert.equal((await get(sub.id)).cycles[0].amountCents, 4990, 'the paid period keeps its price');
    const s = await sim(sub.id, 31);
    assert.equal(s.cycles[0].amountCents, 5990);
  });

  test('dunning: a declined renewal -> PAST_DUE, one e-mail, retries at +1, +3, +5, +7 days, then CANCEL', async () => {
    const plan = await newPlan({ trialDays: 1 });
    const sub = await subscribe(plan.id, { paymentMethod: 'CARD', card: card(SOFT) });
    let s = await sim(sub.id, 1);
    assert.equal(s.status, 'PAST_DUE');
    assert.equal(s.cycles[0].status, 'PAST_DUE');
    assert.equal(s.cycles[0].failureReason, 'INSUFFICIENT_FUNDS');
    assert.equal(s.cycles[0].attempts, 1);
    const firstRetry = new Date(s.cycles[0].nextRetryAt).getTime() - new Date(s.trialEnd).getTime();
    assert.ok(Math.abs(firstRetry - 86_400_000) < 60_000, `first retry a day after the failure (${firstRetry})`);
    const failed = await emails(sub.id, 'payment_failed');
    assert.equal(failed.length, 1);
    assert.match(failed[0].text_body, /Atualizar cartão: http.*\/subscription\/.*#cartao/);
    for (const [days, attempts] of [[1, 2], [2, 3], [2, 4], [2, 5]] as const) {
      s = await sim(sub.id, days);
      if (attempts < 5) {
        assert.equal(s.status, 'PAST_DUE');
        assert.equal(s.cycles[0].attempts, attempts);
      }
    }
    assert.equal(s.status, 'CANCELLED', 'the plan\'s final action after the last retry');
    assert.equal(s.cancelReason, 'PAYMENT_FAILED');
    assert.equal(s.cycles[0].status, 'VOID');
    assert.equal(s.cycles[0].attempts, 5);
    assert.equal((await emails(sub.id, 'payment_failed')).length, 1, 'e-mailed at the first failure only');
    assert.equal((await emails(sub.id, 'cancelled')).length, 1);
    assert.deepEqual(await events(sub.id), ['subscription.created', 'subscription.past_due', 'subscription.cancelled']);
    const txs = await ctx.app.deps.db.selectFrom('transactions').select('status').where('subscription_id', '=', sub.id).execute();
    assert.equal(txs.length, 5);
    assert.ok(txs.every((t) => t.status === 'FAILED'));
  });

  test('a hard decline is never retried; the final action waits for the end of the retry window (PAUSE here)', async () => {
    const plan = await newPlan({ trialDays: 1, dunning: { finalAction: 'PAUSE' } });
    const sub = await subscribe(plan.id, { paymentMethod: 'CARD', card: card(HARD) });
    let s = await sim(sub.id, 1);
    assert.equal(s.status, 'PAST_DUE');
    assert.equal(s.cycles[0].failureReason, 'STOLEN_CARD');
    // Nor by hand: only a new card charges it again.
    const retry = await call(ctx.app, 'POST', `/api/subscriptions/${sub.id}/retry`, { key: m.devKey });
    assert.equal(retry.status, 400, retry.raw);
    assert.equal(retry.body.code, 'INVALID_STATE_TRANSITION');
    s = await sim(sub.id, 6);
    assert.equal(s.status, 'PAST_DUE');
    assert.equal(s.cycles[0].attempts, 1, 'no retry of a hard decline');
    s = await sim(sub.id, 1);
    assert.equal(s.status, 'PAUSED');
    assert.equal(s.cycles[0].status, 'UNCOLLECTIBLE');
    assert.ok((await events(sub.id)).includes('subscription.paused'));
  });

  test('recovery: the subscriber updates the card through the signed link; the charge is retried at once', async () => {
    const plan = await newPlan({ trialDays: 1 });
    const sub = await subscribe(plan.id, { paymentMethod: 'CARD', card: card(SOFT) });
    await sim(sub.id, 1);
    const link = (await emails(sub.id, 'payment_failed'))[0].text_body.match(/\/subscription\/([0-9a-f-]+)\?t=([^#\s]+)/)!;
    assert.equal(link[1], sub.id);
    const bad = await call(ctx.app, 'POST', `/api/subscriptions/self/${sub.id}/card?t=${link[2].replace(/.$/, 'x')}`, { body: { card: GOOD } });
    assert.equal(bad.status, 404, 'a tampered link opens nothing');
    const res = await call(ctx.app, 'POST', `/api/subscriptions/self/${sub.id}/card?t=${link[2]}`, { body: { card: GOOD } });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.subscription.status, 'ACTIVE');
    assert.equal(res.body.subscription.card.last4, '4242');
    const s = await get(sub.id);
    assert.equal(s.cycles[0].status, 'PAID');
    assert.equal(s.cycles[0].attempts, 2);
    assert.ok((await events(sub.id)).includes('subscription.renewed'));
  });

  test('PIX: INCOMPLETE until the first charge is paid; renewals issued 3 days ahead and e-mailed; ACTIVE until the due date passes unpaid', async () => {
    const plan = await newPlan({ paymentMethods: ['PIX', 'BOLETO'] });
    const sub = await subscribe(plan.id, { paymentMethod: 'PIX' });
    assert.equal(sub.status, 'INCOMPLETE');
    assert.match(sub.payment.pixCode, /^000201/);
    assert.match(sub.payment.paymentUrl, /\/checkout\//);
    const issued = await emails(sub.id, 'charge_issued');
    assert.equal(issued.length, 1);
    assert.ok(issued[0].text_body.includes(sub.payment.pixCode));
    const paid = await call(ctx.app, 'POST', `/api/v1/transactions/${sub.payment.transactionId}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
    assert.equal(paid.status, 200, paid.raw);
    let s = await get(sub.id);
    assert.equal(s.status, 'ACTIVE');
    assert.equal(s.cycles[0].status, 'PAID');
    const periodEnd = new Date(s.currentPeriodEnd).getTime();
    const daysToEnd = Math.ceil((periodEnd - Date.now()) / 86_400_000);
    s = await sim(sub.id, daysToEnd - 3);
    assert.equal(s.cycles.length, 2, 'the next charge is issued 3 days before its due date');
    assert.equal(s.cycles[0].status, 'OPEN');
    assert.equal(s.status, 'ACTIVE');
    assert.equal((await emails(sub.id, 'charge_issued')).length, 2);
    s = await sim(sub.id, 2);
    assert.equal(s.status, 'ACTIVE', 'still before the due date');
    s = await sim(sub.id, 2);
    assert.equal(s.status, 'PAST_DUE', 'the due date passed unpaid');
    assert.equal((await emails(sub.id, 'payment_failed')).length, 1);
    assert.equal(s.cycles[0].failureReason, 'EXPIRED');
  });

  test('an unpaid first charge expires the subscription after 23 h and frees its seat', async () => {
    const plan = await newPlan({ maxSubscribers: 1 });
    const sub = await subscribe(plan.id, { paymentMethod: 'CARD', card: card(SOFT) });
    assert.equal(sub.status, 'INCOMPLETE');
    assert.equal(sub.cycles[0].failureReason, 'INSUFFICIENT_FUNDS');
    const full = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: plan.id, paymentMethod: 'CARD', card: GOOD, client: { name: 'Bia', email: 'bia@example.com', document: cpf() } } });
    assert.equal(full.status, 400);
    assert.equal(full.body.code, 'PLAN_FULL');
    const s = await sim(sub.id, 1);
    assert.equal(s.status, 'EXPIRED');
    assert.equal(s.cancelReason, 'FIRST_PAYMENT_NOT_MADE');
    assert.deepEqual((await events(sub.id)).sort(), ['subscription.created', 'subscription.expired'], 'the merchant hears that it ended');
    assert.equal((await call(ctx.app, 'GET', `/api/subscriptions/plans/${plan.id}`, { key: m.devKey })).body.plan.subscriberCount, 0);
    assert.equal((await subscribe(plan.id, { paymentMethod: 'CARD', card: GOOD })).status, 'ACTIVE');
  });

  test('cancel now, cancel at period end, pause and resume (bodiless requests), INVALID_STATE_TRANSITION', async () => {
    const plan = await newPlan();
    const a = await subscribe(plan.id, { paymentMethod: 'CARD', card: GOOD });
    const pause = await call(ctx.app, 'PATCH', `/api/subscriptions/${a.id}/pause`, { key: m.devKey });
    assert.equal(pause.status, 200, pause.raw);
    assert.equal(pause.body.subscription.status, 'PAUSED');
    const again = await call(ctx.app, 'PATCH', `/api/v1/subscriptions/${a.id}/pause`, { key: m.devKey });
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 'INVALID_STATE_TRANSITION');
    const resume = await call(ctx.app, 'PATCH', `/api/v1/subscriptions/${a.id}/resume`, { key: m.devKey });
    assert.equal(resume.status, 200, resume.raw);
    assert.equal(resume.body.subscription.status, 'ACTIVE');
    assert.equal(resume.body.subscription.cycles.length, 2, 'resuming starts (and charges) a new period');
    assert.equal(resume.body.subscription.cycles[0].status, 'PAID');
    const cancel = await call(ctx.app, 'PATCH', `/api/subscriptions/${a.id}/cancel`, { key: m.devKey });
    assert.equal(cancel.status, 200);
    assert.equal(cancel.body.subscription.status, 'CANCELLED');
    const twice = await call(ctx.app, 'PATCH', `/api/subscriptions/${a.id}/cancel`, { key: m.devKey, body: {} });
    assert.equal(twice.status, 400);
    assert.equal(twice.body.code, 'INVALID_STATE_TRANSITION');
    assert.equal((await call(ctx.app, 'PATCH', `/api/subscriptions/${a.id}/resume`, { key: m.devKey })).body.code, 'INVALID_STATE_TRANSITION');

    const b = await subscribe(plan.id, { paymentMethod: 'CARD', card: GOOD });
    const later = await call(ctx.app, 'PATCH', `/api/v1/subscriptions/${b.id}/cancel`, { key: m.devKey, body: { atPeriodEnd: true, reason: 'mudou de ideia<script>alert(1)</script>' } });
    assert.equal(later.body.subscription.status, 'ACTIVE');
    assert.equal(later.body.subscription.cancelAtPeriodEnd, true);
    assert.deepEqual((await events(b.id)).sort(), ['subscription.cancel_scheduled', 'subscription.created'], 'the merchant hears of a scheduled cancellation when it is made');
    const s = await sim(b.id, 31);
    assert.equal(s.status, 'CANCELLED');
    assert.equal(s.endedAt, b.currentPeriodEnd);
    assert.equal(s.cycles.length, 1, 'no renewal');
    assert.equal(s.cancelReason, 'mudou de ideia');
  });
});
