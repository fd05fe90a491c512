// The payout job and its janitor. A withdrawal is claimed (PENDING -> PROCESSING, its reference
// chosen once) and committed; the connector is asked to send it outside any database transaction;
// its answer is SENT (the outcome follows: asked at once, then by notification or the janitor),
// FAILED outright, or HELD (the platform's account at the PSP lacks funds: back to PENDING, sent
// again later under the same reference). The outcome is recorded in its own transaction, guarded by
// the status, so an operator or another worker that got there first wins and the late one does nothing.
import { inTx } from '../../db/index.ts';
import type { Withdrawal } from '../../db/types.ts';
import type { PayoutRequest, PayoutState } from '../../payments/connector.ts';
import type { RailConnector } from '../../payments/registry.ts';
import { destinationOf } from './destination.ts';
import { finish, type FinalColumns, type WithdrawalDeps } from './service.ts';

const requestOf = (w: Withdrawal): PayoutRequest => ({ externalId: w.payout_ref!, amountCents: w.net_amount_cents, destination: destinationOf(w), description: w.description });

/** Our reference at the PSP: letters and digits, 33 characters (PSPs take at most 35, no symbols). */
const payoutRef = (id: string) => `w${id.replace(/-/g, '')}`;

/** After the platform's account lacked funds: 30 s, 1, 2, 4 ... minutes, at most 15 apart. */
export const heldBackoffMs = (attempts: number) => Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 15 * 60_000);

/**
 * One sweep: claims up to `batch` PENDING withdrawals that are not held (a new destination's hold
 * past its hold_until is released here) nor waiting out a backoff, marks them PROCESSING with the connector that takes them and commits; then sends each.
 * Development withdrawals use the sandbox; production ones only when PAYOUT_PROVIDER is configured
 * (otherwise they wait for an operator). Safe with any number of workers (FOR UPDATE SKIP LOCKED).
 */
export async function processPayouts(deps: WithdrawalDeps, now = new Date(), batch = 50): Promise<number> {
  const { db, connectors } = deps;
  const claimed = await inTx(db, async (trx) => {
    let q = trx
      .selectFrom('withdrawals')
      .selectAll()
      .where('status', '=', 'PENDING')
      .where((eb) => eb.or([eb('hold', 'is', null), eb.and([eb('hold', '=', 'NEW_DESTINATION'), eb('hold_until', '<=', now)])]))
      .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]));
    if (!connectors.offers(true, 'PAYOUT')) q = q.where('livemode', '=', false);
    const rows = await q.orderBy('created_at').limit(batch).forUpdate().skipLocked().execute();
    const out: Withdrawal[] = [];
    const at = new Date();
    for (const w of rows) {
      const connector = connectors.forNew(w.livemode, 'PAYOUT');
      // Chosen once: a re-send after a crash or a held attempt carries the same reference (connectors dedupe on it).
      const ref = w.payout_ref ?? payoutRef(w.id);
      out.push(
        await trx
          .updateTable('withdrawals')
          .set((eb) => ({ status: 'PROCESSING', hold: null, provider: connector.name, processed_at: at, payout_ref: ref, external_id: w.external_id ?? ref, payout_attempts: eb('payout_attempts', '+', 1), updated_at: at }))
          .where('id', '=', w.id)
          .returningAll()
          .executeTakeFirstOrThrow(),
      );
    }
    return out;
  });
  await Promise.all(claimed.map((w) => send(deps, w, now)));
  return claimed.length;
}

type Known = { kind: 'state'; state: PayoutState | null } | { kind: 'held'; message: string };

/** Sends under the withdrawal's reference and asks at once (a connector that settles at once, like the sandbox, is recorded now). */
async function sendAndAsk(connector: RailConnector<'PAYOUT'>, w: Withdrawal): Promise<Known> {
  const sent = await connector.sendPayout(requestOf(w));
  if (sent.status === 'HELD') return { kind: 'held', message: sent.message };
  if (sent.status === 'FAILED') return { kind: 'state', state: sent };
  const state = await connector.findPayout(w.payout_ref!);
  return { kind: 'state', state: state ?? { status: 'PROCESSING', providerId: sent.providerId } };
}

/** Sends a claimed payout and records what is known of it; an unknown outcome is left to the janitor. */
async function send(deps: WithdrawalDeps, w: Withdrawal, now: Date): Promise<void> {
  let known: Known;
  try {
    known = await sendAndAsk(deps.connectors.of(w.provider!, 'PAYOUT'), w);
  } catch {
    return; // unknown outcome: stays PROCESSING until the janitor asks the connector (followPayouts)
  }
  await settle(deps, w, known, now);
}

