// The tries of a production card charge, one row per connector asked (failover.ts), and the switch
// of the transaction's provider to the next connector before that one is called.
import { sql } from 'kysely';
import { uuidv7Ordered } from '../../db/ids.ts';
import { GroupCommit, type GroupCommitOptions } from '../../db/group-commit.ts';
import { deferred, flushDeferred } from '../../db/deferred.ts';
import type { Db, Executor, Trx } from '../../db/index.ts';
import type { CardAttempt, CardAttemptOutcome } from '../../db/types.ts';

/** The reason of a try whose call got no answer but whose lookup found the charge (adopted). */
export const ADOPTED = 'found by reference after no answer';

export interface AttemptEnd {
  outcome: Exclude<CardAttemptOutcome, 'PENDING'>;
  code?: string | null;
  reason?: string | null;
  latencyMs?: number | null;
}

const pendingRow = (transactionId: string, connector: string, now: Date) => ({ id: uuidv7Ordered(), transaction_id: transactionId, connector, outcome: 'PENDING' as const, return_code: null, reason: null, latency_ms: null, created_at: now, updated_at: now });

/** How tries are batched on each database (GroupCommit; as creations, creation.ts). */
export const ATTEMPT_BATCH: Record<'postgres' | 'pglite', Pick<GroupCommitOptions<unknown, unknown>, 'maxBatch' | 'maxInFlight' | 'nextTurn'>> = {
  postgres: { maxBatch: 200, maxInFlight: 2 },
  pglite: { maxBatch: 200, maxInFlight: 1, nextTurn: true },
};

/**
 * Records tries as PENDING before their calls (a crash during a call leaves its try so): the tries
 * of concurrent charges, of any merchant, waiting while others are written go in one INSERT.
 */
export class AttemptWriter {
  private readonly writer: GroupCommit<ReturnType<typeof pendingRow>, void>;

  constructor(db: Db, opts: (typeof ATTEMPT_BATCH)['postgres']) {
    this.writer = new GroupCommit({
      ...opts,
      group: () => '',
      write: async (rows) => {
        await db.insertInto('card_attempts').values(rows).execute();
        return rows.map(() => undefined);
      },
    });
  }

  /** Records a try at `connector`; answers its id once it is stored. */
  async start(transactionId: string, connector: string, now = new Date()): Promise<string> {
    const row = pendingRow(transactionId, connector, now);
    await this.writer.submit(row);
    return row.id;
  }
}

export async function finishAttempt(db: Executor, id: string, end: AttemptEnd, now = new Date()): Promise<void> {
  const set = { outcome: end.outcome, return_code: end.code ?? null, reason: end.reason?.slice(0, 200) ?? null, latency_ms: end.latencyMs ?? null, updated_at: now };
  // In a batch of status changes (the try that answered finishes with the payment), at the batch's end.
  const later = deferred(db, 'card_attempts', 0, writeFinishes);
  if (later) later.push({ id, ...set });
  else await db.updateTable('card_attempts').set(set).where('id', '=', id).execute();
}

/** The tries a batch has finished, written together at its end (db/deferred.ts). */
async function writeFinishes(trx: Trx, rows: Array<{ id: string } & Record<string, unknown>>): Promise<void> {
  await sql`UPDATE card_attempts a SET outcome = r.outcome, return_code = r.return_code, reason = r.reason, latency_ms = r.latency_ms, updated_at = r.updated_at
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r (id uuid, outcome text, return_code text, reason text, latency_ms integer, updated_at timestamptz)
    WHERE a.id = r.id`.execute(trx);
}

/** Why a connector was skipped without a call. */
const SKIPPED = { outcome: 'SKIPPED', reason: 'circuit open: the connector failed repeatedly and was not called' } as const satisfies AttemptEnd;

/** A connector skipped without a call (its circuit is open); `recorded`: its try already written PENDING (by the creation statement). */
export async function skippedAttempt(db: Executor, transactionId: string, connector: string, recorded?: string, now = new Date()): Promise<void> {
  if (recorded) return finishAttempt(db, recorded, SKIPPED, now);
  await db
    .insertInto('card_attempts')
    .values({ ...pendingRow(transactionId, connector, now), ...SKIPPED })
    .execute();
}

/** The tries of a transaction, oldest first. */
export function attemptsOf(db: Executor, transactionId: string): Promise<CardAttempt[]> {
  return db.selectFrom('card_attempts').selectAll().where('transaction_id', '=', transactionId).orderBy('created_at').orderBy('id').execute();
}

/** Tries still PENDING at `connector` (their call's answer never recorded) take the janitor's outcome. */
export async function settleAttempts(db: Executor, transactionId: string, connector: string, end: AttemptEnd, now = new Date()): Promise<void> {
  await flushDeferred(db);
  await db
    .updateTable('card_attempts')
    .set({ outcome: end.outcome, reason: end.reason ?? null, return_code: end.code ?? null, updated_at: now })
    .where('transaction_id', '=', transactionId)
    .where('connector', '=', connector)
    .where('outcome', '=', 'PENDING')
    .execute();
}

/**
 * Moves a PENDING card charge from connector `from` to `to` before `to` is called, so everything
 * after (the janitor, captures, refunds) asks the right one; false when the row moved on meanwhile.
 */
export async function switchProvider(db: Executor, tx: { id: string; user_id: string }, from: string, to: string, now = new Date()): Promise<boolean> {
  const r = await db.updateTable('transactions').set({ provider: to, updated_at: now }).where('user_id', '=', tx.user_id).where('id', '=', tx.id).where('status', '=', 'PENDING').where('provider', '=', from).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Marks a PENDING charge as being worked on (before each call of the chain), so the janitor, which
 * waits JANITOR_GRACE_SECONDS after the last change, never settles it while a connector is asked.
 */
export async function heartbeat(db: Executor, tx: { id: string; user_id: string }, now = new Date()): Promise<void> {
  await db.updateTable('transactions').set({ updated_at: now }).where('user_id', '=', tx.user_id).where('id', '=', tx.id).where('status', '=', 'PENDING').execute();
}
