// PostgreSQL's CPU per creation for the creation statement (a diagnostic, run by hand):
// batches of BENCH_BATCH (default 16) PIX creations of one merchant, each with its own
// Idempotency-Key and a client from a pool of 20,000 CPFs (all stored beforehand, so that each
// creation refreshes its client, as in scenario B), sent one after another on ONE connection; the
// backend's CPU time (from /proc/<pid>/schedstat, so PostgreSQL must run on this machine) per
// creation, over BENCH_ROUNDS rounds (default 12) of 100 batches, medians. CPU time, not
// throughput, and variants alternated round by round (each in a schema and on a connection of its
// own): what a busy or drifting host does to one does it to the other.
//   node bench/statement-cost.ts      (TEST_DATABASE_URL or DATABASE_URL, default local postgres)
//   BENCH_VARIANTS=current,userfks node bench/statement-cost.ts   (variants alternated; see VARIANTS)
// BENCH_PER_ROUND: batches per round (100); BENCH_EXPLAIN=1: the first variant's plan of one batch
// (EXPLAIN ANALYZE) and every variant's table counters (inserts, updates, HOT updates) at the end;
// BENCH_SIGNAL=1: "measuring" on stderr once the warm-up is over (to start a profiler then).
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrate, preparedName } from '../src/db/index.ts';
import { shortCode, uuidv7 } from '../src/db/ids.ts';
import type { DB, Transaction } from '../src/db/types.ts';
import type { RequestKey } from '../src/http/idempotency.ts';
import { EventLog } from '../src/modules/events/service.ts';
import { creationStatement, type Creation } from '../src/modules/transactions/creation.ts';
import { webhookFanout } from '../src/modules/webhooks/enqueue.ts';
import { generateCpf } from '../src/payments/documents.ts';
import { buildBrCode, newTxid } from '../src/payments/pix.ts';

const URL = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const BATCH = Number(process.env.BENCH_BATCH ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 100);
const events = new EventLog([webhookFanout]);

interface Variant {
  /** Run once in the variant's schema after migrating. */
  setup?: (c: pg.ClientBase) => Promise<void>;
  statement: (db: Kysely<DB>, batch: Creation[]) => { sql: string; parameters: readonly unknown[] };
}
const VARIANTS: Record<string, Variant> = {
  current: { statement: (db, batch) => creationStatement(events, batch).compile(db) },
  // The schema as before migration 027: the foreign keys from transactions and events to users.
  userfks: {
    setup: async (c) => {
      await c.query('ALTER TABLE transactions ADD CONSTRAINT transactions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)');
      await c.query('ALTER TABLE events ADD CONSTRAINT events_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)');
    },
    statement: (db, batch) => creationStatement(events, batch).compile(db),
  },
};
const names = (process.env.BENCH_VARIANTS ?? 'current').split(',');

const admin = new pg.Client({ connectionString: URL });
await admin.connect();
const cpfs = [...new Set(Array.from({ length: 20_100 }, () => generateCpf(Math.random)))].slice(0, 20_000);
let n = 0;

async function prepare(name: string) {
  const variant = VARIANTS[name];
  if (!variant) throw new Error(`no variant ${name}`);
  const schema = `stmtcost_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: URL, max: 1, options: `-c search_path=${schema}` });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  await migrate(db);
  const client = await pool.connect();
  await variant.setup?.(client);
  const {
    rows: [user],
  } = await client.query(`INSERT INTO users (id, name, email, password_hash, referral_code) VALUES (gen_random_uuid(), 'Cost', 'cost@example.com', 'x', 'COSTCODE') RETURNING id`);
  await client.query(
    `INSERT INTO clients (id, user_id, livemode, name, email, document, created_at, updated_at)
     SELECT gen_random_uuid(), $1, false, 'Cliente Benchmark', 'c@example.com', d, now(), now() FROM unnest($2::text[]) d`,
    [user.id, cpfs],
  );
  await client.query('VACUUM ANALYZE clients');
  const {
    rows: [{ pid }],
  } = await client.query('SELECT pg_backend_pid() AS pid');
  const batch = async () => {
    const q = variant.statement(db, Array.from({ length: BATCH }, () => creation(user.id)));
    await client.query({ name: preparedName(q.sql), text: q.sql, values: q.parameters as unknown[] });
  };
  const stats = async () => (await client.query(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname IN ('clients', 'transactions', 'events', 'idempotency_keys', 'report_days')`)).rows;
  const explain = async () => {
    const q = variant.statement(db, Array.from({ length: BATCH }, () => creation(user.id)));
    const { rows } = await client.query({ text: `EXPLAIN (ANALYZE, COSTS OFF, SUMMARY ON) ${q.sql}`, values: q.parameters as unknown[] });
    return rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n');
  };
  // CPU time on the CPU in ns (schedstat), finer than /proc/<pid>/stat's ticks.
  const cpuNs = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  const close = async () => {
    client.release();
    await db.destroy();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  };
  return { name, batch, explain, stats, cpuNs, close, cpu: [] as number[], wall: [] as number[] };
}

