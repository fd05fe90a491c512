// Pix Automático's rejection and cancellation codes as Cofre outcomes (payments/pix-api/reasons.ts,
// the table in docs/providers.md): the mapping on its own, then each class end to end through the
// fake PSP — insufficient funds (retried), the payer's account closed (final), above the payer's
// limit (retried), the payer's bank cancelling the authorisation, a debit cancelled by the payer —
// and a devolução NAO_REALIZADO with the PSP's motivo kept for the person who returns the money.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ensureWebhook } from '../../src/payments/pix-api/sweeps.ts';
import { syncRefunds } from '../../src/payments/pix-api/settle.ts';
import { advanceDue } from '../../src/modules/subscriptions/sweep.ts';
import { debitFailure, FINAL_DEBIT_REASONS, mandateEndReason } from '../../src/payments/pix-automatico.ts';
import { txidFor } from '../../src/payments/pix-api/mapping.ts';
import { HARD_DECLINES } from '../../src/payments/connector.ts';
import { call, cpf, merchant, type Merchant } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { startWithPsp, pixContext } from './kit.ts';

const DAY = 86_400_000;

describe('the mapping (pure)', () => {
  const attempt = (status: string, code: string | null = null) => ({ status: 'ATIVA', attempts: [{ status: 'AGENDADA', code: null }, { status, code }] });
  test('a failed attempt: insufficient funds, the mapped codes, an unmapped code kept; a scheduled one is no failure', () => {
    assert.equal(debitFailure(attempt('AGENDADA')), null);
    assert.equal(debitFailure({ status: 'ATIVA', attempts: [] }), null);
    assert.equal(debitFailure(attempt('EXPIRADA')), 'INSUFFICIENT_FUNDS');
    assert.equal(debitFailure(attempt('REJEITADA', 'AM02')), 'PIX_AUTOMATICO_ABOVE_PAYER_LIMIT');
    assert.equal(debitFailure(attempt('REJEITADA', 'AC06')), 'PIX_AUTOMATICO_ACCOUNT_BLOCKED');
    assert.equal(debitFailure(attempt('REJEITADA', 'AB10')), 'PIX_AUTOMATICO_PAYER_BANK_ERROR');
    assert.equal(debitFailure(attempt('REJEITADA', 'NIPA')), 'PIX_AUTOMATICO_NIPA');
    assert.equal(debitFailure(attempt('CANCELADA')), 'PIX_AUTOMATICO_CANCELLED_BY_PAYER');
  });

  test('rejected for good: the final codes say why; the charge rejected, expired or cancelled', () => {
    const rejected = (code: string) => ({ status: 'REJEITADA', attempts: [{ status: 'REJEITADA', code }] });
    assert.equal(debitFailure(rejected('AC05')), 'PIX_AUTOMATICO_ACCOUNT_CLOSED');
    assert.equal(debitFailure(rejected('AM09')), 'PIX_AUTOMATICO_AMOUNT_MISMATCH');
    assert.equal(debitFailure(rejected('DENC')), 'PIX_AUTOMATICO_PAYER_MISMATCH');
    assert.equal(debitFailure(rejected('DS27')), 'PIX_AUTOMATICO_PAYER_BANK_NOT_IN_PIX');
    assert.equal(debitFailure(rejected('DTED')), 'PIX_AUTOMATICO_DUE_DATE_MISMATCH');
    assert.equal(debitFailure(rejected('MIDI')), 'PIX_AUTOMATICO_REJECTED');
    // A final code on an attempt the PSP has not yet closed the charge for: still final.
    assert.equal(debitFailure({ status: 'ATIVA', attempts: [{ status: 'REJEITADA', code: 'NITX' }] }), 'PIX_AUTOMATICO_REJECTED');
    // A retryable code on a charge rejected anyway: no retry can help.
    assert.equal(debitFailure(rejected('AM02')), 'PIX_AUTOMATICO_REJECTED');
    assert.equal(debitFailure({ status: 'EXPIRADA', attempts: [] }), 'PIX_AUTOMATICO_REJECTED');
    assert.equal(debitFailure({ status: 'CANCELADA', attempts: [], end: { by: 'PSP_PAGADOR' } }), 'PIX_AUTOMATICO_CANCELLED_BY_PAYER');
    assert.equal(debitFailure({ status: 'CANCELADA', attempts: [], end: { by: 'PSP_RECEBEDOR' } }), 'PIX_AUTOMATICO_REJECTED');
  });

  test('final exactly for the reasons no retry can change; the dunning treats them as hard declines', () => {
    for (const r of ['PIX_AUTOMATICO_ACCOUNT_CLOSED', 'PIX_AUTOMATICO_AMOUNT_MISMATCH', 'PIX_AUTOMATICO_PAYER_MISMATCH', 'PIX_AUTOMATICO_PAYER_BANK_NOT_IN_PIX', 'PIX_AUTOMATICO_DUE_DATE_MISMATCH', 'PIX_AUTOMATICO_REJECTED', 'PIX_AUTOMATICO_CANCELLED_BY_PAYER']) {
      assert.ok(FINAL_DEBIT_REASONS.has(r) && HARD_DECLINES.has(r), r);
    }
    for (const r of ['INSUFFICIENT_FUNDS', 'PIX_AUTOMATICO_ABOVE_PAYER_LIMIT', 'PIX_AUTOMATICO_ACCOUNT_BLOCKED', 'PIX_AUTOMATICO_PAYER_BANK_ERROR', 'PIX_AUTOMATICO_NIPA']) {
      assert.ok(!FINAL_DEBIT_REASONS.has(r) && !HARD_DECLINES.has(r), r);
    }
  });

  test('an authorisation that ends: rejected, expired, cancelled by whom', () => {
    assert.equal(mandateEndReason('REJEITADA'), 'PIX_AUTOMATICO_REJECTED');
    assert.equal(mandateEndReason('EXPIRADA'), 'PIX_AUTOMATICO_EXPIRED');
    assert.equal(mandateEndReason('CANCELADA', 'USUARIO_PAGADOR'), 'PIX_AUTOMATICO_CANCELLED_BY_PAYER');
    assert.equal(mandateEndReason('CANCELADA', 'PSP_PAGADOR'), 'PIX_AUTOMATICO_CANCELLED_BY_PAYER_BANK');
    assert.equal(mandateEndReason('CANCELADA', 'PSP_RECEBEDOR'), 'PIX_AUTOMATICO_CANCELLED_BY_PSP');
    assert.equal(mandateEndReason('CANCELADA', null), 'PIX_AUTOMATICO_CANCELLED_BY_PAYER');
  });
});

