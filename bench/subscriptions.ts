// Subscription benchmarks on real PostgreSQL (issue 13), run by bench/run.ts (BENCH_SCENARIOS
// subsmetrics, subsrenewal):
//
//   S1  metrics     GET /api/subscriptions/metrics (the current month, the heaviest: its end is now)
//                   over a book of 100,000 subscriptions of one merchant seeded in SQL
//                   (bench/subscriptions-seed.ts: 2 years, 8 plans, every state, ~900,000 cycles),
//                   requests one after another from this process.               target p99 <= 200 ms
//   S2  renewals    100,000 ACTIVE card subscriptions whose period ended, renewed by 2 `worker`
//                   processes (src/main.ts worker: the real job runner, SKIP LOCKED sweep, sandbox
//                   card charges through the ordinary transaction path). The clock runs from the
//                   commit that makes them all due to the last renewal paid. Afterwards: every
//                   subscription renewed exactly once (one new cycle, PAID, one transaction) and the
//                   ledger balances. Reported with its ratio to PIX creation (B) of the same run.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { connect } from '../src/db/index.ts';
import { assertLedgerBalanced } from '../test/ledger-check.ts';
import { cpuTicks, postgresTicks } from './proc.ts';
import { percentile } from './stats.ts';
import { seedDueCardSubscriptions, seedSubscriptionBook } from './subscriptions-seed.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const MAIN = resolve(HERE, '..', 'src', 'main.ts');
const JWT_SECRET = 'bench-jwt-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

export const SUBSCRIPTION_TARGETS = { metricsP99Ms: 200 };

export interface MetricsBenchResult {
  subscriptions: number;
  cycles: number;
  pauses: number;
  seedSeconds: number;
  samples: number;
  p50: number;
  p99: number;
  max: number;
  /** What the endpoint answered (a sanity check that the book is realistic). */
  sample: { activeSubscribers: number; mrrCents: number; totalPaused: number; pastDue: number; trialing: number; totalCancelled: number };
}

export interface RenewalBenchResult {
  subscriptions: number;
  merchants: number;
  /** How many were renewed (all, unless the run's time ran out). */
  renewed: number;
  workers: number;
  seconds: number;
  perSecond: number;
  /** CPU seconds over the run: the two workers together, and PostgreSQL (all its processes). */
  cpuSeconds: { workers: number; postgres: number };
  verified: { renewedOnce: number; transactions: number; ledgerBalanced: boolean };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** S1: seeds the book for `userId` and times the endpoint (`url`, development key `key`). */
export async function metricsScenario(opts: { admin: pg.Client; url: string; key: string; userId: string; n?: number; samples?: number; log?: (l: string) => void }): Promise<MetricsBenchResult> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const n = opts.n ?? 100_000;
  const samples = opts.samples ?? 300;
  log(`\n[S1] subscription metrics: seeding ${n.toLocaleString('en-US')} subscriptions in SQL`);
  const t = performance.now();
  const seeded = await seedSubscriptionBook(opts.admin, opts.userId, n);
  // The steady state of a table that autovacuum keeps: the visibility map set, statistics current.
  await opts.admin.query('VACUUM ANALYZE subscriptions');
  await opts.admin.query('VACUUM ANALYZE subscription_cycles');
  await opts.admin.query('VACUUM ANALYZE subscription_pauses');
  const seedSeconds = (performance.now() - t) / 1000;
  log(`  seeded ${seeded.subscriptions.toLocaleString('en-US')} subscriptions, ${seeded.cycles.toLocaleString('en-US')} cycles, ${seeded.pauses.toLocaleString('en-US')} pauses in ${seedSeconds.toFixed(0)} s`);
  const get = async () => {
    const started = performance.now();
    const res = await fetch(`${opts.url}/api/subscriptions/metrics`, { headers: { 'API-Key': opts.key } });
    const body = (await res.json()) as { metrics: MetricsBenchResult['sample'] };
    if (res.status !== 200) throw new Error(`metrics answered ${res.status}: ${JSON.stringify(body)}`);
    return { ms: performance.now() - started, metrics: body.metrics };
  };
  for (let i = 0; i < 10; i++) await get(); // warm-up
  const times: number[] = [];
  let last: MetricsBenchResult['sample'] | null = null;
  for (let i = 0; i < samples; i++) {
    const r = await get();
    times.push(r.ms);
    last = r.metrics;
  }
  times.sort((a, b) => a - b);
  const result: MetricsBenchResult = {
    ...seeded,
    seedSeconds,
    samples,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: times[times.length - 1],
    sample: {
      activeSubscribers: last!.activeSubscribers,
      mrrCents: last!.mrrCents,
      totalPaused: last!.totalPaused,
      pastDue: last!.pastDue,
      trialing: last!.trialing,
      totalCancelled: last!.totalCancelled,
    },
  };
  log(`  ${samples} requests one after another: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, max ${result.max.toFixed(1)} ms`);
  return result;
}

