// HG: history that grows (issue 40). events and webhook_deliveries, partitioned by week (migration
// 048), are filled with generate_series over the last DAYS days to each size of BENCH_HISTORY_SIZES
// (default 10^5, then 10^7), and at each size the hot path is measured: PIX creation (POST
// /api/v1/transactions with a fresh Idempotency-Key, so the key's table is on the path too) and the
// first page of one merchant's deliveries (GET /api/v1/webhooks/deliveries, the list over the grown
// tables; events have no list endpoint of their own). Not in the default list:
// BENCH_SCENARIOS=floor,history. The rows are spread over 10 merchants, the measured one included.
import { setTimeout as sleep } from 'node:timers/promises';
import { bound, DAY_MS as DAY, dayName, PERIOD_MS, weekStart } from '../src/db/partitions.ts';
import { type Context, merchant, pixBody, settle } from './context.ts';
import { closedLoop, cpuLine, type LoadResult, load } from './load.ts';
import type { Child } from './processes.ts';
import { LIST_SECONDS, SECONDS, WARMUP_SECONDS } from './settings.ts';
import { fmt } from './stats.ts';

const DAYS = 30;
const MERCHANTS = 10;

export interface HistoryStep {
  rows: number;
  fillSeconds: number;
  creation: LoadResult;
  list: LoadResult;
}

export interface HistoryResult {
  steps: HistoryStep[];
  floor: LoadResult | null;
}

/** The size steps: BENCH_HISTORY_SIZES, comma-separated rows per table. */
const sizes = () => (process.env.BENCH_HISTORY_SIZES || '100000,10000000').split(',').map((s) => Number(s.trim()));

/**
 * A fresh schema's history sits in the legacy partition (everything before next Monday): it is
 * replaced by a partition per week for the last DAYS days, as a deployment that ran that long has.
 */