let env: Awaited<ReturnType<typeof startWithPsp>>;
let m: Merchant;
before(async () => {
  env = await startWithPsp({ PIX_TTL_SECONDS: '3600', PIX_API_RECEIVER_ACCOUNT: 'CORRENTE:0001:1234567' });
  m = await merchant(env.ctx.app, { live: true });
  assert.equal(await ensureWebhook(pixContext(env.ctx.app)), true);
});
after(() => env.close());

const app = () => env.ctx.app;
const get = async (id: string) => (await call(app(), 'GET', `/api/v1/subscriptions/${id}`, { key: m.liveKey })).body.subscription;
const txOf = async (id: string) => (await call(app(), 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey })).body.transaction;
const cycleOf = async (subId: string, n: number) => (await get(subId)).cycles.find((x: { number: number }) => x.number === n);

/** An approved subscription whose second period's debit is scheduled at the PSP. */
async function scheduledDebit() {
  const plan = await call(app(), 'POST', '/api/v1/subscriptions/plans', { key: m.liveKey, body: { name: 'Plano', amountCents: 4990, interval: 'MONTHLY', paymentMethods: ['PIX_AUTOMATICO'] } });
  assert.equal(plan.status, 201, plan.raw);
  const res = await call(app(), 'POST', '/api/v1/subscriptions', {
    key: m.liveKey,
    body: { planId: plan.body.plan.id, client: { name: 'Maria da Silva', email: `m.${Math.random().toString(36).slice(2)}@example.com`, document: cpf() }, paymentMethod: 'PIX_AUTOMATICO' },
  });
  assert.equal(res.status, 201, res.raw);
  const sub = res.body.subscription;
  await env.psp.pay(txidFor(sub.cycles[0].transactionId));
  await env.psp.answerRec(sub.pixAutomatico.recurrenceId, 'APROVADA');
  const end = new Date((await get(sub.id)).currentPeriodEnd);
  await advanceDue(app().deps.subscriptions, new Date(end.getTime() - 3 * DAY + 60_000));
  const c2 = await cycleOf(sub.id, 2);
  return { sub, c2, txid: txidFor(c2.transactionId), recId: sub.pixAutomatico.recurrenceId as string };
}

/** The cycle's state after a failed debit, and whether a retry was asked of the PSP by the day after the due date. */
async function afterFailure(subId: string, txid: string) {
  const c = await cycleOf(subId, 2);
  const due = new Date(c.dueAt);
  await advanceDue(app().deps.subscriptions, new Date(due.getTime() + DAY + 60_000));
  return { cycle: c, due, retried: env.psp.calls('POST', `/cobr/${txid}/retentativa/`).length > 0 };
}