/** CPU ticks (1/100 s) of a process, and of every postgres process (with its reaped children's). */
function startWorker(databaseUrl: string, schema: string, name: string): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'PORT', 'DATA_DIR', 'RUN_JOBS', 'SMTP_URL']) delete env[k];
  const child = spawn(process.execPath, [MAIN, 'worker'], {
    env: { ...env, DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, JWT_SECRET, LOG_LEVEL: 'info', DATABASE_POOL_SIZE: '16', JOB_INTERVAL_MS: '200', PGAPPNAME: process.env.PGAPPNAME ?? name },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolveStart, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`worker ${name} did not start:\n${out}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('worker started')) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolveStart(child);
      }
    });
    child.once('exit', (code) => reject(new Error(`worker ${name} exited (${code}):\n${out}`)));
  });
}

async function stopWorker(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  // Long enough for the batch under way to finish on a busy machine: a worker killed mid-charge
  // leaves that renewal half done (its transaction PENDING), which the check after the run reports.
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  await exited;
  clearTimeout(timer);
}

/**
 * S2: `n` due card subscriptions of a new merchant renewed by `workers` worker processes; verified
 * afterwards (each renewed once, one PAID transaction each, the ledger balanced).
 */
export async function renewalScenario(opts: { databaseUrl: string; schema: string; admin: pg.Client; n?: number; merchants?: number; workers?: number; timeoutMs?: number; log?: (l: string) => void }): Promise<RenewalBenchResult> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const n = opts.n ?? 100_000;
  const workerCount = opts.workers ?? 2;
  const c = opts.admin;
  log(`\n[S2] subscription renewals: ${n.toLocaleString('en-US')} due card subscriptions of ${opts.merchants ?? 200} merchants, ${workerCount} worker processes`);
  const merchants = opts.merchants ?? 200;
  const ids = await seedDueCardSubscriptions(c, n, merchants);
  await c.query('VACUUM ANALYZE subscriptions');
  await c.query('VACUUM ANALYZE subscription_cycles');
  log(`  seeded; starting ${workerCount} workers`);

  const workers: ChildProcess[] = [];
  const database = await connect({ url: opts.databaseUrl, schema: opts.schema, poolSize: 2 });
  try {
    for (let i = 0; i < workerCount; i++) workers.push(await startWorker(opts.databaseUrl, opts.schema, `renewals-${i}`));
    const cpu0 = { workers: workers.reduce((s, w) => s + cpuTicks(w.pid!), 0), postgres: postgresTicks() };
    // All due at once: the clock starts at this commit.
    const {
      rows: [{ started }],
    } = await c.query<{ started: Date }>(
      `WITH u AS (UPDATE subscriptions SET next_action_at = current_period_end WHERE user_id = ANY($1::uuid[]) RETURNING 1) SELECT clock_timestamp() AS started, (SELECT count(*) FROM u) AS n`,
      [ids],
    );
    const deadline = Date.now() + (opts.timeoutMs ?? 3_600_000);
    await waitForRenewals(c, ids, n, deadline, log);
    const cpu1 = { workers: workers.reduce((s, w) => s + cpuTicks(w.pid!), 0), postgres: postgresTicks() };
    for (const w of workers) await stopWorker(w); // gracefully: the batch under way finishes

    const renewed = Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM subscription_cycles WHERE user_id = ANY($1::uuid[]) AND number = 2`, [ids])).rows[0].n);
    const {
      rows: [{ finished }],
    } = await c.query<{ finished: Date }>(`SELECT max(paid_at) AS finished FROM subscription_cycles WHERE user_id = ANY($1::uuid[]) AND number = 2`, [ids]);
    const seconds = (finished.getTime() - started.getTime()) / 1000;
    const counts = await renewedExactlyOnce(c, ids, n, renewed);
    await assertLedgerBalanced(database.db);
    const result: RenewalBenchResult = {
      subscriptions: n,
      merchants,
      renewed,
      workers: workerCount,
      seconds,
      perSecond: renewed / seconds,
      cpuSeconds: { workers: (cpu1.workers - cpu0.workers) / 100, postgres: (cpu1.postgres - cpu0.postgres) / 100 },
      verified: { renewedOnce: counts.moved, transactions: counts.txs, ledgerBalanced: true },
    };
    log(
      `  ${renewed.toLocaleString('en-US')} renewals in ${seconds.toFixed(1)} s: ${result.perSecond.toFixed(0)}/s; CPU: workers ${result.cpuSeconds.workers.toFixed(0)} s, PostgreSQL ${result.cpuSeconds.postgres.toFixed(0)} s; ` +
        `verified: each renewed once, ${counts.txs.toLocaleString('en-US')} transactions, ledger balanced`,
    );
    return result;
  } finally {
    for (const w of workers) await stopWorker(w);
    await database.close();
  }
}

