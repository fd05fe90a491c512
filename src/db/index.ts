// Database connection: embedded PGlite (default) or real PostgreSQL (DATABASE_URL), behind one Kysely.
import { Kysely, PGliteDialect, PostgresDialect, sql, type DatabaseIntrospector, type Transaction } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { withPreparedStatements } from './pglite-prepared.ts';
import { address, listenPostgres, pooledConnection } from './listen.ts';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DB } from './types.ts';
import { ConfigError } from '../config.ts';
import { lockDataDir } from './lock.ts';
import { migrations } from './migrations/index.ts';
import { ensurePartitions } from './partitions.ts';

export type Db = Kysely<DB>;
export type Trx = Transaction<DB>;
/** Either the root handle or a transaction: services take this and never reach for the root. */
export type Executor = Kysely<DB> | Transaction<DB>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Run raw LISTEN for a channel; returns an unlisten function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** PostgreSQL only: the primary's pool, its connection options and whether statements are named (a read replica's pool follows them and falls back to it). */
  pg?: { pool: pg.Pool; options: string | undefined; named: boolean };
  /** Runs `fn` when the database closes, before its pool (the replica's router: db/replica.ts). */
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

/** close() for a Database: the registered onClose functions, then `last` (the pool). */
function closer(last: () => Promise<void>): Pick<Database, 'onClose' | 'close'> {
  const before: (() => Promise<void>)[] = [];
  return {
    onClose: (fn) => void before.push(fn),
    async close() {
      try {
        for (const fn of before.splice(0)) await fn();
      } finally {
        await last();
      }
    },
  };
}

// int8 (bigint) holds money and counters: parse as number (amounts stay far below 2^53).
const int8 = (v: string) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error('bigint out of safe integer range');
  return n;
};
pg.types.setTypeParser(20, int8);
// date stays a 'YYYY-MM-DD' string: a calendar date has no time zone.
pg.types.setTypeParser(1082, (v: string) => v);

/*
 * Named prepared statements (PostgreSQL only). PostgreSQL parses, analyses and plans every
 * statement it is sent as plain text; for the big fixed statements of the hot paths that is most
 * of their cost (~0.45 ms of the creation statement's ~0.75 ms). A text registered here with
 * prepared() is sent by the pool below as pg's { name, text, values }: parsed once per connection
 * and then only bound and executed. Results, errors and transactions are as before. Only texts
 * that are the same for every call may be registered (values as $n parameters; no IN lists of
 * varying length); a builder that makes a few shapes registers each under the same family and gets
 * one name per shape, up to MAX_SHAPES (then the text is simply not prepared). PGlite does the same
 * outside transactions (db/pglite-prepared.ts).
 */
const MAX_SHAPES = 16;
const preparedNames = new Map<string, string>(); // text -> statement name
const shapesOf = new Map<string, number>(); // family -> shapes registered

/** Registers `text` as a named prepared statement of `family` (see above); returns the text. */
export function prepared(family: string, text: string): string {
  if (preparedNames.has(text)) return text;
  if (!/^[a-z_][a-z0-9_]*$/.test(family)) throw new Error(`invalid prepared statement family: ${family}`);
  const shapes = shapesOf.get(family) ?? 0;
  if (shapes < MAX_SHAPES) {
    shapesOf.set(family, shapes + 1);
    preparedNames.set(text, `${family}_${shapes + 1}`);
  }
  return text;
}

/*
 * Every other statement a process sends again and again is prepared as well, once seen AUTO_AFTER
 * times (PostgreSQL only): a card payment's PAID change is ~15 small statements, and their parse and
 * bind (planning) cost PostgreSQL more than their execution (2.7 ms of 5.1 ms, bench/HISTORY.md
 * 2026-11-28). Only plain DML (select, insert, update, delete, with) and at most AUTO_MAX texts, so
 * texts that vary (IN lists, multi-row VALUES) cannot grow the per-connection caches without bound.
 */
const AUTO_AFTER = 3;
const AUTO_MAX = 512;
const COUNTED_MAX = 4096;
const autoNames = new Map<string, string>();
const seenTimes = new Map<string, number>();
const DML = /^\s*(select|insert|update|delete|with)\b/i;

