// The API Pix connector's sweeps: the webhook registration until it succeeds, the reconciliation
// that finds Pix whose notification was lost, the expiry of charges (asked to the PSP first), and
// the Pix Automático states waited on. Run by the job runner through the registry.
import { AppError } from '../../http/errors.ts';
import type { ProviderEvent } from '../connector.ts';
import { PixApiError } from './client.ts';
import { PIX_API_PROVIDER } from './mapping.ts';
import { EXPIRY_GRACE_MS, known, RECONCILE_EVERY_MS, RECONCILE_WINDOW_MS, settle, syncMandate, syncRecurringCharge, UNAPPLIED_PIX, type PixApiContext } from './settle.ts';

/**
 * The backstop for lost notifications: the PSP's list of Pix received over the last hours, each
 * one of our charges applied if it is not already. Runs every RECONCILE_EVERY_MS per process.
 */
export async function reconcile(deps: PixApiContext, now = new Date(), force = false): Promise<number> {
  if (!force && deps.lastReconciled !== undefined && now.getTime() - deps.lastReconciled < RECONCILE_EVERY_MS) return 0;
  const received = await deps.psp.listSince(new Date(now.getTime() - RECONCILE_WINDOW_MS), now);
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
export async function expireCharges(deps: PixApiContext, now = new Date(), batch = 50): Promise<number> {
  const due = await deps.core.db
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
    let state: Awaited<ReturnType<PixApiContext['psp']['chargeState']>>;
    try {
      state = await deps.psp.chargeState(tx.id);
      // Still payable there (a cobv's due date on a holiday moves to the next business day): removed
      // first, so that no payment can arrive for a transaction expired here. Paid meanwhile: it is settled below.
      if (state.status === 'ATIVA') {
        await deps.psp.cancelCharge({ transactionId: tx.id, paymentMethod: 'PIX', txid: tx.pix_txid });
        state = await deps.psp.chargeState(tx.id);
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
        const pix = await deps.psp.confirmPix(e2eid);
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
        await deps.core.applyEvents(tx, [end]);
      } catch (err) {
        if (!(err instanceof AppError)) throw err; // another worker settled it meanwhile
      }
    }
    handled += 1;
  }
  return handled;
}

/**
 * PUT /webhook/{chave} with `{BASE_URL}/api/psp/pix` (and, with Pix Automático, PUT /webhookrec and
 * /webhookcobr with `{BASE_URL}/api/psp/rec` and `/api/psp/cobr`), once per process (idempotent at the PSP).
 */
export async function ensureWebhook(deps: PixApiContext): Promise<boolean> {
  if (deps.registered) return true;
  try {
    await deps.psp.registerWebhook(deps.webhookUrl);
    if (deps.psp.account) await deps.psp.registerRecurringWebhooks(deps.recWebhookUrl, deps.cobrWebhookUrl);
    deps.registered = true;
    deps.log.info({ webhookUrl: deps.webhookUrl }, 'pix-api: webhook registered with the PSP');
  } catch (err) {
    deps.log.error({ pixApi: err instanceof PixApiError ? err.toLog() : String(err) }, 'pix-api: the webhook could not be registered; retried by the jobs (reconciliation covers payments meanwhile)');
  }
  return deps.registered === true;
}

/**
 * The backstop for lost Pix Automático notifications, every RECONCILE_EVERY_MS: authorisations
 * still awaiting the payer (CRIADA) are asked about, and so are automatic debits past their date.
 */
export async function syncRecurring(deps: PixApiContext, now = new Date(), batch = 50, force = false): Promise<number> {
  if (!deps.psp.account) return 0;
  if (!force && deps.lastRecurringSync !== undefined && now.getTime() - deps.lastRecurringSync < RECONCILE_EVERY_MS) return 0;
  deps.lastRecurringSync = now.getTime();
  let handled = 0;
  try {
    const waiting = await deps.core.db
      .selectFrom('subscriptions')
      .select('pix_rec_id')
      .where('livemode', '=', true)
      .where('pix_rec_status', '=', 'CRIADA')
      .where('updated_at', '<', new Date(now.getTime() - RECONCILE_EVERY_MS))
      .orderBy('updated_at')
      .limit(batch)
      .execute();
    for (const { pix_rec_id: id } of waiting) if (id && (await syncMandate(deps, id))) handled += 1;
    const debits = await deps.core.db
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
        (await deps.core.db.selectFrom('transactions').select('pix_txid').where('subscription_cycle_id', '=', d.subscription_cycle_id!).where('pix_txid', 'is not', null).orderBy('created_at').executeTakeFirst())?.pix_txid;
      if (txid && (await syncRecurringCharge(deps, txid))) handled += 1;
    }
  } catch (err) {
    if (!(err instanceof PixApiError && err.kind === 'unavailable')) throw err;
  }
  return handled;
}
