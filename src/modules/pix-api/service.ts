// Production PIX through a PSP's API Pix, the parts that need the database: notifications from the
// PSP (each Pix confirmed with the PSP before a transaction becomes PAID, once per end-to-end id),
// the reconciliation that finds Pix whose notification was lost, the expiry of charges (asked to
// the PSP first), the refunds' outcomes (DEVOLVIDO / NAO_REALIZADO) and the webhook registration.
// Every status change goes through applyProviderEvents (transactions/service.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Transaction } from '../../db/types.ts';
import { AppError } from '../../http/errors.ts';
import { PixApiError } from '../../payments/pix-api/client.ts';
import { devolucaoIdFor, notifiedE2eids, PIX_API_PROVIDER, type ConfirmedPix, type PixApiProvider } from '../../payments/pix-api/provider.ts';
import type { ProviderEvent } from '../../payments/provider.ts';
import { applyProviderEvents, recordRefund, type TransactionDeps } from '../transactions/service.ts';
import { findTransaction } from '../transactions/queries.ts';

export interface PixApiDeps {
  transactions: TransactionDeps;
  provider: PixApiProvider;
  log: FastifyBaseLogger;
  /** `{BASE_URL}/api/psp/pix`: where the PSP posts (it appends /pix). */
  webhookUrl: string;
  /** Set once this process registered the webhook. */
  registered?: boolean;
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
/** A pending refund is asked about once this old (its own request may still be in flight). */
const REFUND_SETTLE_MS = 30_000;

/**
 * Applies a confirmed Pix: the transaction becomes PAID with the e2eid as its provider reference.
 * What cannot be applied (paid after it expired or was cancelled here, a different amount, a second
 * payment of the same charge) is logged for a person: that money must be returned to the payer.
 */
async function settle(deps: PixApiDeps, pix: Pick<ConfirmedPix, 'e2eid' | 'transactionId' | 'amountCents'>): Promise<Transaction | null> {
  const tx = await findTransaction(deps.transactions.db, pix.transactionId);
  if (!tx || tx.provider !== PIX_API_PROVIDER || tx.payment_method !== 'PIX') {
    deps.log.warn({ e2eid: pix.e2eid, transactionId: pix.transactionId }, 'pix-api: a Pix for a txid of ours with no PIX transaction of this provider; ignored');
    return null;
  }
  const event: ProviderEvent = { transactionId: tx.id, outcome: 'PAID', reference: pix.e2eid, amountCents: pix.amountCents };
  try {
    const [applied] = await applyProviderEvents(deps.transactions, { userId: tx.user_id, livemode: tx.livemode }, deps.provider, [event]);
    return applied;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    deps.log.error({ e2eid: pix.e2eid, transactionId: tx.id, status: tx.status, reason: err.message }, 'pix-api: a confirmed Pix could not pay its transaction: the payer must be refunded by hand');
    return null;
  }
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
  const events = await deps.provider.parseCallback(fresh.map((endToEndId) => ({ endToEndId })));
  let paid = 0;
  for (const e of events) if (await settle(deps, { e2eid: e.reference!, transactionId: e.transactionId, amountCents: e.amountCents! })) paid += 1;
  if (done.size) await syncRefunds(deps, new Date(), 100, [...done]);
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
    if (state.status === 'CONCLUIDA') {
      for (const e2eid of state.e2eids) {
        const pix = await deps.provider.confirmPix(e2eid);
        if (pix && pix.transactionId === tx.id && (await settle(deps, pix))) break;
      }
    } else {
      try {
        await applyProviderEvents(deps.transactions, { userId: tx.user_id, livemode: tx.livemode }, deps.provider, [{ transactionId: tx.id, outcome: 'EXPIRED' }]);
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

/** PUT /webhook/{chave} with `{BASE_URL}/api/psp/pix`, once per process (idempotent at the PSP). */
export async function ensureWebhook(deps: PixApiDeps): Promise<boolean> {
  if (deps.registered) return true;
  try {
    await deps.provider.registerWebhook(deps.webhookUrl);
    deps.registered = true;
    deps.log.info({ webhookUrl: deps.webhookUrl }, 'pix-api: webhook registered with the PSP');
  } catch (err) {
    deps.log.error({ pixApi: err instanceof PixApiError ? err.toLog() : String(err) }, 'pix-api: the webhook could not be registered; retried by the jobs (reconciliation covers payments meanwhile)');
  }
  return deps.registered === true;
}
