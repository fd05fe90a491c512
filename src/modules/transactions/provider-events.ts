// Status changes: one applied by the core itself (a card's outcome, a cancellation), and those a
// connector reports (a notification, a lookup, a sandbox simulation), each under the transaction's
// row lock with the state machine, hooks, ledger and events of states.ts.
import type { Trx } from '../../db/index.ts';
import type { Transaction } from '../../db/types.ts';
import { AppError, forbidden, notFound, validation } from '../../http/errors.ts';
import type { Answer } from '../../http/idempotency.ts';
import type { Scope } from '../../http/scope.ts';
import { spDate } from '../../payments/calendar.ts';
import type { ProviderEvent } from '../../payments/connector.ts';
import { paymentFee } from '../../payments/fees.ts';
import { explainsLatePayment } from '../../payments/late-payment.ts';
import { lockTransaction } from './changed-rows.ts';
import { applyChange, type Change } from './states.ts';
import type { TransactionDeps } from './types.ts';

/**
 * Locks the transaction and applies one status change (state machine, hooks, ledger, events);
 * `also`: more work of the caller's to commit with it, given the transaction as changed.
 */
export function changeStatus(deps: TransactionDeps, scope: Scope, id: string, change: Change, providerRef: string | null = null, also?: (trx: Trx, applied: Transaction) => Promise<void>): Promise<Transaction> {
  return deps.changes.run(scope, async (trx) => {
    const tx = await lockTransaction(trx, scope, id);
    if (!tx) throw notFound('Transaction');
    const applied = await applyChange(deps, trx, tx, change, new Date(), providerRef);
    await also?.(trx, applied);
    return applied;
  }, id);
}

/**
 * Applies what a provider reported (a notification, a poll, a sandbox simulation) to transactions
 * of this scope. An event for a transaction the provider does not hold is refused. A PAID that
 * carries the provider's payment reference stores it: the same reference again changes nothing,
 * another one on a paid transaction is a second payment (409, for a person to refund), and a PAID
 * whose reported amount differs from the amount charged is refused (409), unless it is a PIX with
 * a due date paid late for what its terms allow that day: the payment is then booked for what was
 * paid (fine and interest included), with the fee on that.
 */
export async function applyProviderEvents(deps: TransactionDeps, scope: Scope, connector: string, events: ProviderEvent[], answer?: Answer<Transaction>): Promise<Transaction[]> {
  const out: Transaction[] = [];
  for (const e of events) {
    const reported: Change = e.outcome === 'FAILED' ? { to: 'FAILED', reason: e.reason ?? 'PROVIDER_FAILURE' } : e.outcome === 'PAID' ? { to: 'PAID', paidWith: e.paidWith, settlesAt: e.settlesAt } : { to: e.outcome };
    const applied = await deps.changes.run(scope, async (trx) => {
      const tx = await applyEvent(deps, trx, scope, connector, e, reported);
      await answer?.(trx, tx);
      return tx;
    }, e.transactionId);
    out.push(applied);
  }
  return out;
}

/** One provider event on its locked transaction, in the change's transaction. */
async function applyEvent(deps: TransactionDeps, trx: Trx, scope: Scope, connector: string, e: ProviderEvent, reported: Change): Promise<Transaction> {
  let change = reported;
  const tx = await lockTransaction(trx, scope, e.transactionId);
  if (!tx || tx.provider !== connector) throw notFound('Transaction');
  if (e.outcome === 'PAID' && e.reference !== undefined) {
    if (tx.provider_ref === e.reference) return tx;
    if (tx.provider_ref !== null) throw new AppError(409, `Transaction ${tx.id} is already paid by another payment (${tx.provider_ref}); ${e.reference} must be returned to the payer`);
  }
  if (e.outcome === 'PAID' && e.amountCents !== undefined && e.amountCents !== tx.charged_cents) {
    const late = tx.late_payment && tx.due_date && e.paidAt && explainsLatePayment(tx.charged_cents, tx.late_payment, tx.due_date, spDate(e.paidAt), e.amountCents);
    if (!late) throw new AppError(409, `The provider reports ${e.amountCents} cents paid for transaction ${tx.id}, which charged ${tx.charged_cents}`);
    change = { to: 'PAID', paidWith: e.paidWith, settlesAt: e.settlesAt, settled: { chargedCents: e.amountCents, feeCents: paymentFee(await deps.fees.of(tx.user_id, trx), tx.payment_method, e.amountCents) } };
  }
  return applyChange(deps, trx, tx, change, new Date(), e.outcome === 'PAID' ? (e.reference ?? null) : null);
}

/** Sandbox: the merchant plays the provider and reports an outcome (development keys only). */
export async function simulate(deps: TransactionDeps, scope: Scope, id: string, outcome: 'PAID' | 'FAILED' | 'EXPIRED', paidWith?: 'BOLETO' | 'PIX', answer?: Answer<Transaction>): Promise<Transaction> {
  if (scope.livemode) throw forbidden('Simulation is only available with development (test) keys');
  if (paidWith && (await lookupMethod(deps, scope, id)) !== 'BOLETO') throw validation('paidWith', 'is only for boletos (paid by barcode or by their Pix code)');
  const [applied] = await applyProviderEvents(deps, scope, deps.connectors.sandbox.name, [{ transactionId: id, outcome, ...(outcome === 'FAILED' ? { reason: 'SIMULATED_FAILURE' } : {}), ...(paidWith ? { paidWith } : {}) }], answer);
  return applied;
}

/** The payment method of this scope's transaction `id` (404 when it is not this scope's). */
async function lookupMethod(deps: TransactionDeps, scope: Scope, id: string): Promise<string> {
  const row = await deps.db.selectFrom('transactions').select('payment_method').where('id', '=', id).where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).executeTakeFirst();
  if (!row) throw notFound('Transaction');
  return row.payment_method;
}
