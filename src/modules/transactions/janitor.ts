// The janitor: operations a connector may have made whose outcome was never recorded here (the call
// timed out, the process died between the provider's answer and the write) are asked about by our
// reference after JANITOR_GRACE_SECONDS, and settled once (ledger, events, webhooks): a card charge
// the connector made is applied, never charged again; a refund it never received is sent again
// under the same id. Payouts have theirs in withdrawals (followPayouts). Safe on many processes:
// every change is applied under the row's lock, to a row still PENDING.
import { refunderOf } from './pix-refund.ts';
import type { Transaction } from '../../db/types.ts';
import { AppError } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS } from '../../payments/calendar.ts';
import type { ChargeLookup } from '../../payments/connector.ts';
import { settleAttempts, type AttemptEnd } from './attempts.ts';
import { recheckFailedOver } from './late-sales.ts';
import { lockTransaction } from './changed-rows.ts';
import { stuckCardCharges, stuckRefunds, touch } from './queries.ts';
import { recordRefund, refundRequest } from './refund.ts';
import { applyChange, type Change } from './states.ts';
import type { TransactionDeps } from './types.ts';

/** What a card charge's lookup means for its transaction; null: nothing to apply yet (still processing). */
function changeFor(deps: TransactionDeps, found: ChargeLookup | null, now: Date): Change | null {
  if (!found) return { to: 'FAILED', reason: 'PROCESSING_ERROR' };
  if (found.status === 'PAID') return { to: 'PAID' };
  if (found.status === 'AUTHORIZED') return { to: 'AUTHORIZED', until: new Date(now.getTime() + deps.config.card.authorizationTtlDays * DAY_MS) };
  if (found.status === 'FAILED') return { to: 'FAILED', reason: found.reason };
  if (found.status === 'CANCELLED') return { to: 'CANCELLED' };
  return null;
}

/** What the janitor learnt, for the tries still PENDING at the connector (a crash mid-call). */
function attemptEnd(found: ChargeLookup | null): AttemptEnd {
  const reason = 'settled later from the connector by reference';
  if (found?.status === 'PAID' || found?.status === 'AUTHORIZED') return { outcome: 'APPROVED', reason };
  if (found?.status === 'FAILED') return { outcome: 'DECLINED', reason: found.reason };
  return { outcome: 'UNAVAILABLE', reason: found ? `${reason}: ${found.status}` : 'no answer, and the connector made no charge' };
}

/** Applies `change` to a transaction still PENDING (another process may have settled it meanwhile). */
async function settlePending(deps: TransactionDeps, tx: Transaction, change: Change, reference: string | null, attempt: AttemptEnd): Promise<boolean> {
  const scope: Scope = { userId: tx.user_id, livemode: tx.livemode };
  return deps.changes.run(scope, async (trx) => {
    const locked = await lockTransaction(trx, scope, tx.id);
    if (locked?.status !== 'PENDING') return false;
    await applyChange(deps, trx, locked, change, new Date(), reference);
    await settleAttempts(trx, tx.id, tx.provider, attempt);
    return true;
  });
}

/**
 * Card charges left PENDING with their card claimed: the connector is asked by the transaction id.
 * Made there: applied as its answer would have been. None made: FAILED (the card data is gone, so it
 * cannot be charged; the customer tries again), except a subscription's charge, which its engine
 * re-drives with the stored card under the same reference.
 */
export async function settleUnknownCharges(deps: TransactionDeps, now = new Date(), batch = 50): Promise<number> {
  const stuck = await stuckCardCharges(deps.db, new Date(now.getTime() - deps.config.janitorGraceSeconds * 1000), batch);
  for (const tx of stuck) {
    try {
      const found = await deps.connectors.of(tx.provider, 'CARD').findCharge(tx.id, 'CARD');
      const change = found || !tx.subscription_cycle_id ? changeFor(deps, found, now) : null;
      if (!change) {
        await touch(deps.db, 'transactions', tx.id, now);
        continue;
      }
      const reference = found?.status === 'PAID' || found?.status === 'AUTHORIZED' ? found.reference : null;
      if (await settlePending(deps, tx, change, reference, attemptEnd(found))) {
        deps.log.warn({ transactionId: tx.id, connector: tx.provider, outcome: change.to }, 'janitor: a card charge whose outcome was never recorded is settled from the provider');
      }
    } catch (err) {
      deps.log.error({ err: err instanceof AppError ? err.message : err, transactionId: tx.id }, 'janitor: could not settle a card charge; asked again later');
      await touch(deps.db, 'transactions', tx.id, now).catch(() => {});
    }
  }
  // Connectors a failover left behind are asked again for a sale they made late (late-sales.ts).
  return stuck.length + (await recheckFailedOver(deps, now, batch));
}

/**
 * Refunds no connector answered: asked by the refund id; one the connector never received is sent
 * again under the same id (its idempotency key), and what it answers is recorded.
 */
export async function settleUnknownRefunds(deps: TransactionDeps, now = new Date(), batch = 50): Promise<number> {
  const stuck = await stuckRefunds(deps.db, new Date(now.getTime() - deps.config.janitorGraceSeconds * 1000), batch);
  for (const r of stuck) {
    try {
      const connector = refunderOf(deps, r);
      const req = refundRequest(r.id, { id: r.transaction_id, payment_method: r.payment_method, provider_ref: r.provider_ref }, r.amount_cents);
      const result = (await connector.findRefund(req)) ?? (await connector.refund(req));
      await recordRefund(deps, r.id, r.transaction_id, result);
    } catch (err) {
      deps.log.error({ err: err instanceof AppError ? err.message : err, refundId: r.id }, 'janitor: could not settle a refund; asked again later');
      await touch(deps.db, 'refunds', r.id, now).catch(() => {});
    }
  }
  return stuck.length;
}
