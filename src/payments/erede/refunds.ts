// e.Rede's refunds: an answer read as Cofre's RefundResult, and the sweep that follows refunds e.Rede
// only received (360, decided later: Done or Denied) until they are decided.
import type { ConnectorCore, RefundResult } from '../connector.ts';
import type { Answer } from './client.ts';
import { code, EREDE_PROVIDER, message, REFUND_DONE, REFUND_RECEIVED } from './mapping.ts';

/** A refund as e.Rede lists it (GET /v2/transactions/{tid}/refunds). */
export interface EredeRefund {
  refundId: string;
  amount: number;
  status?: string;
  refundDateTime?: string;
}

/** A refund request's answer: 359 made, 360 received (pending); any other code refused. */
export function refundAnswer(answer: Answer): RefundResult {
  const c = code(answer.body);
  const id = typeof answer.body?.refundId === 'string' ? answer.body.refundId : null;
  if ((c === REFUND_DONE || c === REFUND_RECEIVED) && id) return { ok: true, reference: id, ...(c === REFUND_RECEIVED ? { pending: true } : {}) };
  return { ok: false, reason: `EREDE_${c || answer.status}`, message: message(answer.body) };
}

/** A listed refund as a RefundResult (Processing: still pending). */
export function refundOf(r: EredeRefund): RefundResult {
  if (r.status === 'Denied') return { ok: false, reason: 'EREDE_DENIED', message: 'e.Rede denied the refund' };
  return { ok: true, reference: r.refundId, ...(r.status === 'Done' ? {} : { pending: true }) };
}

export interface RefundFollow {
  core: ConnectorCore;
  list(tid: string): Promise<EredeRefund[]>;
}

/** Pending e.Rede refunds with e.Rede's refundId: asked again, and recorded once decided. Returns how many were asked. */
export async function followRefunds(deps: RefundFollow, now: Date, batch: number): Promise<number> {
  const pending = await deps.core.db
    .selectFrom('refunds as r')
    .innerJoin('transactions as t', 't.id', 'r.transaction_id')
    .select(['r.id', 'r.transaction_id', 'r.provider_ref', 't.provider_ref as tid'])
    .where('r.provider', '=', EREDE_PROVIDER)
    .where('r.status', '=', 'PENDING')
    .where('r.provider_ref', 'is not', null)
    .where('r.updated_at', '<', new Date(now.getTime() - 60_000))
    .orderBy('r.updated_at')
    .limit(batch)
    .execute();
  for (const r of pending) {
    try {
      const made = r.tid ? (await deps.list(r.tid)).find((x) => x.refundId === r.provider_ref) : undefined;
      const result = made ? refundOf(made) : null;
      if (result && !(result.ok && result.pending)) await deps.core.recordRefund(r.id, r.transaction_id, result);
      else await deps.core.db.updateTable('refunds').set({ updated_at: now }).where('id', '=', r.id).execute();
    } catch (err) {
      deps.core.log.warn({ refundId: r.id, erede: err instanceof Error ? err.message : String(err) }, 'erede: could not ask about a pending refund; asked again later');
    }
  }
  return pending.length;
}