function autoName(text: string): string | undefined {
  const named = autoNames.get(text);
  if (named || autoNames.size >= AUTO_MAX || text.length > 8192 || !DML.test(text)) return named;
  const times = (seenTimes.get(text) ?? 0) + 1;
  if (times < AUTO_AFTER) {
    if (seenTimes.size < COUNTED_MAX || seenTimes.has(text)) seenTimes.set(text, times);
    return undefined;
  }
  seenTimes.delete(text);
  const name = `auto_${autoNames.size + 1}`;
  autoNames.set(text, name);
  return name;
}

/** The statement name of a registered text, for raw pg callers (the benchmark's SQL floor). */
export const preparedName = (text: string): string | undefined => preparedNames.get(text);

/**
 * Makes a pooled client send registered texts as named statements (Kysely calls query(text, values)).
 * One difference from plain text: if a table the statement reads changes its columns meanwhile (a
 * migration run by a newer process), PostgreSQL refuses a prepared `*` whose result would change
 * ("cached plan must not change result type", 0A000). Outside a transaction block nothing has run
 * then, so the statement is dropped and prepared anew, once; inside one the error stands.
 *
 * Every query(text, values) goes to pg in its callback form, the promise made here: pg's own promise
 * form made the garbage collector promote about twice as much of each request's data to the old
 * generation (its young-generation pauses were 5-7 ms every half second at 1,000 creations/s;
 * measured in bench/HISTORY.md, 2026-11-26), through a reference we did not find.
 */
function usePrepared(client: pg.PoolClient, named: boolean): void {
  const query = client.query as (...args: unknown[]) => unknown;
  const c = client as unknown as { getTransactionStatus(): string | null; connection: { parsedStatements: Record<string, string> } };
  const send = (self: pg.PoolClient, config: object) =>
    new Promise<unknown>((resolve, reject) => query.call(self, config, (err: Error | null, res: unknown) => (err ? reject(err) : resolve(res))));
  client.query = function (this: pg.PoolClient, ...args: unknown[]) {
    if (args.length !== 2 || typeof args[0] !== 'string' || !Array.isArray(args[1])) return query.apply(this, args);
    const [text, values] = args as [string, unknown[]];
    const name = named ? (preparedNames.get(text) ?? autoName(text)) : undefined;
    if (!name) return send(this, { text, values });
    const run = () => send(this, { name, text, values });
    const stale = c.getTransactionStatus() === 'I' && name in c.connection.parsedStatements;
    return run().catch(async (err: { code?: string }) => {
      if (err?.code !== '0A000' || !stale) throw err;
      await send(this, { text: `DEALLOCATE ${name}` });
      delete c.connection.parsedStatements[name];
      return run();
    });
  } as typeof client.query;
}

export interface ConnectOptions {
  /** postgres:// URL; null = embedded PGlite. */
  url: string | null;
  /** PGlite data directory; null = in memory. */
  dataDir?: string | null;
  /** PostgreSQL schema to use (created if missing); tests isolate themselves this way. */
  schema?: string;
  poolSize?: number;
  /** PostgreSQL only: send registered and repeated texts as named prepared statements. Default:
   *  yes, unless the server is reached through a pooler (pooledConnection), which in transaction
   *  mode would run a statement on a server connection that never prepared it. */
  namedStatements?: boolean;
  /** In-memory PGlite only (the test suite's): start from a data directory dump (`dumpDataDir`: its
   *  migrated template, as initdb is most of a fresh start), with settings (`-c`) over PGlite's own. */
  pglite?: { loadDataDir?: Blob; settings?: Record<string, string> };
}

export async function connect(opts: ConnectOptions): Promise<Database> {
  if (opts.url) return connectPostgres(opts.url, opts.schema, opts.poolSize ?? 20, opts.namedStatements);
  return connectPglite(opts.dataDir ?? null, opts.pglite);
}

// Kept open through any lull (the rest close after pg's 10 s idle): one reopened costs a fork and every
// named statement prepared again, which the first requests of the next burst wait on (bench H).
const WARM_CONNECTIONS = 10;

