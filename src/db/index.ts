// Database connection: embedded PGlite (default) or real PostgreSQL (DATABASE_URL), behind one Kysely.
import { Kysely, PGliteDialect, PostgresDialect, sql, type Transaction } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DB } from './types.ts';
import { migrations } from './migrations/index.ts';

export type Db = Kysely<DB>;
export type Trx = Transaction<DB>;
/** Either the root handle or a transaction: services take this and never reach for the root. */
export type Executor = Kysely<DB> | Transaction<DB>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Run raw LISTEN for a channel; returns an unlisten function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
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

export interface ConnectOptions {
  /** postgres:// URL; null = embedded PGlite. */
  url: string | null;
  /** PGlite data directory; null = in memory. */
  dataDir?: string | null;
  /** PostgreSQL schema to use (created if missing); tests isolate themselves this way. */
  schema?: string;
  poolSize?: number;
}

export async function connect(opts: ConnectOptions): Promise<Database> {
  if (opts.url) return connectPostgres(opts.url, opts.schema, opts.poolSize ?? 20);
  return connectPglite(opts.dataDir ?? null);
}

async function connectPostgres(url: string, schema: string | undefined, max: number): Promise<Database> {
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('invalid schema name');
  const options = schema ? `-c search_path=${schema}` : undefined;
  if (schema) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await c.end();
  }
  const pool = new pg.Pool({ connectionString: url, max, options });
  pool.on('error', () => {}); // idle client errors surface on the next query
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'postgres',
    async listen(channel, onNotify) {
      const client = new pg.Client({ connectionString: url, options });
      await client.connect();
      client.on('notification', (m) => m.channel === channel && onNotify(m.payload ?? ''));
      client.on('error', () => {});
      await client.query(`LISTEN ${channel}`);
      return async () => {
        await client.end().catch(() => {});
      };
    },
    async close() {
      await db.destroy();
    },
  };
}

async function connectPglite(dataDir: string | null): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  let dir: string | undefined;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    dir = join(dataDir, 'pgdata');
  }
  const pglite = await PGlite.create(dir, { parsers: { 1082: (v: string) => v } });
  const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    kind: 'pglite',
    async listen(channel, onNotify) {
      return pglite.listen(channel, onNotify);
    },
    async close() {
      await db.destroy();
    },
  };
}

/** Applies pending migrations. With a schema, Kysely's own bookkeeping tables live there too. */
export async function migrate(db: Db, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema && { migrationTableSchema: schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
  }
}

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

/** Runs fn in a transaction. Services receive the transaction handle explicitly. */
export function inTx<T>(db: Executor, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Trx);
  return (db as Db).transaction().execute(fn);
}
