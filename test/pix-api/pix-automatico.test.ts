// Pix Automático end to end through the fake PSP (API Pix v2.9.0): a production key (KYC approved)
// subscribes with PIX_AUTOMATICO; the first charge is a cob carrying the authorisation (journey 3,
// the composite BR Code); the payer pays and approves; a renewal is debited through a cobr sent
// days ahead; a failed debit is retried (POST /cobr/{txid}/retentativa/{data}) and paid; the payer
// cancels the authorisation and the subscription ends. Every notification is confirmed with the
// PSP (GET /rec, /cobr, /pix); forged ones change nothing; the ledger balances after each step.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { ensureWebhook, syncRecurring } from '../../src/payments/pix-api/sweeps.ts';
import { advanceDue } from '../../src/modules/subscriptions/sweep.ts';
import { spDate } from '../../src/payments/calendar.ts';
import { txidFor } from '../../src/payments/pix-api/mapping.ts';
import { call, cpf, merchant, type Merchant } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { startWithPsp, until, pixContext } from './kit.ts';

const DAY = 86_400_000;
let env: Awaited<ReturnType<typeof startWithPsp>>;
let m: Merchant;
before(async () => {
  env = await startWithPsp({ PIX_TTL_SECONDS: '3600', PIX_API_RECEIVER_ACCOUNT: 'CORRENTE:0001:1234567' });
  m = await merchant(env.ctx.app, { live: true });
  await ensureWebhook(pixContext(env.ctx.app));
});
after(() => env.close());

const app = () => env.ctx.app;
const db = () => app().deps.db;
const pixDeps = () => pixContext(app());

async function newPlan(body: Record<string, unknown> = {}) {
  const res = await call(app(), 'POST', '/api/v1/subscriptions/plans', { key: m.liveKey, body: { name: 'Clube do Livro', amountCents: 4990, interval: 'MONTHLY', paymentMethods: ['PIX_AUTOMATICO', 'PIX'], ...body } });
  assert.equal(res.status, 201, res.raw);
  return res.body.plan;
}
async function subscribe(planId: string) {
  const res = await call(app(), 'POST', '/api/v1/subscriptions', {
    key: m.liveKey,
    body: { planId, client: { name: 'Maria da Silva', email: `maria.${Math.random().toString(36).slice(2)}@example.com`, document: cpf() }, paymentMethod: 'PIX_AUTOMATICO' },
  });
  assert.equal(res.status, 201, res.raw);
  return res.body.subscription;
}
const get = async (id: string) => (await call(app(), 'GET', `/api/v1/subscriptions/${id}`, { key: m.liveKey })).body.subscription;
const txOf = async (id: string) => (await call(app(), 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey })).body.transaction;
const journals = (id: string) => db().selectFrom('ledger_journals').select('kind').where('reference_id', '=', id).execute();
const eventTypes = async (subId: string) =>
  (await db().selectFrom('events').select(['type', 'data']).where('user_id', '=', m.id).where('type', 'like', 'subscription.%').orderBy('created_at').execute()).filter((e) => (e.data as { id: string }).id === subId).map((e) => e.type);
/** The last subscription.mandate_updated of a subscription: the subscription as that change left it. */
const lastMandateNews = async (subId: string) =>
  (await db().selectFrom('events').select('data').where('user_id', '=', m.id).where('type', '=', 'subscription.mandate_updated').orderBy('created_at').execute())
    .map((e) => e.data as { id: string; status: string; cancelReason: string | null; cancelAtPeriodEnd: boolean; pixAutomatico: { status: string } })
    .filter((d) => d.id === subId)
    .at(-1)!;
/** The cycle numbered n, with its transaction row. */
async function cycle(subId: string, n: number) {
  const c = (await get(subId)).cycles.find((x: { number: number }) => x.number === n);
  return c;
}