async function connectPostgres(url: string, schema: string | undefined, max: number, namedStatements?: boolean): Promise<Database> {
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('invalid schema name');
  const options = schema ? `-c search_path=${schema}` : undefined;
  // One connection first, so that a server that cannot be reached is named before anything else
  // (and a black-holed address gives up instead of hanging: pg has no connect timeout by default).
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  c.on('error', () => {});
  try {
    await c.connect();
  } catch (err) {
    throw unreachable(url, err);
  }
  let named = namedStatements;
  try {
    if (schema) await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    named ??= !(await pooledConnection(c));
  } finally {
    await c.end().catch(() => {});
  }
  const pool = createPool({ connectionString: url, max, min: Math.min(max, WARM_CONNECTIONS), options }, true, named);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'postgres',
    listen: (channel, onNotify) => listenPostgres(url, options, db, channel, onNotify),
    pg: { pool, options, named },
    ...closer(() => db.destroy()),
  };
}

/**
 * A pg pool whose clients send registered texts as named prepared statements unless `named` is false
 * (behind a pooler; usePrepared). With
 * `waitWhenBusy`, a server out of connections (other processes' pools at their peak) is tried
 * again after a moment, where failing would answer the request with an error; a read replica's
 * pool does not wait (its reads go to the primary instead).
 */
export function createPool(config: pg.PoolConfig, waitWhenBusy: boolean, named: boolean): pg.Pool {
  const pool = new pg.Pool(config);
  if (waitWhenBusy) {
    // Only the promise form is wrapped: pg-pool's own query() calls connect(callback), which keeps
    // the original (a wrapper taking no arguments would drop the callback and hang that query).
    const connectOnce = pool.connect.bind(pool);
    const connectRetrying = retryWhenBusy(() => connectOnce());
    pool.connect = ((cb?: Parameters<typeof connectOnce>[0]) => (cb ? connectOnce(cb) : connectRetrying())) as typeof pool.connect;
  }
  pool.on('error', () => {}); // idle client errors surface on the next query
  pool.on('connect', (client) => {
    // pg-pool listens for errors on idle clients only: a connection lost while a transaction holds it
    // between statements (PgBouncer or PostgreSQL restarting) would be an uncaught 'error' that ends
    // the process. Its next statement fails instead, and the pool drops it on release.
    client.on('error', () => {});
    usePrepared(client, named); // before the new client is handed out
  });
  return pool;
}

/**
 * A PostgreSQL server that cannot take another connection now: too many clients (53300: every
 * process's pools together beyond max_connections) or not accepting any (57P03: starting, stopping).
 */
export function databaseBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '53300' || code === '57P03';
}

/** `connect`, tried again after short pauses (jittered, about 1.6 s in all) while the server is busy (databaseBusy). */
export function retryWhenBusy<T>(connect: () => Promise<T>, pausesMs: readonly number[] = [50, 150, 400, 1000]): () => Promise<T> {
  return async () => {
    for (let i = 0; ; i++) {
      try {
        return await connect();
      } catch (err) {
        if (!databaseBusy(err) || i >= pausesMs.length) throw err;
        await new Promise((r) => setTimeout(r, pausesMs[i] * (0.5 + Math.random())));
      }
    }
  };
}

const CONNECT_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is PostgreSQL running, on that port?)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  '28P01': 'authentication failed (check the user and password)',
  '28000': 'authentication refused (check the user and pg_hba.conf)',
  '3D000': 'database does not exist',
};

/**
 * A failed first connection as an operator reads it: the variable, the address (never the
 * password) and the reason, without a stack (a ConfigError). Other errors pass through as they are.
 */
function unreachable(url: string, err: unknown): unknown {
  const e = err as { code?: string; message?: string; errors?: { code?: string }[] };
  const code = e?.code ?? e?.errors?.[0]?.code; // localhost tried over IPv6 and IPv4: an AggregateError
  const timeout = /timeout/i.test(e?.message ?? '');
  const reason = (code && CONNECT_ERRORS[code]) ?? (timeout ? CONNECT_ERRORS.ETIMEDOUT : undefined);
  if (!reason) return err;
  return new ConfigError(`Cannot reach PostgreSQL at ${address(url)} (DATABASE_URL): ${reason}.`);
}

