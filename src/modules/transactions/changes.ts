// Status changes in batches (group commit, see db/group-commit.ts and docs/decisions.md): the
// changes of one group of merchants and environment (on PostgreSQL a merchant's shard, on PGlite the
// merchant) that wait while another batch of theirs is being written run in ONE database
// transaction and commit together.
//
// Why: a change that moves money (PAID, a refund) locks the merchant's ledger accounts until its
// commit, so one merchant's changes run one after the other, each holding the lock through its own
// commit and WAL flush. Measured before this (bench F, 50 connections on one merchant): 141-166
// changes/s, p99 1.4-1.6 s, the connections queued on the accounts' row lock. In a batch the lock
// is taken once and the commit is shared, the transactions the changes name are locked by one
// statement, and the changes' rows, journals and events are written at the batch's end, one
// statement each for all of them (changed-rows.ts, db/deferred.ts). Every change's work must be safe
// to run again (it is only database work on the transaction it is given).
//
// Each change keeps its own outcome: one that throws is rolled back to its savepoint (its writes,
// its row locks and its notifications go; its neighbours' stay) and its caller gets its error. A
// batch is first run without savepoints, and with them only once one of its changes threw. A
// change that lost a deadlock or a serialization check (a batch holds several rows' locks at once,
// in an order a lone change would not take them) is run again alone, after its batch. A batch that
// fails as a whole (its commit, a lost connection) is run again one change at a time, as
// GroupCommit does for any batch.
import { sql } from 'kysely';
import { deferWrites, discardDeferred, flushDeferred } from '../../db/deferred.ts';
import { GroupCommit, type GroupCommitOptions } from '../../db/group-commit.ts';
import { inTx, inTxRetried, lostRace, type Db, type Trx } from '../../db/index.ts';
import type { Scope } from '../../http/scope.ts';
import { lockBatch } from './changed-rows.ts';

/** A change of a batch run without savepoints threw: the batch is run again with them. */
class UnitFailed extends Error {
  constructor(cause: unknown) {
    super('a change of the batch failed', { cause });
  }
}

/** One change: work on the locked rows of one scope, inside the transaction it is given. */
interface Unit {
  scope: Scope;
  work: (trx: Trx) => Promise<unknown>;
  /** The transaction it changes, locked with the batch's others before the batch's changes run. */
  lock?: string;
}

type Outcome = { value: unknown } | { error: unknown } | { alone: true };

export interface ChangeBatchOptions {
  /** At most this many changes per transaction. */
  maxBatch: number;
  /** At most this many batches at a time; one group's, one at a time. */
  maxInFlight: number;
  /**
   * Merchants share batches in this many groups per environment, each merchant always in the same
   * one (by its id), so that many merchants' lone changes still share a commit and the closing
   * statements. Without it, a batch is one merchant's.
   */
  shards?: number;
  /** Start batches on the next turn of the event loop (PGlite, see GroupCommit). */
  nextTurn?: boolean;
  /** Told of every batch once it has finished (the benchmark's measurements, see GroupCommit). */
  observe?: GroupCommitOptions<unknown, unknown>['observe'];
}

/** How status changes are batched on each database. */
export const CHANGE_BATCH: Record<'postgres' | 'pglite', ChangeBatchOptions> = {
  // Four groups of merchants, their batches side by side; one group's, one at a time.
  postgres: { maxBatch: 100, maxInFlight: Infinity, shards: 4 },
  pglite: { maxBatch: 100, maxInFlight: 1, nextTurn: true },
};

export class ChangeWriter {
  private readonly writer: GroupCommit<Unit, Outcome>;
  private readonly db: Db;
  /** maxBatch 1: no batching at all, every change in a transaction of its own as it comes. */
  private readonly alone: boolean;

  constructor(db: Db, opts: ChangeBatchOptions) {
    this.db = db;
    this.alone = opts.maxBatch === 1;
    this.writer = new GroupCommit<Unit, Outcome>({
      ...opts,
      onePerGroup: true,
      group: opts.shards ? (u) => `${shardOf(u.scope.userId, opts.shards!)}:${u.scope.livemode}` : (u) => `${u.scope.userId}:${u.scope.livemode}`,
      write: (units) => this.write(units),
    });
  }

  /**
   * Runs `work` in a database transaction, with the other changes of this scope waiting at that
   * moment; resolves with what it returned once that transaction committed, or rejects with what
   * it threw (nothing it wrote stays).
   */
  async run<T>(scope: Scope, work: (trx: Trx) => Promise<T>, lock?: string): Promise<T> {
    if (this.alone) return inTx(this.db, work);
    const outcome = await this.writer.submit({ scope, work, lock });
    if ('error' in outcome) throw outcome.error;
    if ('alone' in outcome) return inTxRetried(this.db, work);
    return outcome.value as T;
  }

  private async write(units: Unit[]): Promise<Outcome[]> {
    // Alone: a transaction of its own, its error its caller's (GroupCommit rejects it); a lost
    // deadlock is tried again (inTxRetried: the other side may have been a batch).
    if (units.length === 1) {
      try {
        return [{ value: await inTx(this.db, units[0].work) }];
      } catch (error) {
        if (lostRace(error)) return [{ alone: true }];
        throw error;
      }
    }
    // Most batches have no change that fails: they run without savepoints (two round trips fewer a
    // change), their journals and events written at the end for all of them (db/deferred.ts). When
    // one throws, or those writes do, the batch is rolled back and run again with a savepoint a change.
    try {
      return await inTx(this.db, async (trx) => {
        deferWrites(trx);
        await lockRows(trx, units);
        const out: Outcome[] = [];
        for (const unit of units) out.push({ value: await unit.work(trx).catch((error: unknown) => Promise.reject(new UnitFailed(error))) });
        await flushDeferred(trx).catch((error: unknown) => Promise.reject(new UnitFailed(error)));
        return out;
      });
    } catch (error) {
      if (!(error instanceof UnitFailed)) throw error;
      return this.writeWithSavepoints(units);
    }
  }

  private writeWithSavepoints(units: Unit[]): Promise<Outcome[]> {
    return inTx(this.db, async (trx) => {
      deferWrites(trx);
      await lockRows(trx, units);
      const out: Outcome[] = [];
      for (const unit of units) {
        await sql`SAVEPOINT change`.execute(trx);
        try {
          const value = await unit.work(trx);
          await flushDeferred(trx);
          await sql`RELEASE SAVEPOINT change`.execute(trx);
          out.push({ value });
        } catch (error) {
          discardDeferred(trx);
          await sql`ROLLBACK TO SAVEPOINT change`.execute(trx);
          await sql`RELEASE SAVEPOINT change`.execute(trx);
          out.push(lostRace(error) ? { alone: true } : { error });
        }
      }
      return out;
    });
  }
}

/** A merchant's group among `shards`: from the random tail of its id (UUIDv7). */
function shardOf(userId: string, shards: number): number {
  return Number.parseInt(userId.slice(-8), 16) % shards;
}

/** The transactions the batch's changes name, locked in one statement (their rows kept for lockTransaction). */
async function lockRows(trx: Trx, units: Unit[]): Promise<void> {
  await lockBatch(trx, [...new Set(units.flatMap((u) => (u.lock ? [u.lock] : [])))]);
}
