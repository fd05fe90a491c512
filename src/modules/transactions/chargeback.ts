// Chargebacks: a cardholder disputed a card payment and the acquirer took the money back. What a
// connector reports (ChargebackReport: OPENED, WON, LOST, by the acquirer's case id) is applied here,
// each report in ONE database transaction on the locked transaction row:
//   OPENED  PAID | PARTIALLY_REFUNDED -> CHARGEBACK; the merchant is debited like a refund of the
//           disputed amount (states.ts bookRefund: the fee's share returned, unsettled instalments
//           first, affiliate commissions and referral rewards undone), except that the available
//           balance may go negative: the acquirer took the money whatever the merchant holds, and
//           later sales pay the debt off (withdrawals are refused meanwhile). transaction.chargeback.
//   WON     the debit returned to the available balance (the fee charged again), the status back to
//           PAID (PARTIALLY_REFUNDED if refunds stand). transaction.chargeback_won.
//   LOST    final, nothing moves (the money left at OPENED). transaction.chargeback_lost.
// A report seen before (same connector and case id, same or earlier step) changes nothing.
import type { Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Chargeback, Transaction } from '../../db/types.ts';
import { badRequest, notFound, validation } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import type { ChargebackReport } from '../../payments/connector.ts';
import type { EventsByMerchant, EventType } from '../events/service.ts';
import { lockTransaction } from './changed-rows.ts';
import { bookRefund, canMove, feeReturned, restoredPostings } from './states.ts';
import type { TransactionDeps } from './types.ts';
import { chargebackView, eventData } from './view.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Applies a connector's chargeback report to one of its card payments. `scope`: only a transaction
 * of this merchant and environment (the sandbox's simulation); without it, the transaction's own.
 * Returns the transaction as the report left it.
 */
export async function applyChargeback(deps: TransactionDeps, connector: string, report: ChargebackReport, scope?: Scope): Promise<Transaction> {
  checkReport(report);
  const owner = await deps.db.selectFrom('transactions').select(['user_id', 'livemode', 'provider']).where('id', '=', report.transactionId).executeTakeFirst();
  if (!owner || owner.provider !== connector || (scope && (owner.user_id !== scope.userId || owner.livemode !== scope.livemode))) throw notFound('Transaction');
  const own: Scope = { userId: owner.user_id, livemode: owner.livemode };
  return deps.changes.run(own, async (trx) => {
    const tx = await lockTransaction(trx, own, report.transactionId);
    if (!tx) throw notFound('Transaction');
    const now = new Date();
    let found = await trx.selectFrom('chargebacks').selectAll().where('provider', '=', connector).where('case_id', '=', report.caseId).forUpdate().executeTakeFirst();
    // A case id names one case of one payment: a report pairing it with another payment moves nothing.
    if (found && found.transaction_id !== tx.id) throw validation('caseId', 'belongs to another transaction');
    let current = tx;
    // An outcome whose opening was never reported (lost, or out of order) opens the case first.
    if (!found) ({ tx: current, chargeback: found } = await openChargeback(deps, trx, tx, connector, report, now));
    if (report.status === 'OPENED' || found.status === 'WON' || found.status === 'LOST') return current;
    return closeChargeback(deps, trx, current, found, report.status, now);
  });
}

function checkReport(r: ChargebackReport): void {
  if (!UUID.test(r.transactionId)) throw notFound('Transaction');
  if (!r.caseId || r.caseId.length > 100) throw validation('caseId', 'the case id is 1-100 characters');
  if (r.amountCents !== undefined && (!Number.isSafeInteger(r.amountCents) || r.amountCents <= 0)) throw validation('amountCents', 'a positive whole number of cents');
}

/** OPENED: the debit, booked like a refund that may overdraw, the case recorded, status CHARGEBACK. */
async function openChargeback(deps: TransactionDeps, trx: Trx, tx: Transaction, connector: string, report: ChargebackReport, now: Date) {
  if (tx.payment_method !== 'CARD' || !canMove(tx.status, 'CHARGEBACK')) {
    throw badRequest('INVALID_STATE_TRANSITION', `A chargeback cannot open on a ${tx.status} ${tx.payment_method} transaction`, [
      { field: 'status', message: 'only PAID or PARTIALLY_REFUNDED card transactions can be charged back' },
    ]);
  }
  // Never more than what is left of the payment: a refund made before took its part already.
  const left = tx.charged_cents - tx.refunded_cents;
  const amount = Math.min(report.amountCents ?? left, left);
  await bookRefund(deps, trx, tx, amount, now, { kind: 'chargeback', description: `Chargeback of ${tx.display_id}`, overdraw: true });
  const chargeback = await trx
    .insertInto('chargebacks')
    .values({
      id: uuidv7(now.getTime()),
      user_id: tx.user_id,
      livemode: tx.livemode,
      transaction_id: tx.id,
      provider: connector,
      case_id: report.caseId,
      status: 'OPEN',
      response: null,
      amount_cents: amount,
      fee_returned_cents: feeReturned(tx, amount),
      reason_code: report.reasonCode?.slice(0, 50) ?? null,
      reason: report.reason?.slice(0, 500) ?? null,
      evidence_text: null,
      evidence_files: null,
      respond_by: report.respondBy ?? null,
      opened_at: now,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const updated = await setStatus(deps, trx, tx, 'CHARGEBACK', now);
  await record(deps, trx, tx, updated, chargeback, ['transaction.updated', 'transaction.chargeback']);
  return { tx: updated, chargeback };
}

/**
 * WON or LOST: the case closes. Won: the debit returns (the merchant's part to available, the fee
 * charged again, the split recipients' shares given back) and the sale stands again; affiliate
 * commissions and referral rewards undone at the opening stay undone (as when a refund is not made).
 */
export async function closeChargeback(deps: TransactionDeps, trx: Trx, tx: Transaction, cb: Chargeback, outcome: 'WON' | 'LOST', now: Date, set: Partial<Pick<Chargeback, 'response' | 'responded_at'>> = {}): Promise<Transaction> {
  const closed = await trx
    .updateTable('chargebacks')
    .set({ ...set, status: outcome, closed_at: now, updated_at: now })
    .where('id', '=', cb.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (outcome === 'LOST') {
    await record(deps, trx, tx, tx, closed, ['transaction.chargeback_lost']);
    return tx;
  }
  const scope: Scope = { userId: tx.user_id, livemode: tx.livemode };
  const restored: EventsByMerchant = new Map();
  await deps.ledger.post(trx, scope, {
    kind: 'chargeback_reversal',
    referenceType: 'transaction',
    referenceId: tx.id,
    description: `Chargeback of ${tx.display_id} won: funds returned`,
    postings: [
      { account: 'external', amount: -cb.amount_cents },
      { account: 'fees', amount: cb.fee_returned_cents },
      { account: 'available', amount: cb.amount_cents - cb.fee_returned_cents },
      ...(await restoredPostings(deps, trx, tx, now, restored)),
    ],
  });
  await deps.events.recordAll(trx, scope.livemode, restored);
  const updated = await setStatus(deps, trx, tx, tx.refunded_cents === 0 ? 'PAID' : 'PARTIALLY_REFUNDED', now);
  await record(deps, trx, tx, updated, closed, ['transaction.updated', 'transaction.chargeback_won']);
  return updated;
}

async function setStatus(deps: TransactionDeps, trx: Trx, tx: Transaction, status: Transaction['status'], now: Date): Promise<Transaction> {
  const updated = await trx.updateTable('transactions').set({ status, updated_at: now }).where('user_id', '=', tx.user_id).where('id', '=', tx.id).returningAll().executeTakeFirstOrThrow();
  for (const hook of deps.hooks) await hook.afterChange?.(trx, tx, updated, now);
  return updated;
}

/** The events of a step, each with the transaction and its case (`chargeback`). */
async function record(deps: Pick<TransactionDeps, 'events'>, trx: Trx, before: Transaction, after: Transaction, cb: Chargeback, types: EventType[]): Promise<void> {
  const data = { ...eventData(after, before.status), chargeback: chargebackView(cb) };
  await deps.events.record(
    trx,
    { userId: after.user_id, livemode: after.livemode },
    types.map((type) => ({ type, data })),
  );
}

/** The transaction's latest chargeback case (what its body shows), if it ever had one. */
export function latestChargeback(db: Trx | TransactionDeps['db'], scope: Scope, transactionId: string, lock = false): Promise<Chargeback | undefined> {
  const q = db
    .selectFrom('chargebacks')
    .selectAll()
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1);
  return (lock ? q.forUpdate() : q).executeTakeFirst();
}
