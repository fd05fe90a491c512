// Production PIX through a PSP's API Pix, the parts that need the database: notifications from the
// PSP (each Pix confirmed with the PSP before a transaction becomes PAID, once per end-to-end id),
// the reconciliation that finds Pix whose notification was lost, the expiry of charges (asked to
// the PSP first), the refunds' outcomes (DEVOLVIDO / NAO_REALIZADO) and the webhook registration.
// Every status change goes through applyProviderEvents (transactions/service.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Transaction } from '../../db/types.ts';
import { AppError } from '../../http/errors.ts';
import { PixApiError } from '../../payments/pix-api/client.ts';
import { devolucaoIdFor, MAX_CONFIRMED, notifiedE2eids, PIX_API_PROVIDER, transactionIdOf, type ConfirmedPix, type PixApiProvider } from '../../payments/pix-api/provider.ts';
import type { ProviderEvent } from '../../payments/provider.ts';
import { debitFailure, FINAL_DEBIT_REASONS } from '../../payments/pix-api/reasons.ts';
import type { EngineDeps } from '../subscriptions/cycles.ts';
import { applyMandate } from '../subscriptions/pix-automatico.ts';
import { applyProviderEvents, recordRefund, type TransactionDeps } from '../transactions/service.ts';
import { findTransaction } from '../transactions/queries.ts';

