// The API Pix connector's side of the core: a confirmed Pix applied to its transaction (once per
// end-to-end id), a devolução's or an authorisation's state brought up to date, a recurring charge
// applied. Every change goes through the core port (ConnectorCore): nothing here writes a table.
import type { Transaction } from '../../db/types.ts';
import { AppError } from '../../http/errors.ts';
import type { ConnectorCore, ConnectorLog, CancelRequest, ProviderEvent, ProviderResult, RefundRequest, RefundResult } from '../connector.ts';
import { debitFailure, FINAL_DEBIT_REASONS } from '../pix-automatico.ts';
import { PixApiError } from './client.ts';
import { devolucaoIdFor, PIX_API_PROVIDER, transactionIdOf, type ChargeState, type ConfirmedPix, type DevolucaoStatus, type Mandate, type RecurringCharge } from './mapping.ts';

/** What the notifications and sweeps ask of the PSP (the connector). */
export interface PixApiPsp {
  readonly account: unknown;
  confirmPix(e2eid: string): Promise<ConfirmedPix | null>;
  listSince(from: Date, to: Date): Promise<ConfirmedPix[]>;
  chargeState(transactionId: string): Promise<ChargeState>;
  cancelCharge(req: CancelRequest): Promise<ProviderResult>;
  dueChargeOriginal(transactionId: string): Promise<number | null>;
  refund(req: RefundRequest): Promise<RefundResult>;
  refundStatus(e2eid: string, refundId: string): Promise<{ status: DevolucaoStatus; motivo?: string } | null>;
  mandate(recurrenceId: string): Promise<Mandate | null>;
  recurringCharge(txid: string): Promise<RecurringCharge | null>;
  registerWebhook(url: string): Promise<void>;
  registerRecurringWebhooks(recUrl: string, cobrUrl: string): Promise<void>;
}

/** The connector's edges: the PSP, the core, where the PSP notifies, and this process's sweep state. */
export interface PixApiContext {
  psp: PixApiPsp;
  core: ConnectorCore;
  log: ConnectorLog;
  /** `{BASE_URL}/api/psp/bcb-api/pix`: where the PSP posts (it may append /pix). */
  webhookUrl: string;
  /** Pix Automático: `{BASE_URL}/api/psp/bcb-api/rec` and `.../cobr` (the PSP may append /rec, /cobr). */
  recWebhookUrl: string;
  cobrWebhookUrl: string;
  /** Set once this process registered the webhook. */
  registered?: boolean;
  /** When this process last polled the Pix Automático states it waits on (RECONCILE_EVERY_MS). */
  lastRecurringSync?: number;
  /** When this process last reconciled (the sweep runs every RECONCILE_EVERY_MS, not every tick). */
  lastReconciled?: number;
}

/** The reconciliation looks back this far: a Pix whose notification was lost is found within this window. */
export const RECONCILE_WINDOW_MS = 6 * 3_600_000;
/** How often the reconciliation asks the PSP for its list of received Pix. */
export const RECONCILE_EVERY_MS = 5 * 60_000;
/**
 * A charge is asked about this long after its expiry here: the PSP counts expiry from its own
 * creation time, a moment after ours, and a payment made in the last second must not be expired.
 */
export const EXPIRY_GRACE_MS = 2 * 60_000;
/** failureReason of a charge paid at the PSP by a Pix that cannot pay it here (its amount): returned by hand. */
export const UNAPPLIED_PIX = 'PIX_AMOUNT_MISMATCH';

/** A transaction by id, as stored. */
export function findTransaction(deps: PixApiContext, id: string): Promise<Transaction | undefined> {
  return deps.core.db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** GET /pix/{e2eid} for each: the confirmed Pix of ours as PAID events (unknown or foreign ones dropped). */
export async function confirmAll(deps: PixApiContext, e2eids: string[]): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for (const e2eid of e2eids) {
    const pix = await deps.psp.confirmPix(e2eid);
    if (pix) events.push({ transactionId: pix.transactionId, outcome: 'PAID', reference: pix.e2eid, amountCents: pix.amountCents, paidAt: pix.settledAt });
  }
  return events;
}

