// Refunds at Cielo are voids (PUT /1/sales/{PaymentId}/void?amount=), partial ones too, and a void
// carries no id of ours: Cielo cannot be asked "did refund X happen". What it does keep is the
// sale's running Payment.VoidedAmount. So a refund whose answer was lost is judged by amounts: what
// Cielo voided, less what our refunds it answered (SUCCEEDED) add up to, is what the unanswered ones
// of that payment made. All of them, or none, is certain; anything between is ambiguous and left to
// be asked again (and logged for a person) rather than guessed: a refund is never sent twice.
import type { Db } from '../../db/index.ts';
import type { RefundRequest, RefundResult } from '../connector.ts';
import { saleOf, type SaleParts } from './sale.ts';
import { centsOf, CIELO_PROVIDER } from './mapping.ts';

/** A void's answer as a refund result: ReasonCode 0 is Cielo's "Successful". */
export function voidResult(answer: { ReasonCode?: unknown; ReturnCode?: unknown; ReturnMessage?: unknown; ReasonMessage?: unknown } | null, paymentId: string): RefundResult {
  if (answer?.ReasonCode === 0) return { ok: true, reference: paymentId };
  const why = String(answer?.ReturnMessage ?? answer?.ReasonMessage ?? 'the void was not made').slice(0, 120);
  return { ok: false, reason: 'REFUND_REFUSED', message: `Cielo ${String(answer?.ReturnCode ?? answer?.ReasonCode ?? '?')}: ${why}` };
}

/** This payment's refunds at Cielo: the sum answered, and those never answered (oldest first). */
async function ours(db: Db, transactionId: string) {
  const rows = await db.selectFrom('refunds').select(['id', 'amount_cents', 'status', 'provider_ref']).where('transaction_id', '=', transactionId).where('provider', '=', CIELO_PROVIDER).orderBy('id').execute();
  const answered = rows.filter((r) => r.status === 'SUCCEEDED').reduce((s, r) => s + r.amount_cents, 0);
  const unanswered = rows.filter((r) => r.status === 'PENDING' && r.provider_ref === null);
  return { rows, answered, unanswered };
}

/**
 * Whether the refund `req` was made at Cielo: a refund result when it was, null when it was not
 * (it may be sent again), and an Error thrown when the amounts cannot tell (asked again later).
 */
export async function findRefund(parts: SaleParts & { db: Db }, req: RefundRequest): Promise<RefundResult | null> {
  if (!req.paymentReference) return null;
  const sale = await saleOf(parts, req.paymentReference);
  if (!sale?.Payment) return null;
  const voided = centsOf(sale.Payment.VoidedAmount) ?? 0;
  const { rows, answered, unanswered } = await ours(parts.db, req.transactionId);
  const unexplained = voided - answered;
  if (!unanswered.some((r) => r.id === req.refundId)) {
    // Already answered: Cielo made it when it said so.
    return rows.find((r) => r.id === req.refundId)?.status === 'SUCCEEDED' ? { ok: true, reference: req.paymentReference } : null;
  }
  if (unexplained <= 0) return null;
  const pending = unanswered.reduce((s, r) => s + r.amount_cents, 0);
  if (unexplained === pending || (unanswered.length === 1 && unexplained === req.amountCents)) return { ok: true, reference: req.paymentReference };
  parts.log.error({ refundId: req.refundId, transactionId: req.transactionId, cielo: { voided, answered, pending } }, 'cielo: the voided amount does not tell which unanswered refunds were made; a person must check the sale at Cielo');
  throw new Error(`cielo: refunds of ${req.transactionId} are ambiguous (voided ${voided}, answered ${answered}, unanswered ${pending})`);
}

/** Every unanswered refund of a payment, each with its result when Cielo made it (a notification's follow-up). */
export async function madeRefunds(parts: SaleParts & { db: Db }, transactionId: string, paymentId: string): Promise<Array<{ refundId: string; result: RefundResult }>> {
  const { unanswered } = await ours(parts.db, transactionId);
  const out: Array<{ refundId: string; result: RefundResult }> = [];
  for (const r of unanswered) {
    const result = await findRefund(parts, { refundId: r.id, transactionId, paymentMethod: 'CARD', paymentReference: paymentId, amountCents: r.amount_cents });
    if (result) out.push({ refundId: r.id, result });
  }
  return out;
}
