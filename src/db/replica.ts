// Reads from a streaming replica (DATABASE_REPLICA_URL): its pool, the probe that measures how far
// behind it is, and the fallback to the primary when it cannot be reached. Which reads may go there
// is decided in the routes, with `deps.reads.for(req.auth)` (db/read-router.ts).
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { ReplicaConfig } from '../config-replica.ts';
import { createPool, type Database } from './index.ts';
import { parseLsn, ReadRouter, type ProbeSample } from './read-router.ts';
import { RedisWriteMarks } from './write-marks.ts';
import type { DB } from './types.ts';

export { ReadRouter } from './read-router.ts';

/**
 * The reads router for this database: without a replica (or on PGlite) every read is the primary's
 * and nothing runs; with one, a pool on the replica and, once start() is called (by the HTTP app:
 * a worker has no replica reads), a probe every probeIntervalMs; both closed with the database.
 * With `redisUrl`, write marks shared with the other processes (read-your-writes across them).
 */
export function readRouter(database: Database, replica: ReplicaConfig | null, log: Logger, redisUrl: string | null = null, poolSize = 10): ReadRouter {
  if (!replica || !database.pg) return new ReadRouter(database.db, null, 0);
  const primary = database.pg.pool;
  // A replica that does not answer in a second is taken for down: its reads go to the primary.
  const pool = createPool({ connectionString: replica.url, max: poolSize, options: database.pg.options, connectionTimeoutMillis: 1000, keepAlive: true, allowExitOnIdle: true }, false, database.pg.named);
  let router: ReadRouter | undefined;
  const lost = (err: unknown) => router?.lost(err);
  pool.on('connect', (client) => readOnPrimaryWhenLost(client, primary, lost));
  // A replica read that cannot get a connection is made on the primary's pool instead.
  const fallback = {
    async connect() {
      try {
        return await pool.connect();
      } catch (err) {
        lost(err);
        return primary.connect();
      }
    },
    end: () => pool.end(),
    options: pool.options,
  };
  let stop = () => {};
  const start = () => {
    stop = probeLoop(router!, primary, pool, replica.probeIntervalMs, log);
  };
  router = new ReadRouter(database.db, new Kysely<DB>({ dialect: new PostgresDialect({ pool: fallback }) }), replica.maxLagMs, start);
  // With Redis, a merchant's write answered by another process counts too (db/write-marks.ts).
  const marks = redisUrl ? new RedisWriteMarks(redisUrl, replica.maxLagMs + 1000) : null;
  if (marks) router.share(marks);
  database.onClose(async () => {
    stop();
    await marks?.close();
    await router.replica?.destroy();
  });
  return router;
}

const READ = /^\s*(select|with)\b/i;

/** SQLSTATEs and socket errors after which a replica read is made again on the primary. */
const LOST = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006', '40001', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/**
 * A replica connection that dies under a read (the replica stopped), or a read the replica cancels
 * because replay needed its rows (40001, a recovery conflict): the same statement is run on the
 * primary. Only a SELECT outside a transaction block: inside one the error stands, and a BEGIN run
 * on a primary connection would leave that connection in a transaction.
 */
function readOnPrimaryWhenLost(client: pg.PoolClient, primary: pg.Pool, lost: (err: unknown) => void): void {
  const query = client.query as (...args: unknown[]) => Promise<unknown>;
  const c = client as unknown as { getTransactionStatus(): string | null };
  client.query = function (this: pg.PoolClient, ...args: unknown[]) {
    if (args.length !== 2 || typeof args[0] !== 'string' || !READ.test(args[0])) return query.apply(this, args);
    return query.apply(this, args).catch((err: { code?: string; message?: string }) => {
      const terminated = /Connection terminated|terminating connection/i.test(err?.message ?? '');
      if (!(LOST.has(err?.code ?? '') || terminated) || c.getTransactionStatus() !== 'I') throw err;
      if (err?.code !== '40001') lost(err);
      return primary.query(args[0] as string, args[1] as unknown[]);
    });
  } as typeof client.query;
}

/** Starts the probe; returns its stop. Never more than one probe at a time; the timer does not hold the process. */
function probeLoop(router: ReadRouter, primary: pg.Pool, replica: pg.Pool, intervalMs: number, log: Logger): () => void {
  let running = false;
  let inUse: boolean | undefined;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      router.observe(await probe(primary, replica));
      const status = router.status();
      if (status.inUse !== inUse) {
        inUse = status.inUse;
        if (inUse) log.info({ replica: status }, 'reads: the replica is in use');
        else log.warn({ replica: status }, 'reads: on the primary (%s)', status.reason);
      }
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * One sample: the primary's WAL insert position first (pg_current_wal_insert_lsn: covers every
 * commit already answered, even with synchronous_commit off), then the replica's replay position.
 */
async function probe(primary: pg.Pool, replica: pg.Pool): Promise<ProbeSample> {
  const startedAt = performance.now();
  let timer: NodeJS.Timeout | undefined;
  // A replica that stops answering mid-query must not hold the probe: it counts as down.
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('probe timed out')), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([sample(primary, replica, startedAt), timeout]);
  } catch (err) {
    return { startedAt, error: (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

const PROBE_TIMEOUT_MS = 2000;

// pool.query passes a callback: the replica's query is never run again on the primary (readOnPrimaryWhenLost).
async function sample(primary: pg.Pool, replica: pg.Pool, startedAt: number): Promise<ProbeSample> {
  const named = (where: string) => (err: Error) => Promise.reject(new Error(`${where}: ${err.message}`));
  const p = await primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn').catch(named('primary'));
  const r = await replica.query<{ lsn: string | null }>('SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()::text END AS lsn').catch(named('replica'));
  const replayed = r.rows[0]?.lsn;
  return { startedAt, primaryLsn: parseLsn(p.rows[0].lsn), replayLsn: replayed ? parseLsn(replayed) : null };
}
