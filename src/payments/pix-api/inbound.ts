// The PSP's notifications (API Pix webhooks: Pix received, Pix Automático authorisations and
// recurring charges). Nothing in one is believed: each id is looked up with the PSP before anything
// changes, ids already applied cost no call, and a PSP that cannot be asked gets a 503 (it sends again).
import { AppError } from '../../http/errors.ts';
import { MAX_CONFIRMED, notifiedE2eids, PIX_API_PROVIDER, transactionIdOf } from './mapping.ts';
import { confirmAll, findTransaction, known, settle, syncMandate, syncRecurringCharge, syncRefunds, type PixApiContext } from './settle.ts';

/**
 * A notification from the PSP ({pix: [...]} or a bare array). Its content is not believed: each new
 * e2eid is confirmed with GET /pix/{e2eid} (parseCallback) and only then applied; e2eids that
 * already paid are skipped without a call. Refunds of the notified Pix are brought up to date (the
 * PSP notifies a devolução's final status the same way). Throws PixApiError (unavailable) when the
 * PSP cannot be asked: the caller answers 503 and the PSP sends the notification again.
 */
export async function receiveNotification(deps: PixApiContext, body: unknown): Promise<{ paid: number }> {
  const e2eids = notifiedE2eids(body);
  const done = await known(deps, e2eids);
  const fresh = e2eids.filter((e) => !done.has(e));
  // The first MAX_CONFIRMED new ones are confirmed and applied; past them the answer is a 503, so
  // the PSP sends the notification again, and those applied are then known (no call): it converges.
  const events = await confirmAll(deps, fresh.slice(0, MAX_CONFIRMED));
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
export async function receiveRecNotification(deps: PixApiContext, body: unknown): Promise<{ applied: number }> {
  const ids = notified(body, 'recs', 'idRec', REC_ID);
  if (!ids.length) return { applied: 0 };
  const ours = await deps.core.db.selectFrom('subscriptions').select('pix_rec_id').where('livemode', '=', true).where('pix_rec_id', 'in', ids).execute();
  let applied = 0;
  for (const { pix_rec_id: id } of ours) if (await syncMandate(deps, id!)) applied += 1;
  return { applied };
}

/**
 * A recurring charge's notification (webhookcobr). Each txid of ours is looked up with GET
 * /cobr/{txid} (syncRecurringCharge); unknown ones cost no call.
 */
export async function receiveCobrNotification(deps: PixApiContext, body: unknown): Promise<{ handled: number }> {
  let handled = 0;
  for (const txid of notified(body, 'cobsr', 'txid', TXID)) {
    const tx = await findTransaction(deps, transactionIdOf(txid) ?? '00000000-0000-0000-0000-000000000000');
    if (!tx || tx.provider !== PIX_API_PROVIDER || !tx.subscription_cycle_id) continue;
    if (await syncRecurringCharge(deps, txid)) handled += 1;
  }
  return { handled };
}