/**
 * Applies a confirmed Pix: the transaction becomes PAID with the e2eid as its provider reference.
 * A Pix of more than was charged (a charge with a due date paid late) is booked only when the
 * charge at the PSP is still for the amount charged here (GET /cobv) and the transaction's terms
 * explain the difference on the day it was paid (applyProviderEvents). What cannot be applied (paid
 * after it expired or was cancelled here, an amount nothing explains, a second payment of the same
 * charge) is logged for a person: that money must be returned to the payer.
 */
export async function settle(deps: PixApiContext, pix: Pick<ConfirmedPix, 'e2eid' | 'transactionId' | 'amountCents' | 'settledAt'>): Promise<Transaction | null> {
  const tx = await chargeOf(deps, pix.transactionId);
  if (!tx || tx.provider !== PIX_API_PROVIDER || tx.payment_method !== 'PIX') {
    deps.log.warn({ e2eid: pix.e2eid, transactionId: pix.transactionId }, 'pix-api: a Pix for a txid of ours with no PIX transaction of this provider; ignored');
    return null;
  }
  if (pix.amountCents !== tx.charged_cents && tx.late_payment && tx.status === 'PENDING') {
    const original = await deps.psp.dueChargeOriginal(tx.id);
    if (original !== tx.charged_cents) {
      deps.log.error({ e2eid: pix.e2eid, transactionId: tx.id, paidCents: pix.amountCents, chargedCents: tx.charged_cents, originalAtPsp: original }, 'pix-api: a late Pix whose charge at the PSP is not for the amount charged here: the payer must be refunded by hand');
      return null;
    }
  }
  const event: ProviderEvent = { transactionId: tx.id, outcome: 'PAID', reference: pix.e2eid, amountCents: pix.amountCents, paidAt: pix.settledAt };
  try {
    const [applied] = await deps.core.applyEvents(tx, [event]);
    return applied;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    deps.log.error({ e2eid: pix.e2eid, transactionId: tx.id, status: tx.status, reason: err.message }, 'pix-api: a confirmed Pix could not pay its transaction: the payer must be refunded by hand');
    return null;
  }
}

/**
 * The transaction a payment of this charge pays: the charge's own (its txid was derived from it),
 * or, when that one is no longer pending and belongs to a Pix Automático cycle, the retry its cycle
 * now waits on (a retry is a new attempt of the same charge at the PSP: a transaction without a
 * txid of its own).
 */
export async function chargeOf(deps: PixApiContext, transactionId: string): Promise<Transaction | undefined> {
  const tx = await findTransaction(deps, transactionId);
  if (!tx || tx.status === 'PENDING' || !tx.subscription_cycle_id) return tx;
  const cycle = await deps.core.db.selectFrom('subscription_cycles').select('transaction_id').where('id', '=', tx.subscription_cycle_id).executeTakeFirst();
  if (!cycle?.transaction_id || cycle.transaction_id === tx.id) return tx;
  const retry = await findTransaction(deps, cycle.transaction_id);
  return retry && retry.status === 'PENDING' && retry.provider === PIX_API_PROVIDER && retry.pix_txid === null ? retry : tx;
}

/** The e2eids among these that already paid a transaction (nothing to ask the PSP about). */
export async function known(deps: PixApiContext, e2eids: string[]): Promise<Set<string>> {
  if (!e2eids.length) return new Set();
  const rows = await deps.core.db.selectFrom('transactions').select('provider_ref').where('provider', '=', PIX_API_PROVIDER).where('provider_ref', 'in', e2eids).execute();
  return new Set(rows.map((r) => r.provider_ref!));
}

/** A pending refund is asked about once this old (its own request may still be in flight). */
const REFUND_SETTLE_MS = 30_000;

/**
 * Brings this provider's PENDING refunds up to date: the devolução's state at the PSP (DEVOLVIDO ->
 * SUCCEEDED, NAO_REALIZADO -> FAILED); one the PSP never received (its request was lost) is sent
 * again under the same id. `e2eids`: only the refunds of these payments, whatever their age.
 */
