// Pix Automático through the fake PSP, the journey: the webhooks registered, the first charge with the
// authorisation (journey 3), approval, the cycles' automatic debits and their retries.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ensureWebhook } from '../../src/payments/pix-api/sweeps.ts';
import { advanceDue } from '../../src/modules/subscriptions/sweep.ts';
import { spDate } from '../../src/payments/calendar.ts';
import { txidFor } from '../../src/payments/pix-api/mapping.ts';
import { call, cpf } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { DAY, env, m, app, db, pixDeps, newPlan, subscribe, get, txOf, journals, eventTypes, cycle } from './automatico-kit.ts';

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