async function settle(deps: WithdrawalDeps, w: Withdrawal, known: Known, now: Date): Promise<void> {
  if (known.kind === 'held') await hold(deps, w, known.message, now);
  else await record(deps, w, known.state, now);
}

/** The platform could not fund it: PENDING again, tried later; operators are alerted (it is not the merchant's failure). */
async function hold(deps: WithdrawalDeps, w: Withdrawal, message: string, now: Date): Promise<void> {
  const next = new Date(now.getTime() + heldBackoffMs(w.payout_attempts));
  const held = await deps.db
    .updateTable('withdrawals')
    .set({ status: 'PENDING', processed_at: null, next_attempt_at: next, last_error: message, updated_at: now })
    .where('id', '=', w.id)
    .where('status', '=', 'PROCESSING')
    .where('payout_ref', '=', w.payout_ref!)
    .executeTakeFirst();
  if (Number(held.numUpdatedRows) > 0) {
    deps.log.error({ withdrawalId: w.id, provider: w.provider, attempts: w.payout_attempts, nextAttemptAt: next }, "payout held: the platform's account at the payout provider lacks funds; top it up (withdrawals wait and are sent again)");
  }
}

/** Records a payout's state on a withdrawal still PROCESSING under this reference; else marks it seen. */
async function record(deps: WithdrawalDeps, w: Withdrawal, state: PayoutState | null, now: Date): Promise<void> {
  await inTx(deps.db, async (trx) => {
    const row = await trx.selectFrom('withdrawals').selectAll().where('id', '=', w.id).where('status', '=', 'PROCESSING').where('payout_ref', '=', w.payout_ref!).forUpdate().executeTakeFirst();
    if (!row) return; // settled meanwhile (an operator, or another worker)
    const providerId = state && state.status !== 'FAILED' ? state.providerId : undefined;
    const columns: FinalColumns = { next_attempt_at: null, last_error: null, ...(providerId ? { external_id: providerId } : {}) };
    if (state?.status === 'COMPLETED') await finish(deps, trx, row, { status: 'COMPLETED' }, columns);
    else if (state?.status === 'FAILED') await finish(deps, trx, row, { status: 'FAILED', reason: state.reason }, columns);
    else await trx.updateTable('withdrawals').set({ ...columns, updated_at: now }).where('id', '=', w.id).execute();
  });
}

/**
 * A connector's confirmed word on one of its payouts (it asked findPayout itself): recorded on the
 * withdrawal it sent under that reference, if it is still PROCESSING; anything else changes nothing.
 */
export async function applyPayout(deps: WithdrawalDeps, connector: string, reference: string, state: PayoutState): Promise<void> {
  const w = await deps.db.selectFrom('withdrawals').selectAll().where('provider', '=', connector).where('payout_ref', '=', reference).where('status', '=', 'PROCESSING').executeTakeFirst();
  if (w) await record(deps, w, state, new Date());
}

/**
 * The payouts' janitor and reconciliation: a withdrawal PROCESSING for longer than
 * JANITOR_GRACE_SECONDS (its answer lost, its notification lost, its worker dead, or its PSP still
 * processing) is asked about by its reference. Final there: recorded once. Unknown there: sent
 * again under the same reference (never paid twice).
 */
export async function followPayouts(deps: WithdrawalDeps, now = new Date(), batch = 50): Promise<number> {
  const stuck = await deps.db
    .selectFrom('withdrawals')
    .selectAll()
    .where('status', '=', 'PROCESSING')
    .where('payout_ref', 'is not', null)
    .where('updated_at', '<', new Date(now.getTime() - deps.janitorGraceSeconds * 1000))
    .orderBy('updated_at')
    .limit(batch)
    .execute();
  for (const w of stuck) {
    try {
      const connector = deps.connectors.of(w.provider!, 'PAYOUT');
      const state = await connector.findPayout(w.payout_ref!);
      if (state) {
        await record(deps, w, state, now);
        continue;
      }
      await deps.db.updateTable('withdrawals').set((eb) => ({ payout_attempts: eb('payout_attempts', '+', 1) })).where('id', '=', w.id).execute();
      await settle(deps, w, await sendAndAsk(connector, w), now);
    } catch {
      await inTx(deps.db, (trx) => trx.updateTable('withdrawals').set({ updated_at: now }).where('id', '=', w.id).where('status', '=', 'PROCESSING').execute());
    }
  }
  return stuck.length;
}
