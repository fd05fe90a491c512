// The cost of the daily report triggers on a multi-row write (issue 17, migration 023): one INSERT
// of N rows into transactions (a creation batch's size, default 200: BENCH_TRIGGER_ROWS) with the
// triggers per statement (023) and per row (018, 023 run down), alternately, 12 rounds each; prints
// the medians. Runs on PGlite in memory, or on PostgreSQL with TEST_DATABASE_URL (a schema of its
// own, as the tests make). Few rows and alternation make it far less sensitive to a shared machine
// than the throughput scenarios:
//   node bench/report-triggers.ts
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/report-triggers.ts
import { sql } from 'kysely';
import { migrations } from '../src/db/migrations/index.ts';
import { call, cpf, merchant, startApp } from '../test/helpers.ts';

const N = Number(process.env.BENCH_TRIGGER_ROWS ?? 200);
const ROUNDS = 12;
const ctx = await startApp();
const db = ctx.database.db;
const m = await merchant(ctx.app);
const r = await call(ctx.app, 'POST', '/api/v1/transactions', {
  key: m.devKey,
  body: { amountCents: 1234, paymentMethod: 'PIX', product: 'Curso', clientName: 'Maria', clientEmail: 'm@example.com', clientDocument: cpf() },
});
if (r.status !== 201) throw new Error(`creation failed: ${r.status} ${r.raw}`);
// N copies of a real row, given fresh ids before each round; only the INSERT is timed.
await sql.raw(`CREATE TABLE trigger_bench AS SELECT t.* FROM transactions t, generate_series(1, ${N}) WHERE t.id = '${r.body.transaction.id}'`).execute(db);
const fresh = sql.raw(`UPDATE trigger_bench SET id = gen_random_uuid(), display_id = 'B' || md5(random()::text), pix_txid = NULL`);
const insert = sql.raw('INSERT INTO transactions SELECT * FROM trigger_bench');
const perStatement = migrations['023_report_days_per_statement'];
const ms = { statement: [] as number[], row: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of ['statement', 'row'] as const) {
    if (mode === 'row') await perStatement.down!(db);
    await fresh.execute(db);
    const t0 = performance.now();
    await insert.execute(db);
    ms[mode].push(performance.now() - t0);
    if (mode === 'row') await perStatement.up(db);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `${ctx.database.kind}: one INSERT of ${N} transactions, median of ${ROUNDS} alternating rounds: ` +
    `${median(ms.statement).toFixed(1)} ms with the report triggers per statement (023), ${median(ms.row).toFixed(1)} ms per row (018)`,
);
await ctx.close();