describe('each class end to end', () => {
  test('insufficient funds (the attempt EXPIRADA): INSUFFICIENT_FUNDS, PAST_DUE, retried the next day', async () => {
    const { sub, c2, txid } = await scheduledDebit();
    await env.psp.failAttempt(txid);
    const tx = await txOf(c2.transactionId);
    assert.equal(tx.status, 'FAILED');
    assert.equal(tx.failureReason, 'INSUFFICIENT_FUNDS');
    const { cycle, due, retried } = await afterFailure(sub.id, txid);
    assert.equal(cycle.status, 'PAST_DUE');
    assert.equal(cycle.failureReason, 'INSUFFICIENT_FUNDS');
    assert.equal(new Date(cycle.nextRetryAt).getTime(), due.getTime() + DAY);
    assert.equal(retried, true);
    await assertLedgerBalanced(app().deps.db);
  });

  test('the payer\'s account closed (AC05): PIX_AUTOMATICO_ACCOUNT_CLOSED, never retried', async () => {
    const { sub, c2, txid } = await scheduledDebit();
    await env.psp.failAttempt(txid, 'AC05');
    assert.equal((await txOf(c2.transactionId)).failureReason, 'PIX_AUTOMATICO_ACCOUNT_CLOSED');
    const { cycle, retried } = await afterFailure(sub.id, txid);
    assert.equal(cycle.failureReason, 'PIX_AUTOMATICO_ACCOUNT_CLOSED');
    assert.equal(retried, false, 'no retentativa for a closed account');
    assert.ok(env.ctx.logs.some((l) => l.includes(c2.transactionId) && l.includes('AC05') && l.includes('an automatic debit failed')));
  });

  test('above the payer\'s limit (AM02): PIX_AUTOMATICO_ABOVE_PAYER_LIMIT, retried (the payer can raise it)', async () => {
    const { sub, c2, txid } = await scheduledDebit();
    await env.psp.failAttempt(txid, 'AM02');
    assert.equal((await txOf(c2.transactionId)).failureReason, 'PIX_AUTOMATICO_ABOVE_PAYER_LIMIT');
    const { retried } = await afterFailure(sub.id, txid);
    assert.equal(retried, true);
  });

  test('the payer cancels the authorisation: CANCELLED (PIX_AUTOMATICO_CANCELLED_BY_PAYER), the scheduled debit void', async () => {
    const { sub, c2, recId } = await scheduledDebit();
    await env.psp.answerRec(recId, 'CANCELADA');
    const ended = await get(sub.id);
    assert.equal(ended.status, 'CANCELLED');
    assert.equal(ended.cancelReason, 'PIX_AUTOMATICO_CANCELLED_BY_PAYER');
    assert.equal((await txOf(c2.transactionId)).status, 'CANCELLED');
  });

  test('the payer\'s bank cancels the authorisation: CANCELLED (PIX_AUTOMATICO_CANCELLED_BY_PAYER_BANK)', async () => {
    const { sub, recId } = await scheduledDebit();
    await env.psp.answerRec(recId, 'CANCELADA', { by: 'PSP_PAGADOR', codigo: 'FRUD' });
    const ended = await get(sub.id);
    assert.equal(ended.status, 'CANCELLED');
    assert.equal(ended.cancelReason, 'PIX_AUTOMATICO_CANCELLED_BY_PAYER_BANK');
  });

  test('the payer rejects the authorisation: EXPIRED before paying (PIX_AUTOMATICO_REJECTED)', async () => {
    const plan = await call(app(), 'POST', '/api/v1/subscriptions/plans', { key: m.liveKey, body: { name: 'Plano', amountCents: 4990, interval: 'MONTHLY', paymentMethods: ['PIX_AUTOMATICO'] } });
    const res = await call(app(), 'POST', '/api/v1/subscriptions', {
      key: m.liveKey,
      body: { planId: plan.body.plan.id, client: { name: 'Ana', email: 'ana.rej@example.com', document: cpf() }, paymentMethod: 'PIX_AUTOMATICO' },
    });
    await env.psp.answerRec(res.body.subscription.pixAutomatico.recurrenceId, 'REJEITADA');
    const ended = await get(res.body.subscription.id);
    assert.equal(ended.status, 'EXPIRED');
    assert.equal(ended.cancelReason, 'PIX_AUTOMATICO_REJECTED');
  });
});

test('a devolução NAO_REALIZADO: the refund FAILED (NAO_REALIZADO), the PSP\'s motivo logged for the person returning the money', async () => {
  const res = await call(app(), 'POST', '/api/v1/transactions', {
    key: m.liveKey,
    body: { amountCents: 1500, paymentMethod: 'PIX', clientName: 'Maria', clientEmail: 'maria@example.com', clientDocument: cpf(), product: 'Livro' },
  });
  const tx = res.body.transaction;
  await env.psp.pay(txidFor(tx.id));
  assert.equal((await call(app(), 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: m.liveKey })).status, 200);
  await env.psp.finishRefunds('NAO_REALIZADO', { mode: 'none' });
  await syncRefunds(pixContext(app()), new Date(Date.now() + 60_000));
  const refund = await app().deps.db.selectFrom('refunds').selectAll().where('transaction_id', '=', tx.id).executeTakeFirstOrThrow();
  assert.equal(refund.status, 'FAILED');
  assert.equal(refund.failure_reason, 'NAO_REALIZADO');
  const motivo = [...env.psp.pix.values()].find((p) => p.txid === txidFor(tx.id))!.devolucoes[0].motivo!;
  assert.ok(motivo);
  assert.ok(env.ctx.logs.some((l) => l.includes(refund.id) && l.includes(motivo)), 'the motivo is in the log');
});