/** Polls until the `n` subscriptions of `ids`' merchants are renewed, or the deadline passes (then measures those renewed). */
async function waitForRenewals(c: pg.Client, ids: string[], n: number, deadline: number, log: (l: string) => void): Promise<void> {
  let done = 0;
  let lastLog = Date.now();
  let progressAt = Date.now();
  for (;;) {
    const { rows } = await c.query<{ n: string }>(`SELECT count(*) AS n FROM subscription_cycles WHERE user_id = ANY($1::uuid[]) AND number = 2 AND status = 'PAID'`, [ids]);
    if (Number(rows[0].n) > done) progressAt = Date.now();
    done = Number(rows[0].n);
    if (done >= n) break;
    if (Date.now() > deadline) {
      log(`  time is up (BENCH_RENEWAL_TIMEOUT_S) with ${done.toLocaleString('en-US')} of ${n.toLocaleString('en-US')} renewed: measuring those`);
      break;
    }
    if (Date.now() - progressAt > 120_000) throw new Error(`renewals stalled at ${done} of ${n} (a failed charge is retried only an hour later)`);
    if (Date.now() - lastLog > 30_000) {
      log(`  ${done.toLocaleString('en-US')} renewed so far`);
      lastLog = Date.now();
    }
    await sleep(500);
  }
}

/**
 * Exactly once: each renewed subscription moved one period, has one new cycle (PAID) and one
 * transaction, PAID. Returns the counts; throws when they say otherwise.
 */
async function renewedExactlyOnce(c: pg.Client, ids: string[], n: number, renewed: number): Promise<Record<string, number>> {
  const {
    rows: [v],
  } = await c.query<{ subs: string; moved: string; cycles: string; paid_cycles: string; txs: string; paid_txs: string; dup: string }>(
    `SELECT (SELECT count(*) FROM subscriptions WHERE user_id = ANY($1::uuid[])) AS subs,
            (SELECT count(*) FROM subscriptions WHERE user_id = ANY($1::uuid[]) AND period_index = 1 AND status = 'ACTIVE') AS moved,
            (SELECT count(*) FROM subscription_cycles WHERE user_id = ANY($1::uuid[]) AND number >= 2) AS cycles,
            (SELECT count(*) FROM subscription_cycles WHERE user_id = ANY($1::uuid[]) AND number = 2 AND status = 'PAID' AND transaction_id IS NOT NULL) AS paid_cycles,
            (SELECT count(*) FROM transactions WHERE user_id = ANY($1::uuid[])) AS txs,
            (SELECT count(*) FROM transactions WHERE user_id = ANY($1::uuid[]) AND status = 'PAID' AND subscription_cycle_id IS NOT NULL) AS paid_txs,
            (SELECT count(*) FROM (SELECT subscription_id FROM transactions WHERE user_id = ANY($1::uuid[]) GROUP BY subscription_id HAVING count(*) <> 1) d) AS dup`,
    [ids],
  );
  const counts = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, Number(x)]));
  const once = counts.subs === n && counts.moved === renewed && counts.cycles === renewed && counts.paid_cycles === renewed && counts.txs === renewed && counts.paid_txs === renewed && counts.dup === 0;
  if (!once) throw new Error(`renewals not exactly once: ${JSON.stringify(counts)}`);
  return counts;
}