function creation(userId: string): Creation {
  const now = new Date();
  const i = n++;
  const amount = 100 + ((i * 7919) % 99_900);
  const txid = newTxid();
  const draft = {
    id: uuidv7(now.getTime()), user_id: userId, livemode: false, display_id: shortCode(10), product: `Pedido ${i % 1000}`,
    amount_cents: amount, charged_cents: amount, fee_cents: Math.max(1, Math.round((amount * 99) / 10000)), refunded_cents: 0,
    status: 'PENDING', payment_method: 'PIX', client_id: uuidv7(now.getTime()), client_name: 'Cliente Benchmark',
    client_email: `cliente${i % 5000}@example.com`, client_document: cpfs[i % cpfs.length], client_phone: null, installments: 1,
    installment_cents: null, card_brand: null, card_last4: null, pix_txid: txid,
    pix_qr_code: buildBrCode({ pixKey: 'pix@cofre.com.br', merchantName: 'COFRE PAGAMENTOS', merchantCity: 'SAO PAULO', amountCents: amount, txid }),
    boleto_barcode: null, boleto_line: null, due_date: null, late_payment: null, expires_at: new Date(now.getTime() + 86400_000),
    payment_link_id: null, coupon_id: null, affiliate_link_id: null, discount_cents: 0, address: null, metadata: {}, tracking_params: {},
    postback_url: null, subscription_id: null, subscription_cycle_id: null, provider: 'sandbox', provider_ref: null, failure_reason: null,
    authorized_at: null, captured_at: null, cancelled_at: null, paid_at: null, failed_at: null, expired_at: null, refunded_at: null,
    created_at: now, updated_at: now,
  } as Transaction;
  const key: RequestKey = { userId, livemode: false, key: `cost-${i}`, fingerprint: 'f'.repeat(64), createdAt: now, state: 'inline' };
  // A response of the API's size: the transaction twice (under its name and under data).
  const render = (tx: Transaction) => {
    const t = JSON.stringify(tx);
    return `{"message":"Transaction created","transaction":${t},"success":true,"data":${t}}`;
  };
  return { draft, attach: { key, status: 201, render } };
}

const runs = [];
try {
  for (const name of names) runs.push(await prepare(name));
  for (const r of runs) for (let i = 0; i < 200; i++) await r.batch(); // warm-up
  if (process.env.BENCH_SIGNAL) console.error('measuring');
  if (process.env.BENCH_EXPLAIN) console.log(await runs[0].explain());
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of runs) {
      const t0 = r.cpuNs();
      const w0 = performance.now();
      for (let i = 0; i < PER_ROUND; i++) await r.batch();
      r.wall.push((performance.now() - w0) / PER_ROUND);
      r.cpu.push((r.cpuNs() - t0) / 1e3 / (PER_ROUND * BATCH));
    }
  }
  if (process.env.BENCH_EXPLAIN) for (const r of runs) console.log(await r.stats());
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  for (const r of runs) {
    console.log(`${r.name.padEnd(10)} batch ${BATCH}: PostgreSQL CPU per creation ${median(r.cpu).toFixed(1)} us (rounds ${r.cpu.map((x) => x.toFixed(0)).join(' ')}); wall per batch ${median(r.wall).toFixed(2)} ms`);
  }
} finally {
  for (const r of runs) await r.close();
  await admin.end();
}
