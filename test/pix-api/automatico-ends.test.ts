// Pix Automático through the fake PSP, how it ends: rejections, cancellations by either side, lost
// answers recovered, no secret in the logs, the notification routes' per-address limit.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { describe, test } from 'node:test';
import { syncRecurring } from '../../src/payments/pix-api/sweeps.ts';
import { txidFor } from '../../src/payments/pix-api/mapping.ts';
import { call, cpf } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { until } from './kit.ts';
import { approvedWithSecondCycle, DAY, env, m, app, db, pixDeps, newPlan, subscribe, get, txOf, eventTypes, lastMandateNews, secondCycle } from './automatico-kit.ts';

describe('other ends', () => {
  test('the payer rejects the authorisation before paying: EXPIRED (PIX_AUTOMATICO_REJECTED), the first charge withdrawn at the PSP', async () => {
    const plan = await newPlan();
    const sub = await subscribe(plan.id);
    const txid = txidFor(sub.cycles[0].transactionId);
    await env.psp.answerRec(sub.pixAutomatico.recurrenceId, 'REJEITADA');
    const ended = await get(sub.id);
    assert.equal(ended.status, 'EXPIRED');
    assert.equal(ended.cancelReason, 'PIX_AUTOMATICO_REJECTED');
    assert.equal(ended.pixAutomatico.status, 'REJEITADA');
    assert.equal(env.psp.cobs.get(txid)!.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'the code can no longer be paid');
    assert.equal((await txOf(sub.cycles[0].transactionId)).status, 'CANCELLED');
    // The webhook says so: a merchant following events learns the subscription ended.
    const news = await lastMandateNews(sub.id);
    assert.deepEqual([news.pixAutomatico.status, news.status, news.cancelReason], ['REJEITADA', 'EXPIRED', 'PIX_AUTOMATICO_REJECTED']);
    assert.deepEqual((await eventTypes(sub.id)).slice(-2).sort(), ['subscription.expired', 'subscription.mandate_updated']);
  });

  test('rejected after the first payment: the paid period is kept, the subscription cancels at its end', async () => {
    const plan = await newPlan();
    const sub = await subscribe(plan.id);
    await env.psp.pay(txidFor(sub.cycles[0].transactionId));
    await env.psp.answerRec(sub.pixAutomatico.recurrenceId, 'REJEITADA');
    const now = await get(sub.id);
    assert.equal(now.status, 'ACTIVE');
    assert.equal(now.cancelAtPeriodEnd, true);
    assert.equal(now.cancelReason, 'PIX_AUTOMATICO_REJECTED');
    const news = await lastMandateNews(sub.id);
    assert.deepEqual([news.pixAutomatico.status, news.status, news.cancelAtPeriodEnd, news.cancelReason], ['REJEITADA', 'ACTIVE', true, 'PIX_AUTOMATICO_REJECTED']);
    assert.deepEqual((await eventTypes(sub.id)).slice(-2).sort(), ['subscription.cancel_scheduled', 'subscription.mandate_updated']);
  });

  test('the merchant cancels: the authorisation is withdrawn at the PSP (PATCH /rec CANCELADA)', async () => {
    const plan = await newPlan();
    const sub = await subscribe(plan.id);
    const recId = sub.pixAutomatico.recurrenceId;
    await env.psp.pay(txidFor(sub.cycles[0].transactionId));
    await env.psp.answerRec(recId, 'APROVADA');
    const res = await call(app(), 'PATCH', `/api/v1/subscriptions/${sub.id}/cancel`, { key: m.liveKey, body: { reason: 'cliente pediu' } });
    assert.equal(res.status, 200, res.raw);
    assert.equal(env.psp.recs.get(recId)!.status, 'CANCELADA');
    assert.deepEqual(env.psp.calls('PATCH', `/rec/${recId}`).at(-1)!.body, { status: 'CANCELADA' });
    assert.equal((await get(sub.id)).pixAutomatico.status, 'CANCELADA');
    // The PSP's own notification of that cancellation (by the receiver) changes nothing more.
    assert.equal(await env.psp.notifyRecurring('rec', [{ idRec: recId }]), 200);
    assert.equal((await get(sub.id)).cancelReason, 'cliente pediu');
  });

  test('pausing withdraws the scheduled debit at the PSP (PATCH /cobr CANCELADA); the authorisation stays', async () => {
    const { sub, c2 } = await approvedWithSecondCycle();
    const res = await call(app(), 'PATCH', `/api/v1/subscriptions/${sub.id}/pause`, { key: m.liveKey });
    assert.equal(res.status, 200, res.raw);
    assert.equal(env.psp.cobrs.get(txidFor(c2.transactionId))!.status, 'CANCELADA');
    assert.deepEqual(env.psp.calls('PATCH', `/cobr/${txidFor(c2.transactionId)}`).at(-1)!.body, { status: 'CANCELADA' });
    assert.equal((await txOf(c2.transactionId)).status, 'CANCELLED');
    assert.equal(env.psp.recs.get(sub.pixAutomatico.recurrenceId)!.status, 'APROVADA');
  });

  test('lost notifications: the backstop sweep finds the approval (GET /rec) and the debit (GET /cobr)', async () => {
    const plan = await newPlan();
    const sub = await subscribe(plan.id);
    await env.psp.pay(txidFor(sub.cycles[0].transactionId));
    await env.psp.answerRec(sub.pixAutomatico.recurrenceId, 'APROVADA', { mode: 'none' });
    assert.equal((await get(sub.id)).pixAutomatico.status, 'CRIADA');
    await syncRecurring(pixDeps(), new Date(Date.now() + 10 * 60_000), 50, true);
    assert.equal((await get(sub.id)).pixAutomatico.status, 'APROVADA');
    const end = new Date((await get(sub.id)).currentPeriodEnd);
    const c2 = await secondCycle(sub.id);
    await env.psp.debit(txidFor(c2.transactionId), { mode: 'none' });
    assert.equal((await txOf(c2.transactionId)).status, 'PENDING');
    // Not before its date has passed.
    await syncRecurring(pixDeps(), new Date(), 50, true);
    assert.equal((await txOf(c2.transactionId)).status, 'PENDING');
    await syncRecurring(pixDeps(), new Date(end.getTime() + 2 * DAY), 50, true);
    assert.equal((await txOf(c2.transactionId)).status, 'PAID');
    await assertLedgerBalanced(db());
  });

  test('the PSP unreachable while confirming a cobr notification: 503, so that it is sent again', async () => {
    const { c2 } = await approvedWithSecondCycle();
    const txid = txidFor(c2.transactionId);
    await env.psp.debit(txid, { mode: 'none' });
    env.psp.failNext(3, 503);
    assert.equal(await env.psp.notifyRecurring('cobr', [{ txid }]), 503);
    assert.equal((await txOf(c2.transactionId)).status, 'PENDING');
    assert.equal(await env.psp.notifyRecurring('cobr', [{ txid }]), 200);
    await until(async () => (await txOf(c2.transactionId)).status === 'PAID');
  });

  test('a development key subscribes with PIX_AUTOMATICO through the sandbox, never the PSP', async () => {
    const plan = await call(app(), 'POST', '/api/v1/subscriptions/plans', { key: m.devKey, body: { name: 'Dev', amountCents: 1000, interval: 'MONTHLY', paymentMethods: ['PIX_AUTOMATICO'] } });
    const before = env.psp.calls('POST', '/rec').length;
    const res = await call(app(), 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: plan.body.plan.id, client: { name: 'Ana', email: 'ana@example.com', document: cpf() }, paymentMethod: 'PIX_AUTOMATICO' } });
    assert.equal(res.status, 201, res.raw);
    assert.match(res.body.subscription.pixAutomatico.recurrenceId, /^RRSANDBOX0/);
    assert.equal(env.psp.calls('POST', '/rec').length, before);
  });
});