describe('start', () => {
  test('the pix, rec and cobr webhooks are registered with {BASE_URL}/api/psp/...', async () => {
    pixDeps().registered = false;
    assert.equal(await ensureWebhook(pixDeps()), true);
    assert.equal(env.psp.webhooks.get('pix@loja.example')?.webhookUrl, `${env.baseUrl}/api/psp/bcb-api/pix`);
    assert.equal(env.psp.recWebhook?.webhookUrl, `${env.baseUrl}/api/psp/bcb-api/rec`);
    assert.equal(env.psp.cobrWebhook?.webhookUrl, `${env.baseUrl}/api/psp/bcb-api/cobr`);
    // The token asked for the Pix Automático scopes as well (the fake PSP refuses a call without them).
    assert.ok(env.psp.calls('PUT', '/webhookrec')[0].scope!.includes('rec.write'));
  });

  test('a plan offers PIX_AUTOMATICO only on a cadence the Pix rules know, without a trial; pixAutomaticoDaysBefore 2 to 10', async () => {
    for (const body of [{ interval: 'DAILY' }, { trialDays: 7 }, { interval: 'MONTHLY', intervalCount: 2 }]) {
      const res = await call(app(), 'POST', '/api/v1/subscriptions/plans', { key: m.liveKey, body: { name: 'X', amountCents: 1000, interval: 'MONTHLY', paymentMethods: ['PIX_AUTOMATICO'], ...body } });
      assert.equal(res.status, 400, res.raw);
      assert.equal(res.body.errors[0].field, 'paymentMethods');
    }
    const bad = await call(app(), 'POST', '/api/v1/subscriptions/plans', { key: m.liveKey, body: { name: 'X', amountCents: 1000, interval: 'MONTHLY', dunning: { pixAutomaticoDaysBefore: 1 } } });
    assert.equal(bad.status, 400);
    const plan = await newPlan();
    assert.deepEqual(plan.paymentMethods, ['PIX', 'PIX_AUTOMATICO']);
    assert.equal(plan.dunning.pixAutomaticoDaysBefore, 3);
    // A plan that does not list it refuses it.
    const plain = await call(app(), 'POST', '/api/v1/subscriptions/plans', { key: m.liveKey, body: { name: 'Y', amountCents: 1000, interval: 'MONTHLY' } });
    assert.deepEqual(plain.body.plan.paymentMethods, ['CARD', 'PIX', 'BOLETO']);
    const refused = await call(app(), 'POST', '/api/v1/subscriptions', { key: m.liveKey, body: { planId: plain.body.plan.id, client: { name: 'A', email: 'a@example.com', document: cpf() }, paymentMethod: 'PIX_AUTOMATICO' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.errors[0].field, 'paymentMethod');
  });
});

describe('the journey', () => {
  let sub: any;
  let recId: string;
  let periodEnd: Date;

  test('subscribing: a cob with the authorisation attached (journey 3), the composite BR Code is what the payer scans', async () => {
    const plan = await newPlan();
    sub = await subscribe(plan.id);
    assert.equal(sub.status, 'INCOMPLETE');
    assert.equal(sub.paymentMethod, 'PIX_AUTOMATICO');
    recId = sub.pixAutomatico.recurrenceId;
    assert.match(recId, /^RR99999999\d{8}[a-zA-Z0-9]{11}$/, 'an idRec that allows retries (RR)');
    assert.equal(sub.pixAutomatico.status, 'CRIADA');
    const first = sub.cycles[0];
    const txid = txidFor(first.transactionId);
    const rec = env.psp.recs.get(recId)!;
    assert.equal(rec.body.politicaRetentativa, 'PERMITE_3R_7D');
    assert.equal(rec.body.ativacao.dadosJornada.txid, txid);
    assert.equal(rec.body.vinculo.contrato, sub.id.replace(/-/g, ''));
    assert.equal(rec.body.vinculo.devedor.nome, 'Maria da Silva');
    assert.equal(rec.body.calendario.periodicidade, 'MENSAL');
    assert.equal(rec.body.calendario.dataInicial, spDate(new Date(sub.currentPeriodEnd)));
    assert.equal(env.psp.cobs.get(txid)!.kind, 'cob');
    // The code shown is the composite one: the charge's location and, in tag 80, the authorisation's.
    assert.ok(env.psp.calls('GET', `/rec/${recId}`).some((c) => c.query.get('txid') === txid && c.status === 200), 'the composite code was asked with the charge (GET /rec/{idRec}?txid=)');
    assert.ok(sub.payment.pixCode.includes(rec.loc!.location), 'the BR Code carries the authorisation');
    assert.ok(sub.payment.pixCode.includes(env.psp.cobs.get(txid)!.location));
    assert.equal((await txOf(first.transactionId)).pix.qrCode, sub.payment.pixCode);
    // The two POSTs whose ids the PSP chooses were sent once each.
    assert.equal(env.psp.calls('POST', '/rec').length, 1);
  });

  test('the payer pays and approves: the first charge PAID once, the subscription ACTIVE, the authorisation APROVADA', async () => {
    const first = sub.cycles[0];
    await env.psp.pay(txidFor(first.transactionId), { mode: 'twice' });
    assert.equal((await txOf(first.transactionId)).status, 'PAID');
    assert.deepEqual((await journals(first.transactionId)).map((j) => j.kind), ['payment']);
    await env.psp.answerRec(recId, 'APROVADA', { mode: 'twice' });
    const now = await get(sub.id);
    assert.equal(now.status, 'ACTIVE');
    assert.deepEqual(now.pixAutomatico, { recurrenceId: recId, status: 'APROVADA' });
    // One when the authorisation was created (CRIADA), one for APROVADA: a duplicate notification changes nothing.
    assert.equal((await eventTypes(sub.id)).filter((t) => t === 'subscription.mandate_updated').length, 2, 'a duplicate notification changes nothing');
    periodEnd = new Date(now.currentPeriodEnd);
    await assertLedgerBalanced(db());
  });

  test('a forged authorisation notification changes nothing (the PSP is asked: GET /rec)', async () => {
    const before = env.psp.calls('GET', `/rec/${recId}`).length;
    assert.equal(await env.psp.notifyRecurring('rec', [{ idRec: recId, status: 'CANCELADA' }]), 200);
    assert.equal(env.psp.calls('GET', `/rec/${recId}`).length, before + 1);
    assert.equal((await get(sub.id)).status, 'ACTIVE');
    // An idRec that is no subscription's costs no call.
    const calls = env.psp.requests.length;
    assert.equal(await env.psp.notifyRecurring('rec', [{ idRec: 'RR1234567820240115abcdefghijk', status: 'APROVADA' }], { bare: true }), 200);
    assert.equal(env.psp.requests.length, calls);
  });

  test('renewal: the cobr is sent 3 days before the due date, debited, confirmed (GET /cobr, GET /pix) and PAID once', async () => {
    await advanceDue(app().deps.subscriptions, new Date(periodEnd.getTime() - 3 * DAY + 60_000));
    const c2 = await cycle(sub.id, 2);
    assert.ok(c2, 'cycle 2 issued ahead');
    const tx = await txOf(c2.transactionId);
    assert.equal(tx.status, 'PENDING');
    assert.equal(tx.paymentMethod, 'PIX');
    assert.equal(tx.subscriptionId, sub.id);
    assert.equal(tx.pix, undefined, 'an automatic debit has no code to pay');
    const txid = txidFor(c2.transactionId);
    const cobr = env.psp.cobrs.get(txid)!;
    assert.equal(cobr.idRec, recId);
    assert.equal(cobr.body.calendario.dataDeVencimento, spDate(periodEnd));
    assert.equal(cobr.body.valor.original, '49.90');
    assert.deepEqual(cobr.body.recebedor, { tipoConta: 'CORRENTE', conta: '1234567', agencia: '0001' });
    assert.equal((await get(sub.id)).payment, null, 'nothing to pay by hand');
    // The payer's bank debits it on the due date.
    const pix = await env.psp.debit(txid, { mode: 'twice' });
    assert.equal((await txOf(c2.transactionId)).status, 'PAID');
    assert.deepEqual((await journals(c2.transactionId)).map((j) => j.kind), ['payment']);
    assert.equal(env.psp.calls('GET', `/pix/${pix.endToEndId}`).length, 1, 'a known payment is not looked up again');
    assert.equal((await cycle(sub.id, 2)).status, 'PAID');
    assert.ok((await eventTypes(sub.id)).includes('subscription.renewed'));
    await advanceDue(app().deps.subscriptions, new Date(periodEnd.getTime() + 60_000));
    const rolled = await get(sub.id);
    assert.equal(rolled.status, 'ACTIVE');
    assert.equal(rolled.cycles.length, 2, 'the renewal does not charge twice');
    periodEnd = new Date(rolled.currentPeriodEnd);
    await assertLedgerBalanced(db());
  });

  test('a failed debit: PAST_DUE, retried the day after its due date (POST /cobr/{txid}/retentativa/{data}), then paid', async () => {
    await advanceDue(app().deps.subscriptions, new Date(periodEnd.getTime() - 3 * DAY + 60_000));
    const c3 = await cycle(sub.id, 3);
    const txid = txidFor(c3.transactionId);
    await env.psp.failAttempt(txid, 'AM02');
    const failed = await txOf(c3.transactionId);
    assert.equal(failed.status, 'FAILED');
    const past = await get(sub.id);
    assert.equal(past.status, 'PAST_DUE');
    const pastCycle = past.cycles.find((x: { number: number }) => x.number === 3);
    assert.equal(pastCycle.status, 'PAST_DUE');
    assert.equal(pastCycle.failureReason, 'PIX_AUTOMATICO_ABOVE_PAYER_LIMIT');
    const due = new Date(pastCycle.dueAt);
    assert.equal(new Date(pastCycle.nextRetryAt).getTime(), due.getTime() + DAY, 'retries count from the due date');
    // Nothing happens before the retry's time.
    await advanceDue(app().deps.subscriptions, new Date(due.getTime() + 60_000));
    assert.equal(env.psp.calls('POST', `/cobr/${txid}/retentativa/`).length, 0);
    await advanceDue(app().deps.subscriptions, new Date(due.getTime() + DAY + 60_000));
    const retried = env.psp.calls('POST', `/cobr/${txid}/retentativa/`);
    assert.equal(retried.length, 1);
    assert.equal(retried[0].path.split('/').pop(), spDate(new Date(due.getTime() + 2 * DAY + 60_000)));
    assert.equal(env.psp.cobrs.get(txid)!.tentativas.length, 2);
    const retryCycle = await cycle(sub.id, 3);
    assert.notEqual(retryCycle.transactionId, c3.transactionId, 'the retry is a transaction of its own');
    assert.equal((await txOf(retryCycle.transactionId)).status, 'PENDING');
    await env.psp.debit(txid);
    assert.equal((await txOf(retryCycle.transactionId)).status, 'PAID');
    assert.equal((await txOf(c3.transactionId)).status, 'FAILED');
    const recovered = await get(sub.id);
    assert.equal(recovered.status, 'ACTIVE');
    assert.equal(recovered.cycles.find((x: { number: number }) => x.number === 3).status, 'PAID');
    assert.deepEqual((await journals(retryCycle.transactionId)).map((j) => j.kind), ['payment']);
    assert.deepEqual(await journals(c3.transactionId), []);
    periodEnd = new Date(recovered.currentPeriodEnd);
    await assertLedgerBalanced(db());
  });

  test('the payer cancels the authorisation: the subscription CANCELLED (PIX_AUTOMATICO_CANCELLED_BY_PAYER), its scheduled debit void', async () => {
    await advanceDue(app().deps.subscriptions, new Date(periodEnd.getTime() - 3 * DAY + 60_000));
    const c4 = await cycle(sub.id, 4);
    assert.equal((await txOf(c4.transactionId)).status, 'PENDING');
    await env.psp.answerRec(recId, 'CANCELADA');
    const ended = await get(sub.id);
    assert.equal(ended.status, 'CANCELLED');
    assert.equal(ended.cancelReason, 'PIX_AUTOMATICO_CANCELLED_BY_PAYER');
    assert.deepEqual(ended.pixAutomatico, { recurrenceId: recId, status: 'CANCELADA' });
    assert.equal(ended.cycles.find((x: { number: number }) => x.number === 4).status, 'VOID');
    assert.equal((await txOf(c4.transactionId)).status, 'CANCELLED');
    assert.equal(env.psp.cobrs.get(txidFor(c4.transactionId))!.status, 'CANCELADA');
    assert.equal(env.psp.calls('PATCH', `/rec/${recId}`).length, 0, 'the authorisation is already cancelled: nothing to withdraw');
    const types = await eventTypes(sub.id);
    // In one commit: the cancellation, and the authorisation's news carrying the subscription as it left it.
    assert.deepEqual(types.slice(-2).sort(), ['subscription.cancelled', 'subscription.mandate_updated']); // one commit: no order between them
    await assertLedgerBalanced(db());
  });
});

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
    const plan = await newPlan();
    const sub = await subscribe(plan.id);
    await env.psp.pay(txidFor(sub.cycles[0].transactionId));
    await env.psp.answerRec(sub.pixAutomatico.recurrenceId, 'APROVADA');
    const end = new Date((await get(sub.id)).currentPeriodEnd);
    await advanceDue(app().deps.subscriptions, new Date(end.getTime() - 3 * DAY + 60_000));
    const c2 = await cycle(sub.id, 2);
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
    await advanceDue(app().deps.subscriptions, new Date(end.getTime() - 3 * DAY + 60_000));
    const c2 = await cycle(sub.id, 2);
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
    const plan = await newPlan();
    const sub = await subscribe(plan.id);
    await env.psp.pay(txidFor(sub.cycles[0].transactionId));
    await env.psp.answerRec(sub.pixAutomatico.recurrenceId, 'APROVADA');
    const end = new Date((await get(sub.id)).currentPeriodEnd);
    await advanceDue(app().deps.subscriptions, new Date(end.getTime() - 3 * DAY + 60_000));
    const c2 = await cycle(sub.id, 2);
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
      body: { planId: plan.id, client: { name: 'Maria da Silva', email: 'refused@example.com', document: cpf() }, paymentMethod: 'PIX_AUTOMATICO' },
    });
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