async function dayPartitions(ctx: Context) {
  const q = (text: string) => ctx.admin.query(text);
  const tables = ['webhook_attempts', 'webhook_deliveries', 'events'];
  const legacy: Record<string, string> = {};
  for (const t of tables) {
    const { rows } = await ctx.admin.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1) AND c.relname LIKE $2`,
      [t, `${t}_legacy_%`],
    );
    legacy[t] = rows[0].name;
    await q(`ALTER TABLE ${t} DETACH PARTITION ${legacy[t]}`);
  }
  const first = weekStart(Date.now() - DAYS * DAY);
  for (const t of tables) {
    for (let w = first; w <= Date.now(); w += PERIOD_MS) {
      const lo = w === first ? 'MINVALUE' : `'${bound('uuid', w)}'`;
      await q(`CREATE TABLE ${t}_p${dayName(w)} PARTITION OF ${t} FOR VALUES FROM (${lo}) TO ('${bound('uuid', w + PERIOD_MS)}')`);
    }
  }
  for (const t of [...tables].reverse()) await q(`INSERT INTO ${t} SELECT * FROM ${legacy[t]}`);
  for (const t of tables) await q(`DROP TABLE ${legacy[t]}`);
}

/** Adds rows to events and webhook_deliveries up to `rows` each, spread evenly over the last DAYS days. */
async function fill(ctx: Context, users: string[], from: number, rows: number) {
  const now = Date.now();
  const span = DAYS * DAY - 3_600_000;
  // A UUIDv7 of millisecond ms: the time in hex, the version and variant nibbles, bits from md5.
  const rowsOf = `
    FROM generate_series($1::bigint, $2::bigint - 1) g,
    LATERAL (SELECT md5(g::text) AS h, ($3::bigint - $4::bigint + (g * $4::bigint) / $2::bigint) AS ms) x,
    LATERAL (SELECT (lpad(to_hex(x.ms), 12, '0') || '7' || substr(x.h, 1, 3) || '8' || substr(x.h, 4, 15))::uuid AS id,
      ($5::uuid[])[1 + (g % ${users.length})::int] AS user_id, to_timestamp(x.ms / 1000.0) AS at) r`;
  const args = [from, rows, now, span, users];
  await ctx.admin.query(`INSERT INTO events (id, user_id, livemode, type, data, created_at)
    SELECT r.id, r.user_id, false, 'transaction.created', jsonb_build_object('id', r.id, 'status', 'PENDING', 'amountCents', g % 100000), r.at ${rowsOf}`, args);
  await ctx.admin.query(`INSERT INTO webhook_deliveries (id, user_id, livemode, event_id, event_type, url, body, status, attempts, next_attempt_at, first_attempt_at, last_status, created_at, updated_at)
    SELECT r.id, r.user_id, false, r.id, 'transaction.created', 'https://hooks.example.com/cofre',
      '{"id":"' || r.id || '","type":"transaction.created","data":{"id":"' || x.h || '","status":"PENDING","amountCents":' || (g % 100000) || '}}',
      'SUCCEEDED', 1, r.at, r.at, 200, r.at, r.at ${rowsOf}`, args);
  await ctx.admin.query('ANALYZE events, webhook_deliveries');
}

export async function scenarioHistory(ctx: Context, gw: Child): Promise<HistoryResult> {
  const m = await merchant(gw, 'history');
  const users = [m.userId];
  for (let i = 1; i < MERCHANTS; i++) users.push((await merchant(gw, `history-${i}`)).userId);
  await dayPartitions(ctx);
  const roles = { [gw.pid]: 'server', [process.pid]: 'autocannon' };
  let n = 0;
  const create = () => ({
    method: 'POST',
    path: '/api/v1/transactions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${m.key}`, 'idempotency-key': `hg-${process.pid}-${n++}` },
    body: pixBody(ctx),
  });
  const list = () => ({ method: 'GET', path: '/api/v1/webhooks/deliveries?limit=20', headers: { authorization: `Bearer ${m.key}` } });
  const steps: HistoryStep[] = [];
  let stored = 0;
  for (const rows of sizes()) {
    console.log(`\n[HG] filling events and webhook_deliveries to ${rows.toLocaleString('en')} rows each`);
    const started = Date.now();
    await fill(ctx, users, stored, rows);
    stored = rows;
    const fillSeconds = (Date.now() - started) / 1000;
    console.log(`  filled in ${fmt(fillSeconds, 0)} s`);
    await settle(ctx);
    await load('warm-up', closedLoop(gw.url, WARMUP_SECONDS, create), roles, true);
    await sleep(1000);
    const creation = await load(`HG creation at ${rows} rows`, closedLoop(gw.url, SECONDS, create), roles);
    await settle(ctx);
    const page = await load(`HG deliveries list at ${rows} rows`, closedLoop(gw.url, LIST_SECONDS, list), roles);
    steps.push({ rows, fillSeconds, creation, list: page });
  }
  const result = { steps, floor: ctx.results.floor ?? null };
  console.log(`\n${historyReport(result)}`);
  return result;
}

/** The lines of HG's result, for the console (bench/README.md takes them by hand: HG is not in the default list). */
export function historyReport(r: HistoryResult): string {
  const floor = r.floor ? `floor (A) of the same run ${fmt(r.floor.rps, 0)}/s, p99 ${fmt(r.floor.p99, 1)} ms` : 'floor (A) not run (BENCH_SCENARIOS=floor,history)';
  const lines = r.steps.map(
    (s) =>
      `HG at ${s.rows.toLocaleString('en')} events and deliveries (filled in ${fmt(s.fillSeconds, 0)} s): creation ${fmt(s.creation.rps, 0)}/s, p50 ${fmt(s.creation.p50, 1)} ms, p99 ${fmt(s.creation.p99, 1)} ms (${cpuLine(s.creation)}); ` +
      `deliveries list ${fmt(s.list.rps, 0)}/s, p50 ${fmt(s.list.p50, 1)} ms, p99 ${fmt(s.list.p99, 1)} ms; non-2xx ${s.creation.non2xx + s.list.non2xx}`,
  );
  return [...lines, floor].join('\n');
}