export interface PixApiDeps {
  transactions: TransactionDeps;
  provider: PixApiProvider;
  log: FastifyBaseLogger;
  /** `{BASE_URL}/api/psp/pix`: where the PSP posts (it appends /pix). */
  webhookUrl: string;
  /** Pix Automático: `{BASE_URL}/api/psp/rec` and `/api/psp/cobr` (the PSP appends /rec, /cobr). */
  recWebhookUrl: string;
  cobrWebhookUrl: string;
  /** The subscriptions' engine: an authorisation's state drives its subscription. */
  subscriptions: EngineDeps;
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
/** A pending refund is asked about once this old (its own request may still be in flight). */
const REFUND_SETTLE_MS = 30_000;

/**
 * Applies a confirmed Pix: the transaction becomes PAID with the e2eid as its provider reference.
 * A Pix of more than was charged (a charge with a due date paid late) is booked only when the
 * charge at the PSP is still for the amount charged here (GET /cobv) and the transaction's terms
 * explain the difference on the day it was paid (applyProviderEvents). What cannot be applied (paid
 * after it expired or was cancelled here, an amount nothing explains, a second payment of the same
 * charge) is logged for a person: that money must be returned to the payer.
 */
async function settle(deps: PixApiDeps, pix: Pick<ConfirmedPix, 'e2eid' | 'transactionId' | 'amountCents' | 'settledAt'>): Promise<Transaction | null> {
  const tx = await chargeOf(deps, pix.transactionId);
  if (!tx || tx.provider !== PIX_API_PROVIDER || tx.payment_method !== 'PIX') {
    deps.log.warn({ e2eid: pix.e2eid, transactionId: pix.transactionId }, 'pix-api: a Pix for a txid of ours with no PIX transaction of this provider; ignored');
    return null;
  }
  if (pix.amountCents !== tx.charged_cents && tx.late_payment && tx.status === 'PENDING') {
    const original = await deps.provider.dueChargeOriginal(tx.id);
    if (original !== tx.charged_cents) {
      deps.log.error({ e2eid: pix.e2eid, transactionId: tx.id, paidCents: pix.amountCents, chargedCents: tx.charged_cents, originalAtPsp: original }, 'pix-api: a late Pix whose charge at the PSP is not for the amount charged here: the payer must be refunded by hand');
      return null;
    }
  }
  const event: ProviderEvent = { transactionId: tx.id, outcome: 'PAID', reference: pix.e2eid, amountCents: pix.amountCents, paidAt: pix.settledAt };
  try {
    const [applied] = await applyProviderEvents(deps.transactions, { userId: tx.user_id, livemode: tx.livemode }, deps.provider, [event]);
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
async function chargeOf(deps: PixApiDeps, transactionId: string): Promise<Transaction | undefined> {
  const tx = await findTransaction(deps.transactions.db, transactionId);
  if (!tx || tx.status === 'PENDING' || !tx.subscription_cycle_id) return tx;
  const cycle = await deps.transactions.db.selectFrom('subscription_cycles').select('transaction_id').where('id', '=', tx.subscription_cycle_id).executeTakeFirst();
  if (!cycle?.transaction_id || cycle.transaction_id === tx.id) return tx;
  const retry = await findTransaction(deps.transactions.db, cycle.transaction_id);
  return retry && retry.status === 'PENDING' && retry.provider === PIX_API_PROVIDER && retry.pix_txid === null ? retry : tx;
}

/** The e2eids among these that already paid a transaction (nothing to ask the PSP about). */
async function known(deps: PixApiDeps, e2eids: string[]): Promise<Set<string>> {
  if (!e2eids.length) return new Set();
  const rows = await deps.transactions.db.selectFrom('transactions').select('provider_ref').where('provider', '=', PIX_API_PROVIDER).where('provider_ref', 'in', e2eids).execute();
  return new Set(rows.map((r) => r.provider_ref!));
}

/**
 * A notification from the PSP ({pix: [...]} or a bare array). Its content is not believed: each new
 * e2eid is confirmed with GET /pix/{e2eid} (parseCallback) and only then applied; e2eids that
 * already paid are skipped without a call. Refunds of the notified Pix are brought up to date (the
 * PSP notifies a devolução's final status the same way). Throws PixApiError (unavailable) when the
 * PSP cannot be asked: the caller answers 503 and the PSP sends the notification again.
 */
export async function receiveNotification(deps: PixApiDeps, body: unknown): Promise<{ paid: number }> {
  const e2eids = notifiedE2eids(body);
  const done = await known(deps, e2eids);
  const fresh = e2eids.filter((e) => !done.has(e));
  // The first MAX_CONFIRMED new ones are confirmed and applied; past them the answer is a 503, so
  // the PSP sends the notification again, and those applied are then known (no call): it converges.
  const events = await deps.provider.parseCallback(fresh.slice(0, MAX_CONFIRMED).map((endToEndId) => ({ endToEndId })));
  // All at once: a merchant's Pix of one notification are then paid in batches, not a database
  // transaction each (transactions/changes.ts), each as if alone. A failure is thrown once all have
  // finished.
  const settled = await Promise.allSettled(events.map((e) => settle(deps, { e2eid: e.reference!, transactionId: e.transactionId, amountCents: e.amountCents!, settledAt: e.paidAt! })));
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const paid = settled.filter((r) => r.status === 'fulfilled' && r.value).length;
  if (done.size) await syncRefunds(deps, new Date(), 100, [...done]);
  if (fresh.length > MAX_CONFIRMED) {
    throw new AppError(503, `This notification names more new Pix than are confirmed at once (${MAX_CONFIRMED}): those were applied; send it again for the rest`);
  }
  return { paid };
}

/**
 * The backstop for lost notifications: the PSP's list of Pix received over the last hours, each
 * one of our charges applied if it is not already. Runs every RECONCILE_EVERY_MS per process.
 */
export async function reconcile(deps: PixApiDeps, now = new Date(), force = false): Promise<number> {
  if (!force && deps.lastReconciled !== undefined && now.getTime() - deps.lastReconciled < RECONCILE_EVERY_MS) return 0;
  const received = await deps.provider.received(new Date(now.getTime() - RECONCILE_WINDOW_MS), now);
  deps.lastReconciled = now.getTime();
  const done = await known(deps, received.map((p) => p.e2eid));
  let paid = 0;
  for (const pix of received) {
    if (done.has(pix.e2eid)) continue;
    deps.log.warn({ e2eid: pix.e2eid, transactionId: pix.transactionId }, 'pix-api: reconciliation found a Pix whose notification never arrived');
    if (await settle(deps, pix)) paid += 1;
  }
  return paid;
}

/**
 * Expiry of this provider's PENDING charges, past their expiry (plus a grace): the PSP is asked
 * first. A charge paid there (CONCLUIDA) is confirmed and PAID; one still ATIVA is removed there
 * (REMOVIDA_PELO_USUARIO_RECEBEDOR) and, like one removed or unknown there, becomes EXPIRED.
 * Returns how many it settled either way.
 */
export async function expireCharges(deps: PixApiDeps, now = new Date(), batch = 50): Promise<number> {
  const due = await deps.transactions.db
    .selectFrom('transactions')
    .selectAll()
    .where('provider', '=', PIX_API_PROVIDER)
    .where('status', '=', 'PENDING')
    // Automatic debits (no BR Code) are followed by syncRecurring: their date is the payer's bank's.
    .where('pix_qr_code', 'is not', null)
    .where('expires_at', '<', new Date(now.getTime() - EXPIRY_GRACE_MS))
    .orderBy('expires_at')
    .limit(batch)
    .execute();
  let handled = 0;
  for (const tx of due) {
    let state;
    try {
      state = await deps.provider.chargeState(tx.id);
      // Still payable there (a cobv's due date on a holiday moves to the next business day): removed
      // first, so that no payment can arrive for a transaction expired here. Paid meanwhile: it is settled below.
      if (state.status === 'ATIVA') {
        await deps.provider.cancelCharge({ transactionId: tx.id, paymentMethod: 'PIX', txid: tx.pix_txid });
        state = await deps.provider.chargeState(tx.id);
      }
    } catch (err) {
      if ((err instanceof PixApiError && err.kind === 'unavailable') || (err instanceof AppError && err.status === 503)) break; // the rest on a later tick
      deps.log.error({ transactionId: tx.id, pixApi: err instanceof PixApiError ? err.toLog() : String(err) }, 'pix-api: could not read or remove a charge for its expiry');
      continue;
    }
    let end: ProviderEvent | null = { transactionId: tx.id, outcome: 'EXPIRED' };
    if (state.status === 'CONCLUIDA') {
      let unapplied = false;
      for (const e2eid of state.e2eids) {
        const pix = await deps.provider.confirmPix(e2eid);
        if (pix?.transactionId !== tx.id) continue;
        unapplied = (await settle(deps, pix)) === null;
        if (!unapplied) break;
      }
      // Paid there by a Pix that cannot pay it here (an amount nothing explains; settle logged it
      // for the person who returns it): the sale did not happen, and the charge is not asked about
      // again. A charge the PSP calls paid without a Pix of ours to show is left for a later tick.
      end = unapplied ? { transactionId: tx.id, outcome: 'FAILED', reason: UNAPPLIED_PIX } : null;
    }
    if (end) {
      try {
        await applyProviderEvents(deps.transactions, { userId: tx.user_id, livemode: tx.livemode }, deps.provider, [end]);
      } catch (err) {
        if (!(err instanceof AppError)) throw err; // another worker settled it meanwhile
      }
    }
    handled += 1;
  }
  return handled;
}

/**
 * Brings this provider's PENDING refunds up to date: the devolução's state at the PSP (DEVOLVIDO ->
 * SUCCEEDED, NAO_REALIZADO -> FAILED); one the PSP never received (its request was lost) is sent
 * again under the same id. `e2eids`: only the refunds of these payments, whatever their age.
 */
export async function syncRefunds(deps: PixApiDeps, now = new Date(), batch = 50, e2eids?: string[]): Promise<number> {
  let q = deps.transactions.db
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
      const state = await deps.provider.refundStatus(r.provider_ref, r.id);
      if (!state) {
        const result = await deps.provider.refund({ refundId: r.id, transactionId: r.transaction_id, paymentMethod: r.payment_method, paymentReference: r.provider_ref, amountCents: r.amount_cents });
        await recordRefund(deps.transactions, r.id, r.transaction_id, result);
      } else if (state.status === 'EM_PROCESSAMENTO') {
        // Still processing: touched, so the sweep's next batch starts with the others.
        await deps.transactions.db.updateTable('refunds').set({ updated_at: now }).where('id', '=', r.id).where('status', '=', 'PENDING').execute();
        continue;
      } else {
        await recordRefund(deps.transactions, r.id, r.transaction_id, state.status === 'DEVOLVIDO' ? { ok: true, reference: devolucaoIdFor(r.id) } : { ok: false, reason: 'NAO_REALIZADO', message: state.motivo ?? 'not made' });
      }
      settled += 1;
    } catch (err) {
      if (err instanceof PixApiError && err.kind === 'unavailable') break;
      deps.log.error({ refundId: r.id, pixApi: err instanceof PixApiError ? err.toLog() : String(err) }, 'pix-api: could not update a refund');
    }
  }
  return settled;
}

/**
 * PUT /webhook/{chave} with `{BASE_URL}/api/psp/pix` (and, with Pix Automático, PUT /webhookrec and
 * /webhookcobr with `{BASE_URL}/api/psp/rec` and `/api/psp/cobr`), once per process (idempotent at the PSP).
 */
export async function ensureWebhook(deps: PixApiDeps): Promise<boolean> {
  if (deps.registered) return true;
  try {
    await deps.provider.registerWebhook(deps.webhookUrl);
    if (deps.provider.pixAutomatico) await deps.provider.registerRecurringWebhooks(deps.recWebhookUrl, deps.cobrWebhookUrl);
    deps.registered = true;
    deps.log.info({ webhookUrl: deps.webhookUrl }, 'pix-api: webhook registered with the PSP');
  } catch (err) {
    deps.log.error({ pixApi: err instanceof PixApiError ? err.toLog() : String(err) }, 'pix-api: the webhook could not be registered; retried by the jobs (reconciliation covers payments meanwhile)');
  }
  return deps.registered === true;
}

// ---------------------------------------------------------------------------------------------
// Pix Automático: the authorisations' (rec) and the recurring charges' (cobr) notifications

const REC_ID = /^[a-zA-Z0-9]{29}$/;
const TXID = /^[a-zA-Z0-9]{26,35}$/;
/** A notification naming more than this is cut: each one costs a call to the PSP. */
const MAX_NOTIFIED = 100;

/** The values of `field` a notification lists ({recs|cobsr: [...]} or a bare array), well-formed, deduplicated. */
function notified(body: unknown, list: 'recs' | 'cobsr', field: 'idRec' | 'txid', re: RegExp): string[] {
  const items = Array.isArray(body) ? body : Array.isArray((body as Record<string, unknown> | null)?.[list]) ? ((body as Record<string, unknown>)[list] as unknown[]) : [];
  const out = new Set<string>();
  for (const item of items) {
    const v = (item as Record<string, unknown> | null)?.[field];
    if (typeof v === 'string' && re.test(v)) out.add(v);
    if (out.size >= MAX_NOTIFIED) break;
  }
  return [...out];
}

/**
 * An authorisation's notification (webhookrec). Nothing in it is believed: each idRec that is one
 * of our subscriptions' is looked up with GET /rec/{idRec}, and the state the PSP reports is
 * applied (subscriptions/pix-automatico.ts). Unknown ids cost no call. Throws PixApiError
 * (unavailable) when the PSP cannot be asked: the caller answers 503.
 */
export async function receiveRecNotification(deps: PixApiDeps, body: unknown): Promise<{ applied: number }> {
  const ids = notified(body, 'recs', 'idRec', REC_ID);
  if (!ids.length) return { applied: 0 };
  const ours = await deps.transactions.db.selectFrom('subscriptions').select('pix_rec_id').where('livemode', '=', true).where('pix_rec_id', 'in', ids).execute();
  let applied = 0;
  for (const { pix_rec_id: id } of ours) if (await syncMandate(deps, id!)) applied += 1;
  return { applied };
}

/** GET /rec/{idRec} and its state applied to its subscription; false when the PSP does not know it. */
async function syncMandate(deps: PixApiDeps, recurrenceId: string): Promise<boolean> {
  const m = await deps.provider.mandate(recurrenceId);
  if (!m) {
    deps.log.warn({ recurrenceId }, 'pix-api: a notified authorisation is unknown to the PSP; ignored');
    return false;
  }
  await applyMandate(deps.subscriptions, { recurrenceId, status: m.status, cancelledBy: m.cancelledBy });
  return true;
}

/**
 * A recurring charge's notification (webhookcobr). Each txid of ours is looked up with GET
 * /cobr/{txid} (syncRecurringCharge); unknown ones cost no call.
 */
export async function receiveCobrNotification(deps: PixApiDeps, body: unknown): Promise<{ handled: number }> {
  let handled = 0;
  for (const txid of notified(body, 'cobsr', 'txid', TXID)) {
    const tx = await findTransaction(deps.transactions.db, transactionIdOf(txid) ?? '00000000-0000-0000-0000-000000000000');
    if (!tx || tx.provider !== PIX_API_PROVIDER || !tx.subscription_cycle_id) continue;
    if (await syncRecurringCharge(deps, txid)) handled += 1;
  }
  return { handled };
}

/**
 * A recurring charge as the PSP reports it, applied: each Pix that paid it is confirmed with GET
 * /pix/{e2eid} and pays the charge's transaction (or the retry its cycle waits on); a debit that
 * failed (the charge rejected, cancelled or expired, or its last attempt rejected or expired) fails
 * the pending transaction with the reason the standard's codes give (payments/pix-api/reasons.ts):
 * the dunning retries it (POST .../retentativa) unless that reason is final. An attempt still
 * scheduled changes nothing.
 */
export async function syncRecurringCharge(deps: PixApiDeps, txid: string): Promise<boolean> {
  const c = await deps.provider.recurringCharge(txid);
  const transactionId = transactionIdOf(txid);
  if (!c || !transactionId) return false;
  if (c.e2eids.length) {
    const done = await known(deps, c.e2eids);
    for (const e2eid of c.e2eids) {
      if (done.has(e2eid)) continue;
      const pix = await deps.provider.confirmPix(e2eid);
      if (pix && pix.txid === txid.toLowerCase()) await settle(deps, pix);
    }
    return true;
  }
  const reason = debitFailure(c);
  if (!reason) return true;
  const tx = await chargeOf(deps, transactionId);
  if (!tx || tx.status !== 'PENDING') return true;
  const last = c.attempts.at(-1);
  deps.log.warn({ transactionId: tx.id, txid, reason, final: FINAL_DEBIT_REASONS.has(reason), pixApi: { status: c.status, attempt: last?.status, code: last?.code ?? c.end.code, by: c.end.by } }, 'pix-api: an automatic debit failed');
  try {
    await applyProviderEvents(deps.transactions, { userId: tx.user_id, livemode: tx.livemode }, deps.provider, [{ transactionId: tx.id, outcome: 'FAILED', reason }]);
  } catch (err) {
    if (!(err instanceof AppError)) throw err; // settled meanwhile
  }
  return true;
}

/**
 * The backstop for lost Pix Automático notifications, every RECONCILE_EVERY_MS: authorisations
 * still awaiting the payer (CRIADA) are asked about, and so are automatic debits past their date.
 */
export async function syncRecurring(deps: PixApiDeps, now = new Date(), batch = 50, force = false): Promise<number> {
  if (!deps.provider.pixAutomatico) return 0;
  if (!force && deps.lastRecurringSync !== undefined && now.getTime() - deps.lastRecurringSync < RECONCILE_EVERY_MS) return 0;
  deps.lastRecurringSync = now.getTime();
  let handled = 0;
  try {
    const waiting = await deps.transactions.db
      .selectFrom('subscriptions')
      .select('pix_rec_id')
      .where('livemode', '=', true)
      .where('pix_rec_status', '=', 'CRIADA')
      .where('updated_at', '<', new Date(now.getTime() - RECONCILE_EVERY_MS))
      .orderBy('updated_at')
      .limit(batch)
      .execute();
    for (const { pix_rec_id: id } of waiting) if (id && (await syncMandate(deps, id))) handled += 1;
    const debits = await deps.transactions.db
      .selectFrom('transactions as t')
      .select(['t.id', 't.pix_txid', 't.subscription_cycle_id'])
      .where('t.provider', '=', PIX_API_PROVIDER)
      .where('t.status', '=', 'PENDING')
      .where('t.pix_qr_code', 'is', null)
      .where('t.subscription_cycle_id', 'is not', null)
      .where('t.expires_at', '<', new Date(now.getTime() - EXPIRY_GRACE_MS))
      .orderBy('t.expires_at')
      .limit(batch)
      .execute();
    for (const d of debits) {
      const txid =
        d.pix_txid ??
        (await deps.transactions.db.selectFrom('transactions').select('pix_txid').where('subscription_cycle_id', '=', d.subscription_cycle_id!).where('pix_txid', 'is not', null).orderBy('created_at').executeTakeFirst())?.pix_txid;
      if (txid && (await syncRecurringCharge(deps, txid))) handled += 1;
    }
  } catch (err) {
    if (!(err instanceof PixApiError && err.kind === 'unavailable')) throw err;
  }
  return handled;
}
