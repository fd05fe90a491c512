// Refunds: the money moves and a PENDING refund row is written in one commit, then the connector
// that made the payment is asked to send it back (the refund id its idempotency key); what it
// answers is recorded, and a refund it did not make is undone in one commit. A refund whose answer
// never came is settled by the janitor (janitor.ts).
import type { Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { PixKeyType, Transaction } from '../../db/types.ts';
import { badRequest, notFound, validation } from '../../http/errors.ts';
import type { Answer } from '../../http/idempotency.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS } from '../../payments/calendar.ts';
import type { RefundRequest, RefundResult } from '../../payments/connector.ts';
import { recordAudit, type Actor } from '../audit/service.ts';
import { collectEvents, type EventsByMerchant } from '../events/service.ts';
import { lockTransaction } from './changed-rows.ts';
import { failRefund, insertRefund, markRefundAnswered, refundScope, setRefunded } from './queries.ts';
import { pixDestination, refunderOf, type RefundRoute } from './pix-refund.ts';
import { applyChange, feeReturned, restoredPostings } from './states.ts';
import type { TransactionDeps } from './types.ts';
import { eventData, lineCents, refundView } from './view.ts';

/** A refund's request: how much (omitted: all that is left) and, for a payment refunded by Pix, the payer's key. */
export interface RefundInput {
  amountCents?: number;
  items?: number[];
  pixKey?: string;
  pixKeyType?: PixKeyType;
}

/** What a connector is asked to refund (or looked up by), from the refund and its payment. */
export function refundRequest(refundId: string, tx: Pick<Transaction, 'id' | 'payment_method' | 'provider_ref'>, amountCents: number): RefundRequest {
  return { refundId, transactionId: tx.id, paymentMethod: tx.payment_method, paymentReference: tx.provider_ref, amountCents };
}

/**
 * Refunds a paid transaction, fully or in part. The money moves and a refund row (PENDING) is
 * written in one database transaction; then the payment's provider is asked to send the money back
 * with the refund id as its idempotency key, and the row records what it answered.
 */
export async function refundTransaction(deps: TransactionDeps, scope: Scope, id: string, body: RefundInput, actor: Actor, answer?: Answer<Transaction>): Promise<Transaction> {
  const amountCents = body.amountCents;
  const { tx, refundId, amount, pix } = await deps.changes.run(scope, async (trx) => {
    const locked = await lockTransaction(trx, scope, id);
    if (!locked) throw notFound('Transaction');
    const pix = pixDestination(deps, locked, body);
    if (locked.status !== 'PAID' && locked.status !== 'PARTIALLY_REFUNDED') {
      throw badRequest('INVALID_STATE_TRANSITION', `A ${locked.status} transaction cannot be refunded`, [{ field: 'status', message: 'only PAID or PARTIALLY_REFUNDED transactions can be refunded' }]);
    }
    const windowDays = deps.connectors.find(locked.provider)?.refundWindowDays;
    if (windowDays !== undefined && locked.paid_at && Date.now() - locked.paid_at.getTime() > windowDays * DAY_MS) {
      throw badRequest('REFUND_WINDOW_CLOSED', `This payment can no longer be refunded through the provider: refunds are accepted up to ${windowDays} days after payment`, [{ field: 'status', message: `paid more than ${windowDays} days ago` }]);
    }
    const refundable = locked.charged_cents - locked.refunded_cents;
    const amount = body.items ? await itemsAmount(trx, locked, body) : (amountCents ?? refundable);
    if (amount > refundable) {
      throw badRequest('REFUND_EXCEEDS_PAID', 'Refund exceeds what is left to refund', [{ field: 'amountCents', message: `at most ${refundable} cents can still be refunded` }]);
    }
    const refunded = await applyChange(deps, trx, locked, { to: amount === refundable ? 'REFUNDED' : 'PARTIALLY_REFUNDED', amountCents: amount });
    const now = new Date();
    const refundId = uuidv7(now.getTime());
    await insertRefund(trx, { id: refundId, scope, transaction: locked, amountCents: amount, feeReturnedCents: feeReturned(locked, amount), now, pix, items: body.items });
    const sale = (t: Transaction) => ({ transactionId: t.id, displayId: t.display_id, status: t.status, chargedCents: t.charged_cents, refundedCents: t.refunded_cents });
    const entry = { userId: scope.userId, livemode: scope.livemode, action: 'refund.created', objectType: 'refund', objectId: refundId };
    await recordAudit(trx, actor, { ...entry, before: sale(locked), after: { ...sale(refunded), refund: { id: refundId, amountCents: amount, status: 'PENDING' } } });
    await answer?.(trx, refunded);
    return { tx: refunded, refundId, amount, pix };
  });
  // A provider that refuses at once undoes the refund: the answer is the transaction as that left it.
  const route = { ...tx, pix_key_type: pix?.pixKeyType ?? null, pix_key: pix?.pixKey ?? null, payout_provider: pix?.payoutProvider ?? null };
  return (await sendRefund(deps, route, refundId, amount)) ?? tx;
}

/**
 * Asks the payment's provider to return a recorded refund and records its answer on the refund row;
 * returns the transaction when the provider refused it (the refund undone), else null.
 */
async function sendRefund(deps: TransactionDeps, tx: Transaction & RefundRoute, refundId: string, amountCents: number): Promise<Transaction | null> {
  try {
    const result = await refunderOf(deps, tx).refund(refundRequest(refundId, tx, amountCents));
    return await recordRefund(deps, refundId, tx.id, result, { userId: tx.user_id, livemode: tx.livemode });
  } catch (err) {
    deps.log.error({ err, refundId, transactionId: tx.id }, 'refund: no answer from the provider; the refund stays PENDING until the janitor asks it');
    return null;
  }
}

/**
 * Records a provider's answer about a refund on its row (still PENDING: a pending answer keeps it
 * so, with the provider's reference, until the provider reports the outcome). A refund the
 * provider did not make is FAILED and undone in the same commit: the money is back in the
 * merchant's available balance, the transaction's refunded amount and status as before it, and
 * the merchant is told (transaction.refund_failed) and may refund again.
 */
export async function recordRefund(deps: Pick<TransactionDeps, 'db' | 'log' | 'events' | 'ledger' | 'changes' | 'hooks'>, refundId: string, transactionId: string, result: RefundResult, known?: Scope): Promise<Transaction | null> {
  // A connector's report names only the refund: its merchant is looked up by the refund's id.
  const scope = known ?? (await refundScope(deps.db, refundId));
  if (!scope) return null;
  if (result.ok) {
    await markRefundAnswered(deps.db, scope, refundId, result.pending ? 'PENDING' : 'SUCCEEDED', result.reference);
    return null;
  }
  const undone = await deps.changes.run(scope, async (trx) => {
    // The transaction first, as every refund locks it: two answers about one refund take turns.
    const tx = await lockTransaction(trx, scope, transactionId);
    const failed = tx && (await failRefund(trx, scope, refundId, result.reason));
    if (!tx || !failed) return null;
    const refundedCents = tx.refunded_cents - failed.amount_cents;
    // The fee comes back as refunds return it (in proportion to what stays refunded), so that the
    // refunds that stand return exactly the sale's fee, whatever order they were made and undone in.
    const fee = feeReturned({ ...tx, refunded_cents: refundedCents }, failed.amount_cents);
    // A chargeback opened meanwhile keeps its status (a won case restores PAID or PARTIALLY_REFUNDED then)
    // and the shares it took back: they return with the case's money if it is won.
    const status = tx.status === 'CHARGEBACK' ? tx.status : refundedCents === 0 ? ('PAID' as const) : ('PARTIALLY_REFUNDED' as const);
    const collected: EventsByMerchant = new Map();
    const restored = tx.status === 'CHARGEBACK' ? [] : await restoredPostings(deps, trx, { ...tx, refunded_cents: refundedCents }, new Date(), collected);
    await deps.ledger.postAll(trx, scope, [
      {
        kind: 'refund_reversal',
        referenceType: 'transaction',
        referenceId: tx.id,
        description: `Refund of ${tx.display_id} not made: funds returned`,
        postings: [
          { account: 'external', amount: -failed.amount_cents },
          { account: 'fees', amount: fee },
          { account: 'available', amount: failed.amount_cents - fee },
          ...restored,
        ],
      },
    ], collected);
    const updated = await setRefunded(trx, tx, refundedCents, status);
    const data = eventData(updated, tx.status);
    collectEvents(collected, scope.userId, [...(status === tx.status ? [] : [{ type: 'transaction.updated' as const, data }]), { type: 'transaction.refund_failed', data: { ...data, refund: refundView(failed) } }]);
    await deps.events.recordAll(trx, scope.livemode, collected);
    return updated;
  });
  if (undone) deps.log.warn({ refundId, transactionId, reason: result.reason, detail: result.message }, 'refund not made by the provider: the money is back in the merchant\'s available balance');
  return undone;
}


/** What refunding these order lines gives back: their totals; each line once (FAILED refunds gave theirs back). */
async function itemsAmount(trx: Trx, tx: Transaction, body: RefundInput): Promise<number> {
  const items = body.items ?? [];
  if (body.amountCents !== undefined) throw validation('items', 'send amountCents or items, not both');
  if (!tx.items) throw validation('items', 'this transaction has no order lines: refund by amountCents');
  const done = await trx.selectFrom('refunds').select('items').where('transaction_id', '=', tx.id).where('status', '!=', 'FAILED').where('items', 'is not', null).execute();
  const refunded = new Set(done.flatMap((r) => r.items ?? []));
  let amount = 0;
  items.forEach((i, n) => {
    const line = tx.items?.[i];
    if (!line) throw validation(`items.${n}`, `is not a line of this transaction (it has ${tx.items?.length} lines, from 0)`);
    if (refunded.has(i)) throw validation(`items.${n}`, 'is refunded already');
    amount += lineCents(line);
  });
  return amount;
}
