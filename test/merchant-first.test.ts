// docs/scaling.md, kept true: every statement the hot paths (creation, confirmation, refund,
// withdrawal, lists) make PostgreSQL run names the merchant of each merchant-keyed table it reads or
// changes, so the schema can be distributed by merchant (Citus, or a router) without rewriting them.
// The statements are the ones PostgreSQL actually ran, read from pg_stat_statements on a server of
// the test's own (the shared one does not preload it).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { removePair, startPgPair, type PgPair } from '../scripts/pg-pair.ts';
import { connect, migrate, type Database } from '../src/db/index.ts';
import type { App } from '../src/deps.ts';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { appConfig, appOver, call, freePort, merchant, onPostgres, type Merchant } from './helpers.ts';
import { body as txBody, card } from './transactions-kit.ts';

const skip = !onPostgres && 'starts a PostgreSQL server of its own with pg_stat_statements: run on the PostgreSQL pass only';

/**
 * Statements on merchant-keyed tables that find their row by a value unique across merchants, not
 * by the merchant: each is a lookup a sharded deployment answers from a global table (docs/scaling.md).
 */
const GLOBAL_LOOKUPS: { table: string; by: RegExp; why: string }[] = [
  { table: 'api_keys', by: /\bkey_hash\s*=/, why: 'an API key names its merchant: looked up by its hash (global table)' },
];

let pair: PgPair | undefined;
let database: Database | undefined;
let app: App;
let m: Merchant;

before(async () => {
  if (skip) return;
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  pair = await startPgPair({ dir: mkdtempSync(join(tmpdir(), 'cofre-merchant-first-')), primaryPort, replicaPort, settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.max': 5000 } });
  database = await connect({ url: pair.primaryUrl, dataDir: null, poolSize: 5 });
  await migrate(database.db);
  await sql`CREATE EXTENSION pg_stat_statements`.execute(database.db);
  app = await appOver(appConfig(), database, { limiter: new MemoryLimiter(), logStream: new Writable({ write: (_c, _e, cb) => cb() }) });
  m = await merchant(app);
});

after(async () => {
  await app?.close();
  await database?.close();
  if (pair) await removePair(pair);
});

/** The hot paths, as a merchant's integration drives them (sandbox). */
async function hotPaths(key: string) {
  const ok = (res: { status: number; raw: string }, status: number) => assert.equal(res.status, status, res.raw);
  const create = async (body: Record<string, unknown>) => {
    const res = await call(app, 'POST', '/api/v1/transactions', { key, body: txBody(body) });
    ok(res, 201);
    return res.body.transaction.id as string;
  };
  const pix = await create({ paymentMethod: 'PIX' });
  await create({ paymentMethod: 'BOLETO' });
  await create({ paymentMethod: 'CREDIT_CARD', card: card() });
  ok(await call(app, 'POST', `/api/v1/transactions/${pix}/simulate`, { key, body: { outcome: 'PAID' } }), 200);
  ok(await call(app, 'POST', `/api/v1/transactions/${pix}/refund`, { key, body: { amountCents: 1_000 } }), 200);
  ok(await call(app, 'POST', '/api/withdraws', { key, body: { amountCents: 2_000, pixKeyType: 'email', pixKey: 'loja@example.com' } }), 201);
  for (const path of ['/api/v1/transactions', `/api/v1/transactions/${pix}`, '/api/v1/balance', '/api/withdraws', '/api/v1/webhooks/events', '/api/v1/reports/summary']) ok(await call(app, 'GET', path, { key }), 200);
}

/** `user_id = …`, `user_id IN …`, `x.user_id = …`, or a row comparison `(user_id, …) IN …`. */
const MERCHANT_PREDICATE = /\buser_id\s*(=|IN\b)|\(\s*(\w+\.)?user_id\s*,/i;

/** Merchant-keyed tables: those with a user_id column (and users itself, keyed by its id). */
async function merchantTables(db: Database['db']): Promise<Set<string>> {
  const { rows } = await sql<{ t: string }>`SELECT DISTINCT table_name::text AS t FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'user_id'`.execute(db);
  return new Set(rows.map((r) => r.t));
}

/** What is wrong with one statement, or null: each merchant-keyed table it reads or changes must be found by its merchant. */
function problem(statement: string, tables: Set<string>): string | null {
  const query = statement.replaceAll('"', '');
  // INTO: an inserted row carries its merchant; FROM, JOIN, UPDATE: rows found by a predicate.
  const found = [...query.matchAll(/\b(?:FROM|JOIN|UPDATE)\s+(\w+)/gi)].map((x) => x[1]).filter((t) => tables.has(t) || t === 'users');
  if (found.length === 0) return null;
  if (GLOBAL_LOOKUPS.some((g) => found.includes(g.table) && g.by.test(query))) return null;
  if (found.every((t) => t === 'users') && /\bid\s*(=|IN\b)/i.test(query)) return null; // the merchant's own row
  return MERCHANT_PREDICATE.test(query) ? null : `finds rows of ${[...new Set(found)].join(', ')} without naming the merchant`;
}

test('every statement of the hot paths names the merchant first', { skip }, async () => {
  const db = database!.db;
  await sql`SELECT pg_stat_statements_reset()`.execute(db);
  await hotPaths(m.devKey);
  const { rows } = await sql<{ query: string; calls: number }>`
    SELECT query, calls::int AS calls FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query !~* 'pg_stat_statements'`.execute(db);
  const tables = await merchantTables(db);
  assert.ok(rows.length >= 10, `the hot paths ran statements: ${rows.length}`);
  const bad = rows.map((r) => ({ ...r, problem: problem(r.query, tables) })).filter((r) => r.problem);
  assert.deepEqual(bad.map((b) => `${b.problem}:\n  ${b.query.replace(/\s+/g, ' ').slice(0, 600)}`), []);
});