describe('lost answers', () => {
  const recsOf = (subId: string) => [...env.psp.recs.values()].filter((r) => r.body.vinculo.contrato === subId.replace(/-/g, ''));

  test('the answer to POST /rec lost after the PSP made the authorisation: found by its location, no second authorisation', async () => {
    const plan = await newPlan();
    const posts = env.psp.calls('POST', '/rec').length;
    env.psp.dropAnswer('POST', '/rec');
    const sub = await subscribe(plan.id);
    const made = recsOf(sub.id);
    assert.equal(made.length, 1, 'one authorisation at the PSP');
    assert.equal(sub.pixAutomatico.recurrenceId, made[0].idRec);
    assert.equal(sub.pixAutomatico.status, 'CRIADA');
    assert.equal(env.psp.calls('POST', '/rec').length, posts + 1, 'not sent again: the location named it');
    assert.equal(env.psp.calls('GET', `/locrec/${made[0].loc!.id}`).length, 1);
    assert.ok(sub.payment.pixCode.includes(made[0].loc!.location), 'the composite BR Code of the authorisation found');
    assert.ok(env.ctx.logs.some((l) => l.includes(made[0].idRec) && l.includes('found by its location')));
    // The journey goes on with it: the payer pays and approves.
    await env.psp.pay(txidFor(sub.cycles[0].transactionId));
    await env.psp.answerRec(made[0].idRec, 'APROVADA');
    await until(async () => (await get(sub.id)).status === 'ACTIVE');
  });

  test('POST /rec failing before the PSP made anything: sent again on the same location, one authorisation', async () => {
    const plan = await newPlan();
    const posts = env.psp.calls('POST', '/rec').length;
    // The PSP answers 503 without making the authorisation (the next POST /rec only).
    env.psp.failNextOn('POST', '/rec', 503);
    const sub = await subscribe(plan.id);
    const made = recsOf(sub.id);
    assert.equal(made.length, 1);
    assert.equal(sub.pixAutomatico.recurrenceId, made[0].idRec);
    const sent = env.psp.calls('POST', '/rec').slice(posts);
    assert.deepEqual(sent.map((c) => c.status), [503, 201]);
    assert.equal(sent[0].body.loc, sent[1].body.loc, 'the same location both times');
  });

  test('POST /rec refused (400) and nothing on the location: the subscribe request fails, nothing sent again', async () => {
    const plan = await newPlan();
    const posts = env.psp.calls('POST', '/rec').length;
    env.psp.failNextOn('POST', '/rec', 400);
    const res = await call(app(), 'POST', '/api/v1/subscriptions', {
      key: m.liveKey,
      body: { planId: plan.id, client: { name: 'Maria da Silva', email: 'refused@example.com', document: cpf() }, paymentMethod: 'PIX_AUTOMATICO' } });
    assert.equal(res.status, 502, res.raw);
    assert.equal(env.psp.calls('POST', '/rec').length, posts + 1);
    // The charge made just before is withdrawn at the PSP: nobody's, it must not stay payable for a day.
    const put = env.psp.calls('PUT', '/cob/').at(-1)!;
    const txid = put.path.split('/').at(-1)!;
    assert.equal(env.psp.cobs.get(txid)!.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
    // The request failed, so nothing of it stays live: no retry an hour later, no welcome e-mail.
    const list = await call(app(), 'GET', '/api/v1/subscriptions?clientEmail=refused@example.com', { key: m.liveKey });
    assert.equal(list.body.subscriptions.length, 1, list.raw);
    const [gone] = list.body.subscriptions;
    assert.deepEqual([gone.status, gone.cancelReason], ['EXPIRED', 'FIRST_CHARGE_NOT_ISSUED']);
    assert.deepEqual((await eventTypes(gone.id)).sort(), ['subscription.created', 'subscription.expired'], 'a merchant told of the subscription hears that it ended');
    const mails = await db().selectFrom('emails').select('id').where('related_id', '=', gone.id).execute();
    assert.equal(mails.length, 0, 'no welcome e-mail for a subscription the request did not make');
    assert.equal((await db().selectFrom('subscription_plans').select('subscriber_count').where('id', '=', plan.id).executeTakeFirstOrThrow()).subscriber_count, 0, 'its seat given back');
  });
});

test('no secret reaches the logs; every recurring charge kept its derived txid', async () => {
  const all = env.ctx.logs.join('\n');
  assert.doesNotMatch(all, new RegExp(env.psp.clientSecret));
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM transactions WHERE provider = 'bcb-api' AND pix_txid IS NOT NULL AND pix_txid <> replace(id::text, '-', '')`.execute(db());
  assert.equal(rows[0].n, 0);
});

test('the PSP notification routes are rate limited per address (429 with Retry-After); others are not affected', async () => {
  const { PSP_NOTIFICATIONS_PER_MINUTE } = await import('../../src/payments/pix-api/routes.ts');
  const post = (url: string, remoteAddress: string) => app().inject({ method: 'POST', url, payload: { recs: [] }, headers: { 'content-type': 'application/json' }, remoteAddress });
  // The address has used all but one of its minute (counted where the route counts).
  for (let i = 0; i < PSP_NOTIFICATIONS_PER_MINUTE - 1; i++) await app().deps.limiter.hit('psp-notify:ip:10.9.8.7', 60_000);
  assert.equal((await post('/api/psp/pix', '10.9.8.7')).statusCode, 200);
  const limited = await post('/api/psp/cobr', '10.9.8.7');
  assert.equal(limited.statusCode, 429);
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assert.equal((await post('/api/psp/rec', '10.9.8.8')).statusCode, 200);
});