async function connectPglite(dataDir: string | null, { loadDataDir, settings = {} }: NonNullable<ConnectOptions['pglite']> = {}): Promise<Database> {
  const lib = await import('@electric-sql/pglite');
  let dir: string | undefined;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    dir = join(dataDir, 'pgdata');
  }
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  const startParams = [...lib.PGlite.defaultStartParams, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  let pglite: Awaited<ReturnType<typeof lib.PGlite.create>>;
  try {
    pglite = await lib.PGlite.create(dir, { parsers: { 1082: (v: string) => v }, startParams, loadDataDir });
  } catch (err) {
    unlock();
    throw err;
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite: withPreparedStatements(pglite, lib, preparedName) }) });
  return {
    db,
    kind: 'pglite',
    async listen(channel, onNotify) {
      return pglite.listen(channel, onNotify);
    },
    ...closer(async () => {
      try {
        await db.destroy();
      } finally {
        unlock();
      }
    }),
  };
}

/** Serialises the processes that migrate one database at start (any constant; Kysely's own is another). */
const MIGRATION_LOCK = 7_402_911_551;

/**
 * Applies pending migrations. With a schema, Kysely's own bookkeeping tables live there too.
 * All of it runs in one transaction that first takes a transaction-level advisory lock: Kysely's
 * migrator takes a session-level one on a connection of its own and releases it after its
 * transaction, three transactions that PgBouncer in transaction mode may give three server
 * connections, leaving the lock held on one of them; the next process to start then waited in
 * migrate (up to Kysely's hour) until PgBouncer closed that connection. Given a transaction, the
 * migrator takes and releases its lock inside it, and ours is held until the commit.
 */
export async function migrate(db: Db, schema?: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    const { error, results } = await migratorOf(trx, schema).migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (error || failed) {
      throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
    }
  });
  // Every start: the history's week partitions reach DAYS_AHEAD days past now (src/db/partitions.ts).
  await ensurePartitions(db);
}

/** Kysely's migrator over Cofre's migrations, seeing only `schema` (below). */
export function migratorOf(db: Executor, schema?: string): Migrator {
  return new Migrator({ db: withSchemaIntrospection(db, schema), provider: { getMigrations: async () => migrations }, ...(schema && { migrationTableSchema: schema }) });
}

/**
 * `db` as the migrator sees it: its introspection (which the migrator uses only to find its own
 * schema and tables) looks at the schema being migrated alone. Kysely's lists every table of every
 * schema with a privilege check per schema, which fails with 'schema "<another>" does not exist'
 * when another session drops one meanwhile (tests and benchmarks drop theirs).
 */
function withSchemaIntrospection<D extends Executor>(db: D, schema: string | undefined): D {
  const target = sql`coalesce(${schema ?? null}::text, current_schema()::text)`;
  const getTables = async () => {
    const { rows } = await sql<{ name: string; schema: string }>`
      SELECT c.relname::text AS name, n.nspname::text AS schema FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND n.nspname::text = ${target}`.execute(db);
    return rows.map((r) => ({ ...r, isView: false, isForeign: false, columns: [] }));
  };
  const introspection: DatabaseIntrospector = {
    async getSchemas() {
      const { rows } = await sql<{ name: string }>`SELECT nspname::text AS name FROM pg_namespace WHERE nspname::text = ${target}`.execute(db);
      return rows;
    },
    getTables,
  };
  return new Proxy(db, {
    get(kysely, prop) {
      if (prop === 'introspection') return introspection;
      const value = Reflect.get(kysely, prop);
      return typeof value === 'function' ? value.bind(kysely) : value;
    },
  });
}

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

/** A transaction that lost a deadlock or a serialization check: nothing of it stayed, so it may run again. */
export const lostRace = (err: unknown) => ['40P01', '40001'].includes((err as { code?: string })?.code ?? '');

/**
 * inTx, run again when it lost a deadlock (PostgreSQL picks a victim among the transactions waiting
 * on each other: the other side may be another process's batch of several rows): up to `runs` times
 * in all, a few jittered milliseconds apart. fn must do nothing outside the transaction.
 */
export async function inTxRetried<T>(db: Db, fn: (trx: Trx) => Promise<T>, runs = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTx(db, fn);
    } catch (err) {
      if (!lostRace(err) || attempt >= runs) throw err;
      await new Promise((resolve) => setTimeout(resolve, attempt * (5 + Math.random() * 20)));
    }
  }
}

/** Runs fn in a transaction. Services receive the transaction handle explicitly. */
export function inTx<T>(db: Executor, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Trx);
  return (db as Db).transaction().execute(fn);
}