export async function syncRefunds(deps: PixApiContext, now = new Date(), batch = 50, e2eids?: string[]): Promise<number> {
  let q = deps.core.db
    .selectFrom('refunds as r')
    .innerJoin('transactions as t', 't.id', 'r.transaction_id')
    .select(['r.id', 'r.transaction_id', 'r.amount_cents', 't.provider_ref', 't.payment_method'])
    .where('r.provider', '=', PIX_API_PROVIDER)
    .where('r.status', '=', 'PENDING');
  q = e2eids ? q.where('t.provider_ref', 'in', e2eids) : q.where('r.updated_at', '<', new Date(now.getTime() - REFUND_SETTLE_MS));
  const pending = await q.orderBy('r.updated_at').limit(batch).execute();
  let settled = 0;
  for (const r of pending) {
    if (!r.provider_ref) continue;
    try {
      const state = await deps.psp.refundStatus(r.provider_ref, r.id);
      if (!state) {
        const result = await deps.psp.refund({ refundId: r.id, transactionId: r.transaction_id, paymentMethod: r.payment_method, paymentReference: r.provider_ref, amountCents: r.amount_cents });
        await deps.core.recordRefund(r.id, r.transaction_id, result);
      } else if (state.status === 'EM_PROCESSAMENTO') {
        // Still processing: touched, so the sweep's next batch starts with the others.
        await deps.core.db.updateTable('refunds').set({ updated_at: now }).where('id', '=', r.id).where('status', '=', 'PENDING').execute();
        continue;
      } else {
        await deps.core.recordRefund(r.id, r.transaction_id, state.status === 'DEVOLVIDO' ? { ok: true, reference: devolucaoIdFor(r.id) } : { ok: false, reason: 'NAO_REALIZADO', message: state.motivo ?? 'not made' });
      }
      settled += 1;
    } catch (err) {
      if (err instanceof PixApiError && err.kind === 'unavailable') break;
      deps.log.error({ refundId: r.id, pixApi: err instanceof PixApiError ? err.toLog() : String(err) }, 'pix-api: could not update a refund');
    }
  }
  return settled;
}

/** GET /rec/{idRec} and its state applied to its subscription; false when the PSP does not know it. */
export async function syncMandate(deps: PixApiContext, recurrenceId: string): Promise<boolean> {
  const m = await deps.psp.mandate(recurrenceId);
  if (!m) {
    deps.log.warn({ recurrenceId }, 'pix-api: a notified authorisation is unknown to the PSP; ignored');
    return false;
  }
  await deps.core.applyMandate({ recurrenceId, status: m.status, cancelledBy: m.cancelledBy });
  return true;
}

/**
 * A recurring charge as the PSP reports it, applied: each Pix that paid it is confirmed with GET
 * /pix/{e2eid} and pays the charge's transaction (or the retry its cycle waits on); a debit that
 * failed (the charge rejected, cancelled or expired, or its last attempt rejected or expired) fails
 * the pending transaction with the reason the standard's codes give (payments/pix-api/reasons.ts):
 * the dunning retries it (POST .../retentativa) unless that reason is final. An attempt still
 * scheduled changes nothing.
 */
export async function syncRecurringCharge(deps: PixApiContext, txid: string): Promise<boolean> {
  const c = await deps.psp.recurringCharge(txid);
  const transactionId = transactionIdOf(txid);
  if (!c || !transactionId) return false;
  if (c.e2eids.length) {
    const done = await known(deps, c.e2eids);
    for (const e2eid of c.e2eids) {
      if (done.has(e2eid)) continue;
      const pix = await deps.psp.confirmPix(e2eid);
      if (pix && pix.txid === txid.toLowerCase()) await settle(deps, pix);
    }
    return true;
  }
  const reason = debitFailure(c);
  if (!reason) return true;
  const tx = await chargeOf(deps, transactionId);
  if (tx?.status !== 'PENDING') return true;
  const last = c.attempts.at(-1);
  deps.log.warn({ transactionId: tx.id, txid, reason, final: FINAL_DEBIT_REASONS.has(reason), pixApi: { status: c.status, attempt: last?.status, code: last?.code ?? c.end.code, by: c.end.by } }, 'pix-api: an automatic debit failed');
  try {
    await deps.core.applyEvents(tx, [{ transactionId: tx.id, outcome: 'FAILED', reason }]);
  } catch (err) {
    if (!(err instanceof AppError)) throw err; // settled meanwhile
  }
  return true;
}
