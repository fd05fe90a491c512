// The payout job and its janitor. A withdrawal is claimed (PENDING -> PROCESSING, its reference
// chosen once) and committed; the connector is asked to send it outside any database transaction;
// its answer is SENT (the outcome follows: asked at once, then by notification or the janitor) or
// FAILED outright. The outcome is recorded in its own transaction, guarded by the status, so an
// operator or another worker that got there first wins and the late one does nothing.
import { inTx } from '../../db/index.ts';
import type { Withdrawal } from '../../db/types.ts';
import type { PayoutRequest, PayoutSent, PayoutState } from '../../payments/connector.ts';
import { finish, type WithdrawalDeps } from './service.ts';

const requestOf = (w: Withdrawal): PayoutRequest => ({ externalId: w.external_id!, amountCents: w.net_amount_cents, destination: { type: 'pix_key', pixKeyType: w.pix_key_type, pixKey: w.pix_key }, description: w.description });

/**
 * One sweep: claims up to `batch` PENDING withdrawals, marks them PROCESSING with the connector
 * that takes them and commits; then sends each. Development withdrawals use the sandbox; production
 * ones only when PAYOUT_PROVIDER is configured (otherwise they wait for an operator). Safe with any
 * number of workers (FOR UPDATE SKIP LOCKED).
 */
export async function processPayouts(deps: WithdrawalDeps, now = new Date(), batch = 50): Promise<number> {
  const { db, connectors } = deps;
  const claimed = await inTx(db, async (trx) => {
    let q = trx.selectFrom('withdrawals').selectAll().where('status', '=', 'PENDING');
    if (!connectors.offers(true, 'PAYOUT')) q = q.where('livemode', '=', false);
    const rows = await q.orderBy('created_at').limit(batch).forUpdate().skipLocked().execute();
    const out: Withdrawal[] = [];
    const at = new Date();
    for (const w of rows) {
      const connector = connectors.forNew(w.livemode, 'PAYOUT');
      out.push(
        await trx
          .updateTable('withdrawals')
          .set((eb) => ({
            status: 'PROCESSING',
            provider: connector.name,
            processed_at: w.processed_at ?? at,
            // Chosen once: a re-send after a crash carries the same reference (connectors dedupe on it).
            external_id: w.external_id ?? `payout_${w.id.replace(/-/g, '')}`,
            payout_attempts: eb('payout_attempts', '+', 1),
            updated_at: at,
          }))
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

/** Sends a claimed payout and records what is known of it; an unknown outcome is left to the janitor. */
async function send(deps: WithdrawalDeps, w: Withdrawal, now: Date): Promise<void> {
  const connector = deps.connectors.of(w.provider!, 'PAYOUT');
  let sent: PayoutSent;
  let state: PayoutState | null = null;
  try {
    sent = await connector.sendPayout(requestOf(w));
    // Taken: asked at once, so a connector that settles at once (the sandbox) is recorded now.
    state = sent.status === 'FAILED' ? sent : await connector.findPayout(w.external_id!);
  } catch {
    return; // unknown outcome: stays PROCESSING until the janitor asks the connector (followPayouts)
  }
  await record(deps, w, state, now);
}

/**
 * A connector's confirmed word on one of its payouts (it asked findPayout itself): recorded on the
 * withdrawal it sent under that reference, if it is still PROCESSING; anything else changes nothing.
 */
export async function applyPayout(deps: WithdrawalDeps, connector: string, reference: string, state: PayoutState): Promise<void> {
  const w = await deps.db.selectFrom('withdrawals').selectAll().where('external_id', '=', reference).where('provider', '=', connector).where('status', '=', 'PROCESSING').executeTakeFirst();
  if (w) await record(deps, w, state, new Date());
}

/** Records a payout's final state on a withdrawal still PROCESSING under this reference; else marks it seen. */
async function record(deps: WithdrawalDeps, w: Withdrawal, state: PayoutState | null, now: Date): Promise<void> {
  await inTx(deps.db, async (trx) => {
    const row = await trx.selectFrom('withdrawals').selectAll().where('id', '=', w.id).where('status', '=', 'PROCESSING').where('external_id', '=', w.external_id!).forUpdate().executeTakeFirst();
    if (!row) return; // settled meanwhile (an operator, or another worker)
    if (state?.status === 'COMPLETED') await finish(deps, trx, row, { status: 'COMPLETED' });
    else if (state?.status === 'FAILED') await finish(deps, trx, row, { status: 'FAILED', reason: state.reason });
    else await trx.updateTable('withdrawals').set({ updated_at: now }).where('id', '=', w.id).execute();
  });
}

/**
 * The payouts' janitor: a withdrawal PROCESSING for longer than JANITOR_GRACE_SECONDS (its answer
 * lost, its worker dead, or its connector still processing) is asked about by its reference. Final
 * there: recorded once. Unknown there: sent again under the same reference (never paid twice).
 */
export async function followPayouts(deps: WithdrawalDeps, now = new Date(), batch = 50): Promise<number> {
  const stuck = await deps.db
    .selectFrom('withdrawals')
    .selectAll()
    .where('status', '=', 'PROCESSING')
    .where('provider', 'is not', null)
    .where('updated_at', '<', new Date(now.getTime() - deps.janitorGraceSeconds * 1000))
    .orderBy('updated_at')
    .limit(batch)
    .execute();
  for (const w of stuck) {
    try {
      const connector = deps.connectors.of(w.provider!, 'PAYOUT');
      let state = await connector.findPayout(w.external_id!);
      if (!state) {
        await deps.db.updateTable('withdrawals').set((eb) => ({ payout_attempts: eb('payout_attempts', '+', 1) })).where('id', '=', w.id).execute();
        const sent = await connector.sendPayout(requestOf(w));
        state = sent.status === 'FAILED' ? sent : await connector.findPayout(w.external_id!);
      }
      await record(deps, w, state, now);
    } catch {
      await inTx(deps.db, (trx) => trx.updateTable('withdrawals').set({ updated_at: now }).where('id', '=', w.id).where('status', '=', 'PROCESSING').execute());
    }
  }
  return stuck.length;
}
