// `npm run bench`: load tests of the gateway on real PostgreSQL, written into bench/README.md.
//
//   A  floor        a bare Fastify route doing one INSERT into a transactions-shaped table
//   A2 SQL floor    the statement PIX creation sends, from raw pg in a bare route (no app code), after B
//   A3 floor open loop  A at B2's fixed rate (scenarios floor and openloop): the latency floor for B2
//   B  PIX creation POST /api/v1/transactions, unique Idempotency-Key per request
//   AB interleaved  A and B (and A3 and B2 with openloop) in alternating slices of a few seconds, both
//                   servers up: the ratio B / A as both see the same moments of a drifting host
//   B2 open loop    B at a fixed rate (1,000/s): its latency (scenario openloop)
//   B1 comparison   B (and B2, F) with group commit off: one statement per creation (scenario creation1)
//   F  simulate     status changes of one merchant: POST .../simulate PAID, a PENDING PIX each (F1: batching off)
//   E  embedded     B on PGlite, with group commit and without (E1) (scenario embedded)
//   C  list depth   GET /api/v1/transactions first page vs. a page 10,000 pages deep (1M rows)
//   S1 subsmetrics  GET /api/subscriptions/metrics over 100,000 subscriptions (bench/subscriptions.ts)
//   S2 subsrenewal  100,000 due card subscriptions renewed by 2 worker processes (bench/subscriptions.ts)
//   R  reports      GET /api/v1/reports/summary and /timeseries, 30 and 90 days, over 1M rows (a year)
//
// Each server runs in its own child process (bench/floor.ts, bench/server.ts) so that autocannon,
// here, does not share their event loop; on this 2-core machine they still share the CPUs (with
// PostgreSQL too), which is why CPU time per process is recorded beside every figure.
//
// Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), BENCH_SECONDS
// (default 20), BENCH_LIST_SECONDS (default 10), BENCH_ROWS (default 1000000), BENCH_OPEN_LOOP_WARMUP_SECONDS
// (default 30: an open loop's warm-up at its rate, before the checkpoint and the usual 3 s; 0 = none),
// BENCH_WRITE_README (default 1; 0 prints only), BENCH_SCENARIOS (default floor,floorsql,creation,interleaved,simulate,openloop,creation1,embedded,list,checkout,webhooks,subsmetrics,subsrenewal,reports; the
// README is only written when all ran), BENCH_PROFILE=1 (CPU profile of the gateway during B and F,
// summarised; slows it down, so not for the figures; =alloc / =promoted: the bytes it allocates, or
// those of them that survive the young generation, by function), BENCH_QUIET_WAIT (seconds to wait for other
// processes to leave the CPUs alone before starting, default 180), BENCH_SERVER_FLAGS (Node and V8
// flags for the floor and gateway processes started here, not the checkout and webhook scenarios'
// own; e.g. `--trace-gc-nvp`) with BENCH_SERVER_STDOUT (a file their
// standard output is appended to, where such flags print).
// Each scenario is a small function taking the shared context; webhook deliveries live in webhooks.ts.
import { fork, type ChildProcess } from 'node:child_process';
import { CHECKOUT_TARGETS, checkoutPageScenario, type CheckoutBenchResult } from './checkout.ts';
import { webhookScenarios, type WebhookBenchResult } from './webhooks.ts';
import { deviceOf, stallsSuffix, watchDisk, type DiskStalls } from './disk.ts';
import { metricsScenario, renewalScenario, SUBSCRIPTION_TARGETS, type MetricsBenchResult, type RenewalBenchResult } from './subscriptions.ts';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { connect, migrate } from '../src/db/index.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { Cursors } from '../src/http/pagination.ts';
import { generateCpf } from '../src/payments/documents.ts';
import { buildBrCode, newTxid } from '../src/payments/pix.ts';
import type { ChildStats, ProfileKind } from './child.ts';
import { openLoop, type OpenLoopOptions } from './open-loop.ts';
import { summarizeProfile } from './profile.ts';
import { percentile } from './stats.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = positiveInt('BENCH_SECONDS', 20);
const LIST_SECONDS = positiveInt('BENCH_LIST_SECONDS', Math.min(10, SECONDS));
const ROWS = positiveInt('BENCH_ROWS', 1_000_000);
const WRITE_README = process.env.BENCH_WRITE_README !== '0';
const ALL_SCENARIOS = ['floor', 'floorsql', 'creation', 'interleaved', 'simulate', 'openloop', 'creation1', 'embedded', 'list', 'checkout', 'webhooks', 'subsmetrics', 'subsrenewal', 'reports'];
const SUBSCRIPTIONS = positiveInt('BENCH_SUBSCRIPTIONS', 100_000);
const SCENARIOS = (process.env.BENCH_SCENARIOS || ALL_SCENARIOS.join(',')).split(',').map((x) => x.trim());
/** BENCH_PROFILE=1: a CPU profile of the gateway during B and F; =alloc / =promoted: an allocation profile (see child.ts). */
const PROFILE: ProfileKind | null = process.env.BENCH_PROFILE === '1' ? 'cpu' : process.env.BENCH_PROFILE === 'alloc' || process.env.BENCH_PROFILE === 'promoted' ? process.env.BENCH_PROFILE : null;
const QUIET_WAIT = Number(process.env.BENCH_QUIET_WAIT ?? 180);
/** Node and V8 flags for the servers (e.g. `--trace-gc`), and the file their standard output is appended to. */
const SERVER_FLAGS = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
const SERVER_STDOUT = process.env.BENCH_SERVER_STDOUT;
const CONNECTIONS = 50;
const LIST_CONNECTIONS = 10;
const POOL_SIZE = positiveInt('BENCH_POOL_SIZE', 50);
const WARMUP_SECONDS = 3;
/** AB: the length of one slice of A or B. */
const SLICE_SECONDS = positiveInt('BENCH_SLICE_SECONDS', 3);
/** An open loop's warm-up at its rate before the checkpoint (warmUpOpen); 0 = none, as before 2026-11-27. */
const OPEN_LOOP_WARMUP_SECONDS = nonNegativeInt('BENCH_OPEN_LOOP_WARMUP_SECONDS', 30);
/** Creations per second of the open-loop scenario (B2). */
const OPEN_LOOP_RATE = positiveInt('BENCH_OPEN_LOOP_RATE', 1000);
const LIST_LIMIT = 20;
const DEPTH_PAGES = 10_000;
// Fixed, so that this process can sign cursors the server accepts (cursorSecret = JWT_SECRET + ':cursor').
const JWT_SECRET = 'bench-jwt-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

const TARGETS = { creationsPerSecond: 1500, creationP99Ms: 100, floorShare: 0.25, deepOverFirst: 2, reportP99Ms: 100 };
/** R: the seeded transactions span this many days back from now (BENCH_REPORT_DAYS). */
const REPORT_DAYS = positiveInt('BENCH_REPORT_DAYS', 365);
const REPORT_SECONDS = positiveInt('BENCH_REPORT_SECONDS', 10);
const REPORT_CONNECTIONS = positiveInt('BENCH_REPORT_CONNECTIONS', 1);
const TARGETS17 = { creationP99Ms: 15, openLoopP99Ms: 10, embeddedPerSecond: 1000 };

function positiveInt(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be ${min ? 'a positive' : 'a non-negative'} integer (got "${raw}")`);
  return n;
}
function nonNegativeInt(name: string, fallback: number): number {
  return positiveInt(name, fallback, 0);
}

// ---------------------------------------------------------------------------------------------
// Cleanup: children stopped, connections ended, schema dropped; on success, failure and signals.

const runId = randomBytes(5).toString('hex');
const SCHEMA = `bench_${runId}`;
const APP_NAME = SCHEMA; // application_name of every connection of this run (PGAPPNAME)
process.env.PGAPPNAME = APP_NAME;

const cleanups: (() => Promise<void>)[] = [];
let cleaned: Promise<void> | null = null;
function cleanup(): Promise<void> {
  cleaned ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error('cleanup step failed:', (err as Error).message);
      }
    }
  })();
  return cleaned;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: cleaning up`);
    void cleanup().then(() => process.exit(130));
  });
}

async function dropSchema() {
  const c = new pg.Client({ connectionString: DATABASE_URL });
  await c.connect();
  try {
    // Anything of this run still connected (a seeding statement, a killed child's backend) would hold locks.
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()', [APP_NAME]);
    await c.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    console.log(`dropped schema ${SCHEMA}`);
  } finally {
    await c.end();
  }
}

/**
 * Schemas left by a run that was killed outright (kill -9): a run's connections all carry its schema
 * name as application_name from before the schema exists until it is dropped, so a bench_* schema
 * that nobody is connected as belongs to no live run.
 */
async function dropStaleSchemas() {
  const c = new pg.Client({ connectionString: DATABASE_URL });
  await c.connect();
  try {
    const { rows } = await c.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace n WHERE nspname ~ '^bench_[0-9a-f]{10}$'
         AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = n.nspname)`,
    );
    for (const { nspname } of rows) {
      await c.query(`DROP SCHEMA IF EXISTS ${nspname} CASCADE`);
      console.log(`dropped ${nspname}, left by a run that was killed`);
    }
  } finally {
    await c.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Child processes

interface Child {
  name: string;
  port: number;
  pid: number;
  url: string;
  reset(): Promise<void>;
  stats(): Promise<ChildStats>;
  profileStart(kind: ProfileKind): Promise<void>;
  profileStop(file: string): Promise<void>;
  stop(): Promise<void>;
}

function request<T>(proc: ChildProcess, message: object, reply: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string }) => {
      if (m.type !== reply) return;
      proc.off('message', onMessage);
      resolve(m as T);
    };
    proc.on('message', onMessage);
    if (!proc.send(message)) reject(new Error('child is gone'));
  });
}

async function startChild(name: string, file: string, env: Record<string, string>): Promise<Child> {
  const proc = fork(join(HERE, file), [], {
    execPath: process.execPath,
    execArgv: [...process.execArgv, ...SERVER_FLAGS],
    env: { ...process.env, ...env, DATABASE_URL, BENCH_SCHEMA: SCHEMA, PGAPPNAME: APP_NAME },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  // The PORT=<n> line (the port also comes over IPC), and what BENCH_SERVER_FLAGS make V8 print.
  proc.stdout?.on('data', (d: Buffer) => SERVER_STDOUT && appendFileSync(SERVER_STDOUT, d));
  let exited = false;
  const exit = new Promise<void>((resolve) => proc.once('exit', () => ((exited = true), resolve())));
  const stop = async () => {
    if (exited) return;
    if (proc.connected) proc.send({ type: 'stop' });
    else proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 8000);
    await exit;
    clearTimeout(timer);
  };
  cleanups.push(stop);
  const port = await new Promise<number>((resolve, reject) => {
    proc.on('message', (m: { type: string; port?: number }) => m.type === 'ready' && resolve(m.port!));
    void exit.then(() => reject(new Error(`${name} exited before listening (code ${proc.exitCode})`)));
  });
  return {
    name,
    port,
    pid: proc.pid!,
    url: `http://127.0.0.1:${port}`,
    reset: () => request(proc, { type: 'reset' }, 'reset'),
    stats: () => request<ChildStats>(proc, { type: 'stats' }, 'stats'),
    profileStart: (kind) => request(proc, { type: 'profile-start', kind }, 'profile-started'),
    profileStop: (file) => request(proc, { type: 'profile-stop', file }, 'profile-stopped'),
    stop,
  };
}

// ---------------------------------------------------------------------------------------------
// CPU accounting from /proc: who used the two cores during a measurement.

const CLK_TCK = 100;
interface CpuSnapshot {
  procs: Map<number, { comm: string; ticks: number }>;
  busy: number;
  total: number;
}

function cpuSnapshot(): CpuSnapshot {
  const procs = new Map<number, { comm: string; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      procs.set(Number(entry), { comm, ticks: Number(fields[11]) + Number(fields[12]) }); // utime + stime
    } catch {
      /* exited meanwhile */
    }
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = cpu[3] + cpu[4];
  return { procs, busy: total - idle, total };
}

export interface CpuUse {
  /** CPU seconds per role over the measurement. */
  seconds: Record<string, number>;
  /** Share of the machine's CPU time that was busy (all cores). */
  machineBusy: number;
}

function cpuUse(before: CpuSnapshot, after: CpuSnapshot, roles: Record<number, string>): CpuUse {
  const seconds: Record<string, number> = {};
  for (const [pid, p] of after.procs) {
    const delta = p.ticks - (before.procs.get(pid)?.ticks ?? 0);
    if (delta <= 0) continue;
    const role = roles[pid] ?? (p.comm === 'postgres' ? 'postgres' : 'other');
    seconds[role] = (seconds[role] ?? 0) + delta / CLK_TCK;
  }
  return { seconds, machineBusy: (after.busy - before.busy) / Math.max(1, after.total - before.total) };
}

// ---------------------------------------------------------------------------------------------
// Load generation

interface LoadResult {
  label: string;
  seconds: number;
  ok: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  cpu: CpuUse;
  /** The stalls of PostgreSQL's disk during the load (bench/disk.ts); null when not on this machine. */
  disk?: DiskStalls | null;
  /** Sorted 2xx latencies (ms); kept to merge rounds. */
  latencies: Float64Array;
}

/** One result from several rounds of the same load (C alternates its two pages). */
function merge(label: string, parts: LoadResult[]): LoadResult {
  const latencies = Float64Array.from(parts.flatMap((p) => [...p.latencies])).sort();
  const sum = (f: (p: LoadResult) => number) => parts.reduce((a, p) => a + f(p), 0);
  const seconds = sum((p) => p.seconds);
  const cpuSeconds: Record<string, number> = {};
  for (const p of parts) for (const [k, v] of Object.entries(p.cpu.seconds)) cpuSeconds[k] = (cpuSeconds[k] ?? 0) + v;
  const statusCodes: Record<string, number> = {};
  for (const p of parts) for (const [k, v] of Object.entries(p.statusCodes)) statusCodes[k] = (statusCodes[k] ?? 0) + v;
  return {
    label,
    seconds,
    ok: sum((p) => p.ok),
    rps: sum((p) => p.ok) / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.length ? latencies[latencies.length - 1] : NaN,
    non2xx: sum((p) => p.non2xx),
    errors: sum((p) => p.errors),
    timeouts: sum((p) => p.timeouts),
    statusCodes,
    cpu: { seconds: cpuSeconds, machineBusy: sum((p) => p.cpu.machineBusy * p.seconds) / seconds },
    disk: parts.some((p) => p.disk)
      ? { count: sum((p) => p.disk?.count ?? 0), longestMs: Math.max(...parts.map((p) => p.disk?.longestMs ?? 0)), totalMs: sum((p) => p.disk?.totalMs ?? 0) }
      : null,
    latencies,
  };
}

/** Runs autocannon and measures 2xx latencies exactly (ms, from autocannon's own timing). */
async function load(label: string, opts: autocannon.Options, roles: Record<number, string>, quiet = false): Promise<LoadResult> {
  const latencies: number[] = [];
  const before = cpuSnapshot();
  const stopDisk = watchDisk(diskDevice);
  const instance = autocannon({ renderProgressBar: false, renderResultsTable: false, timeout: 30, ...opts });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, ms: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
  });
  const r = await instance;
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));
  const run = { seconds: r.duration, ok: r['2xx'], non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, statusCodes, latencies, disk: stopDisk() };
  return loadResult(label, run, cpuUse(before, cpuSnapshot(), roles), quiet);
}

/** `CONNECTIONS` connections as fast as they go for `seconds`, each request made by `request` (its body and headers fresh). */
function closedLoop(url: string, seconds: number, request: OpenLoopOptions['request']): autocannon.Options {
  return { url, connections: CONNECTIONS, duration: seconds, requests: [{ setupRequest: (req) => ({ ...req, ...request() }) }] };
}

/**
 * The warm-up of a fixed-rate load: OPEN_LOOP_WARMUP_SECONDS at the rate, a checkpoint (settle: the
 * database as every measurement starts it), then `opts.seconds` more at the rate. V8 optimises a
 * process's code for what it has seen: a fresh gateway and its client, warmed by 3,000 requests,
 * still compiled with TurboFan during the measurement (perf, 2026-11-27: both processes' compiler
 * threads at once, about 10,500 requests in, up to a core of the 2 for some 200 ms, and again later),
 * and every request of those moments waited; a warm-up at five times the rate left code optimised
 * for big batches, deoptimised and compiled again at the rate. bench/HISTORY.md, 2026-11-27.
 */
async function warmUpOpen(ctx: Context, opts: OpenLoopOptions, roles: Record<number, string>): Promise<void> {
  if (OPEN_LOOP_WARMUP_SECONDS) await loadOpen('warm-up', { ...opts, seconds: OPEN_LOOP_WARMUP_SECONDS }, roles, true);
  await settle(ctx);
  await loadOpen('warm-up', opts, roles, true);
}

/** A fixed-rate load (bench/open-loop.ts): latencies counted from each request's due time. */
async function loadOpen(label: string, opts: OpenLoopOptions, roles: Record<number, string>, quiet = false): Promise<LoadResult> {
  const before = cpuSnapshot();
  const stopDisk = watchDisk(diskDevice);
  const { client, ...run } = await openLoop(opts);
  const result = loadResult(label, { ...run, disk: stopDisk() }, cpuUse(before, cpuSnapshot(), roles), quiet);
  if (!quiet) console.log(`  the client: requests sent late by p99 ${fmt(client.sentLateP99, 1)} ms, at most ${fmt(client.sentLateMax, 1)} ms; ${client.socketsOpened} sockets opened`);
  return result;
}

function loadResult(label: string, r: Omit<LoadResult, 'label' | 'rps' | 'p50' | 'p99' | 'max' | 'cpu' | 'latencies'> & { latencies: number[] }, cpu: CpuUse, quiet: boolean): LoadResult {
  const sorted = Float64Array.from(r.latencies).sort();
  const result: LoadResult = {
    ...r,
    label,
    rps: r.ok / r.seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    cpu,
    latencies: sorted,
  };
  if (!quiet) {
    console.log(
      `  ${label}: ${fmt(result.rps, 0)} req/s, p50 ${fmt(result.p50, 1)} ms, p99 ${fmt(result.p99, 1)} ms, ` +
        `2xx ${result.ok}, non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}${stallsSuffix(result.disk)}`,
    );
  }
  return result;
}

const fmt = (n: number, digits: number) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');

// ---------------------------------------------------------------------------------------------
// Shared context and request material

interface Context {
  admin: pg.Client;
  cpfs: string[];
  qrCode: string;
  results: Results;
  /** The floor's merchant (A2 writes the real tables as it), made with floor_tx by withFloor. */
  floorUserId?: string;
}

interface Results {
  /** AB: A and B (A3 and B2) measured in alternating slices; the ratio of each pair of neighbouring slices. */
  interleaved?: { floor: LoadResult; creation: GatewayResult; ratios: number[]; floorOpenLoop?: LoadResult; openLoop?: GatewayResult };
  floor?: LoadResult & { serverCpuMsPerRequest: number };
  floorSql?: LoadResult & { serverCpuMsPerRequest: number };
  creation?: GatewayResult;
  /** B1: B with group commit off. */
  creationSingle?: GatewayResult;
  /** B2: B at a fixed rate; with group commit off. */
  openLoop?: GatewayResult;
  /** A3: the floor at B2's rate. */
  floorOpenLoop?: LoadResult;
  openLoopSingle?: GatewayResult;
  /** F: status changes of one merchant (simulate PAID); F1 with batching off (scenario creation1). */
  simulate?: GatewayResult;
  simulateSingle?: GatewayResult;
  /** E: B on embedded PGlite; with group commit off. */
  embedded?: GatewayResult;
  embeddedSingle?: GatewayResult;
  webhooks?: WebhookBenchResult;
  checkout?: CheckoutBenchResult;
  subsMetrics?: MetricsBenchResult;
  subsRenewal?: RenewalBenchResult;
  list?: { rows: number; depthPages: number; offset: number; first: LoadResult; deep: LoadResult; plans: string[] };
  reports?: { rows: number; days: number; refunds: number; seedSeconds: number; migrationSeconds: number; dailyRows: number; writeCost: { with: number; without: number }; runs: LoadResult[]; indexUse: string[] };
}

let sequence = 0;
function pixBody(ctx: Context): string {
  const n = sequence++;
  return JSON.stringify({
    product: `Pedido ${n % 1000}`,
    amountCents: 100 + ((n * 7919) % 99_900),
    clientName: 'Cliente Benchmark',
    clientEmail: `cliente${n % 5000}@example.com`,
    clientDocument: ctx.cpfs[n % ctx.cpfs.length],
    paymentMethod: 'PIX',
  });
}

async function api<T = any>(base: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed };
}

/** Registers a merchant and a development key with every permission, through the API. */
async function merchant(gw: Child, name: string): Promise<{ userId: string; key: string }> {
  const email = `bench.${runId}.${name}@example.com`;
  const reg = await api(gw.url, 'POST', '/api/auth/register', { name: `Loja ${name}`, email, password: 'correct horse battery' });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const cred = await api(gw.url, 'POST', '/api/credentials', { name: 'bench', environment: 'DEVELOPMENT' }, { authorization: `Bearer ${reg.body.token}` });
  if (cred.status !== 201) throw new Error(`credential failed: ${cred.status} ${JSON.stringify(cred.body)}`);
  return { userId: reg.body.user.id, key: cred.body.key };
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/**
 * The floor's process (bench/floor.ts) around `run`: A and A2. Its table and merchant are made the
 * first time. It is stopped before the gateway starts: both pools at once (50 + 50) would reach
 * max_connections (100).
 */
async function withFloor(ctx: Context, run: (floor: Child) => Promise<void>): Promise<void> {
  if (!ctx.floorUserId) {
    await ctx.admin.query(`CREATE TABLE floor_tx (LIKE transactions INCLUDING DEFAULTS)`);
    await ctx.admin.query(`ALTER TABLE floor_tx ADD PRIMARY KEY (id)`);
    await ctx.admin.query(`CREATE INDEX floor_tx_user_created ON floor_tx (user_id, livemode, created_at, id)`);
    const {
      rows: [user],
    } = await ctx.admin.query<{ id: string }>(
      `INSERT INTO users (id, name, email, password_hash, referral_code) VALUES (gen_random_uuid(), 'Floor', $1, 'x', $2) RETURNING id`,
      [`floor.${runId}@example.com`, `FLOOR${runId}`.toUpperCase()],
    );
    ctx.floorUserId = user.id;
  }
  const floor = await startChild('floor', 'floor.ts', { DATABASE_POOL_SIZE: String(POOL_SIZE), FLOOR_USER_ID: ctx.floorUserId });
  try {
    await run(floor);
  } finally {
    await floor.stop();
  }
}

/**
 * Before each write measurement: a quiet machine and a CHECKPOINT, so that no measurement inherits
 * the WAL of the one before it (PostgreSQL forces a checkpoint once max_wal_size of WAL is
 * written, and the full-page writes after one cost a burst of WAL and CPU). Needs a superuser (or,
 * from PostgreSQL 15, pg_checkpoint); without it the run says so and goes on.
 */
async function settle(ctx: Context): Promise<void> {
  await waitForQuiet();
  try {
    await ctx.admin.query('CHECKPOINT');
  } catch (err) {
    console.log(`  no CHECKPOINT before this measurement (${(err as Error).message})`);
  }
}

async function floorOnly(ctx: Context, floor: Child): Promise<void> {
  await settle(ctx);
  console.log(`\n[A] floor: POST /floor, ${CONNECTIONS} connections, ${SECONDS} s`);
  const roles = { [floor.pid]: 'server', [process.pid]: 'autocannon' };
  const request = () => ({ method: 'POST', path: '/floor', headers: { 'content-type': 'application/json' }, body: pixBody(ctx) });
  await load('warm-up', closedLoop(floor.url, WARMUP_SECONDS, request), roles, true);
  await floor.reset();
  const result = await load('floor', closedLoop(floor.url, SECONDS, request), roles);
  const stats = await floor.stats();
  const serverCpuMsPerRequest = stats.cpuMs / Math.max(1, result.ok + result.non2xx);
  console.log(`  floor process CPU: ${fmt(serverCpuMsPerRequest, 3)} ms per request`);
  ctx.results.floor = { ...result, serverCpuMsPerRequest };
  if (SCENARIOS.includes('openloop')) {
    // A3: the floor at B2's fixed rate: the latency this machine gives one INSERT per request with
    // the load generator beside it, for B2 to be read against (settled by its warm-up).
    console.log(`\n[A3] floor at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s (open loop): POST /floor, up to ${CONNECTIONS} connections, ${SECONDS} s`);
    const opts = (seconds: number): OpenLoopOptions => ({ url: floor.url, rate: OPEN_LOOP_RATE, seconds, connections: CONNECTIONS, request });
    await warmUpOpen(ctx, opts(WARMUP_SECONDS), roles);
    ctx.results.floorOpenLoop = await loadOpen('floor open loop', opts(SECONDS), roles);
  }
}

/**
 * A2: the same SQL statements as PIX creation from raw pg
 * in a bare route: separates the cost of the SQL design from the cost of the application code.
 */
async function scenarioFloorSql(ctx: Context, floor: Child): Promise<void> {
  await settle(ctx);
  console.log(`\n[A2] SQL floor: POST /floor-sql (PIX creation's statement, raw pg), ${CONNECTIONS} connections, ${SECONDS} s`);
  const roles = { [floor.pid]: 'server', [process.pid]: 'autocannon' };
  let key = 0;
  const opts = (duration: number): autocannon.Options => ({
    url: floor.url,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: 'POST',
        path: '/floor-sql',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': `floor-${runId}-${key++}` }, body: pixBody(ctx) }),
      },
    ],
  });
  await load('warm-up', opts(WARMUP_SECONDS), roles, true);
  await floor.reset();
  const result = await load('SQL floor', opts(SECONDS), roles);
  const stats = await floor.stats();
  const sent = Math.max(1, result.ok + result.non2xx);
  const total = Object.values(stats.queries).reduce((a, b) => a + b, 0);
  console.log(`  statements per request: ${fmt(total / sent, 2)}; floor process CPU: ${fmt(stats.cpuMs / sent, 3)} ms per request; PostgreSQL CPU ${fmt(((result.cpu.seconds.postgres ?? 0) * 1000) / sent, 2)} ms per request`);
  ctx.results.floorSql = { ...result, serverCpuMsPerRequest: stats.cpuMs / sent };
}

/** A load on the gateway process, with what that process reported of it. */
type GatewayResult = LoadResult & { queriesPerRequest: Record<string, number>; serverCpuMsPerRequest: number; serverSystemMsPerRequest: number };

/**
 * PIX creations through a gateway process, a unique Idempotency-Key per request: 50 connections as
 * fast as they go, or with `rate`, that many requests per second from all of them together.
 */
async function creationLoad(ctx: Context, gw: Child, label: string, rate?: number): Promise<GatewayResult> {
  const m = await merchant(gw, label.toLowerCase().replace(/[^a-z0-9]+/g, '-'));
  // One request first, to check the shape before hammering.
  const probe = await api(gw.url, 'POST', '/api/v1/transactions', JSON.parse(pixBody(ctx)), { 'api-key': m.key, 'idempotency-key': `probe-${runId}-${label}` });
  if (probe.status !== 201 || !probe.body.transaction?.pix?.qrCode) throw new Error(`PIX creation probe failed: ${probe.status} ${JSON.stringify(probe.body)}`);
  let key = 0;
  const request = () => ({
    method: 'POST',
    path: '/api/v1/transactions',
    headers: { 'content-type': 'application/json', 'api-key': m.key, 'idempotency-key': `bench-${runId}-${label}-${key++}` },
    body: pixBody(ctx),
  });
  return gatewayLoad(ctx, gw, label, request, rate);
}

/**
 * A warm-up, then SECONDS of `request` against the gateway (with a rate, an open loop, bench/open-loop.ts,
 * not autocannon's overallRate: bursts, see there; else a closed loop), and what the gateway
 * process reports of it: statements, CPU, event loop, GC, its CPU profile with BENCH_PROFILE.
 */
async function gatewayLoad(ctx: Context, gw: Child, label: string, request: OpenLoopOptions['request'], rate?: number): Promise<GatewayResult> {
  const roles = { [gw.pid]: 'server', [process.pid]: 'autocannon' };
  const run = (name: string, seconds: number, quiet = false) =>
    rate
      ? loadOpen(name, { url: gw.url, rate, seconds, connections: CONNECTIONS, request }, roles, quiet)
      : load(name, closedLoop(gw.url, seconds, request), roles, quiet);
  if (rate) await warmUpOpen(ctx, { url: gw.url, rate, seconds: WARMUP_SECONDS, connections: CONNECTIONS, request }, roles);
  else await run('warm-up', WARMUP_SECONDS, true);
  await gw.reset();
  const profileFile = join(os.tmpdir(), `cofre-bench-${runId}-${label.replace(/[^A-Za-z0-9]+/g, '-')}.${PROFILE === 'cpu' ? 'cpuprofile' : 'heapprofile'}`);
  if (PROFILE) await gw.profileStart(PROFILE);
  const result = await run(label, SECONDS);
  if (PROFILE) await gw.profileStop(profileFile);
  const stats = await gw.stats();
  const sent = Math.max(1, result.ok + result.non2xx);
  const queriesPerRequest = Object.fromEntries(
    Object.entries(stats.queries)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => [k, v / sent]),
  );
  const total = Object.values(queriesPerRequest).reduce((a, b) => a + b, 0);
  console.log(`  non-2xx responses: ${result.non2xx}${result.non2xx ? ` (status codes ${JSON.stringify(result.statusCodes)})` : ' (none, as required)'}`);
  console.log(`  statements per request: ${fmt(total, 2)} (${Object.entries(queriesPerRequest).map(([k, v]) => `${k} ${fmt(v, 2)}`).join(', ')})`);
  console.log(`  gateway process CPU: ${fmt(stats.cpuMs / sent, 2)} ms per request (kernel ${fmt(stats.systemMs / sent, 2)} ms)`);
  console.log(
    `  gateway event loop delay p50 ${fmt(stats.loopDelay.p50, 1)} ms, p99 ${fmt(stats.loopDelay.p99, 1)} ms, max ${fmt(stats.loopDelay.max, 1)} ms; ` +
      `GC ${stats.gc.count} pauses, ${fmt(stats.gc.totalMs, 0)} ms in all, longest ${fmt(stats.gc.maxMs, 1)} ms (${stats.gc.majorCount} mark-compact, longest ${fmt(stats.gc.majorMaxMs, 1)} ms); ` +
      `time inside the gateway p50 ${fmt(stats.served.p50, 1)} ms, p99 ${fmt(stats.served.p99, 1)} ms`,
  );
  const b = stats.batches;
  if (b) {
    console.log(
      `  creation batches: ${b.count} (${fmt(b.rows / b.count, 1)} creations each on average), each ran p50 ${fmt(b.ran.p50, 1)} ms, p99 ${fmt(b.ran.p99, 1)} ms; ` +
        `its oldest creation had waited for it p50 ${fmt(b.waited.p50, 1)} ms, p99 ${fmt(b.waited.p99, 1)} ms`,
    );
  }
  if (PROFILE) console.log(summarizeProfile(profileFile, sent));
  return { ...result, queriesPerRequest, serverCpuMsPerRequest: stats.cpuMs / sent, serverSystemMsPerRequest: stats.systemMs / sent };
}

/** B: PIX creation through the real gateway, a unique Idempotency-Key per request. */
async function scenarioPixCreation(ctx: Context, gw: Child): Promise<void> {
  await settle(ctx);
  console.log(`\n[B] PIX creation: POST /api/v1/transactions, ${CONNECTIONS} connections, ${SECONDS} s`);
  ctx.results.creation = await creationLoad(ctx, gw, 'PIX creation');
}

/**
 * F: status changes, the sandbox's POST /api/v1/transactions/{id}/simulate PAID, each on a PENDING
 * PIX transaction of its own (seeded in SQL), 50 connections: every one a locked row, a ledger
 * journal on the merchant's accounts, events. Afterwards the ledger is checked.
 */
async function scenarioSimulate(ctx: Context, gw: Child, label: string): Promise<GatewayResult> {
  const m = await merchant(gw, label.toLowerCase());
  const n = 400_000;
  const { rows: [client] } = await ctx.admin.query<{ id: string }>(
    `INSERT INTO clients (id, user_id, livemode, name, email, document, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, false, 'Cliente Seed', 'seed@example.com', $2, now(), now()) RETURNING id`,
    [m.userId, ctx.cpfs[0]],
  );
  // Display ids and txids unique to this label (F and F1 run in one schema).
  const { rows } = await ctx.admin.query<{ id: string }>(
    `INSERT INTO transactions (id, user_id, livemode, display_id, product, amount_cents, charged_cents, fee_cents, status, payment_method,
       client_id, client_name, client_email, client_document, installments, pix_txid, pix_qr_code, expires_at, provider, created_at, updated_at)
     SELECT gen_random_uuid(), $1, false, rpad($6, 2, 'X') || lpad(g::text, 8, '0'), 'Pedido', 1000, 1000, 10, 'PENDING', 'PIX', $2, 'Cliente Seed',
       'seed@example.com', $3, 1, 'S' || rpad($6, 4, 'X') || lpad(g::text, 20, '0'), $4, now() + interval '1 day', 'sandbox', now(), now()
     FROM generate_series(1, $5::int) g RETURNING id`,
    [m.userId, client.id, ctx.cpfs[0], ctx.qrCode, n, label],
  );
  await ctx.admin.query('ANALYZE transactions');
  await settle(ctx);
  console.log(`\n[${label}] status changes: POST /api/v1/transactions/{id}/simulate PAID, ${CONNECTIONS} connections, ${SECONDS} s`);
  let next = 0;
  const request = () => ({
    method: 'POST',
    path: `/api/v1/transactions/${rows[next++ % n].id}/simulate`,
    headers: { 'content-type': 'application/json', 'api-key': m.key },
    body: '{"outcome":"PAID"}',
  });
  const result = await gatewayLoad(ctx, gw, `${label} simulate PAID`, request);
  console.log(`  ${cpuLine(result)}`);
  const { rows: [check] } = await ctx.admin.query(
    `SELECT (SELECT count(*) FROM transactions WHERE user_id = $1 AND status = 'PAID')::int AS paid,
            (SELECT coalesce(sum(amount_cents), 0) FROM ledger_entries)::bigint AS entries,
            (SELECT count(*) FROM ledger_accounts a WHERE a.balance_cents <> (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_entries e WHERE e.account_id = a.id))::int AS off`,
    [m.userId],
  );
  console.log(`  paid ${check.paid} (warm-up included), ledger entries sum ${check.entries}, accounts off their entries ${check.off}`);
  if (Number(check.entries) !== 0 || check.off !== 0 || result.non2xx + result.errors > 0) process.exitCode = 1;
  return result;
}

/**
 * B2: the same creations at a fixed rate (OPEN_LOOP_RATE per second, one every 1/rate s, over up to
 * 50 connections): the latency a steady load sees, rather than the throughput of a saturating one.
 */
async function scenarioOpenLoop(ctx: Context, gw: Child, label: string): Promise<GatewayResult> {
  // Settled by its warm-up (warmUpOpen).
  console.log(`\n[${label}] PIX creation at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s: POST /api/v1/transactions, ${CONNECTIONS} connections, ${SECONDS} s`);
  return creationLoad(ctx, gw, `${label} open loop`, OPEN_LOOP_RATE);
}

/**
 * AB: the floor (A) and PIX creation (B) in alternating slices of SLICE_SECONDS (A B, then B A, ...),
 * both servers up, until each has run SECONDS; with openloop, A3 and B2 the same way. A run of A
 * then a run of B a minute apart measures two moments of a host whose speed drifts by tens of per
 * cent in minutes (bench/HISTORY.md); slices put both in the same moments, and the ratio of each
 * pair of neighbouring slices shows how much a single ratio can be trusted. Both pools at once:
 * the floor's 50 connections and the few the gateway's group commit uses stay under max_connections.
 */
async function scenarioInterleaved(ctx: Context): Promise<void> {
  await withFloor(ctx, async (floor) => {
    const gw = await startGateway();
    try {
      const m = await merchant(gw, 'interleaved');
      let key = 0;
      const floorRequest = () => ({ method: 'POST', path: '/floor', headers: { 'content-type': 'application/json' }, body: pixBody(ctx) });
      const creationRequest = () => ({
        method: 'POST',
        path: '/api/v1/transactions',
        headers: { 'content-type': 'application/json', 'api-key': m.key, 'idempotency-key': `ab-${runId}-${key++}` },
        body: pixBody(ctx),
      });
      const roles = { [floor.pid]: 'server', [gw.pid]: 'server', [process.pid]: 'autocannon' };
      const rounds = Math.max(2, Math.round(SECONDS / SLICE_SECONDS));
      const slices = async (label: string, rate: number | undefined) => {
        const run = (url: string, request: OpenLoopOptions['request'], seconds: number) =>
          rate ? loadOpen(label, { url, rate, seconds, connections: CONNECTIONS, request }, roles, true) : load(label, closedLoop(url, seconds, request), roles, true);
        await settle(ctx);
        console.log(`\n[${label}] ${rate ? `A3 and B2 at ${rate.toLocaleString('en-US')}/s` : 'A and B'} in alternating slices: ${rounds} x ${SLICE_SECONDS} s each, ${CONNECTIONS} connections`);
        const warmUp = (url: string, request: OpenLoopOptions['request']) =>
          rate ? warmUpOpen(ctx, { url, rate, seconds: WARMUP_SECONDS, connections: CONNECTIONS, request }, roles) : run(url, request, WARMUP_SECONDS);
        await warmUp(floor.url, floorRequest);
        await warmUp(gw.url, creationRequest);
        await floor.reset();
        await gw.reset();
        const a: LoadResult[] = [];
        const b: LoadResult[] = [];
        for (let round = 0; round < rounds; round++) {
          for (const side of round % 2 ? ['B', 'A'] : ['A', 'B']) {
            if (side === 'A') a.push(await run(floor.url, floorRequest, SLICE_SECONDS));
            else b.push(await run(gw.url, creationRequest, SLICE_SECONDS));
          }
        }
        const [floorStats, gwStats] = [await floor.stats(), await gw.stats()];
        const A = merge(rate ? 'floor open loop' : 'floor', a);
        const B = merge(rate ? 'B2 open loop' : 'PIX creation', b);
        const served = (r: LoadResult) => Math.max(1, r.ok + r.non2xx);
        const pg = (r: LoadResult) => ((r.cpu.seconds.postgres ?? 0) * 1000) / served(r);
        for (const r of [A, B]) {
          console.log(`  ${r.label}: ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms, 2xx ${r.ok}, non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts}`);
        }
        console.log(`  CPU per request: floor process ${fmt(floorStats.cpuMs / served(A), 3)} ms, PostgreSQL ${fmt(pg(A), 3)} ms; gateway ${fmt(gwStats.cpuMs / served(B), 3)} ms, PostgreSQL ${fmt(pg(B), 3)} ms`);
        const creation: GatewayResult = { ...B, queriesPerRequest: {}, serverCpuMsPerRequest: gwStats.cpuMs / served(B), serverSystemMsPerRequest: gwStats.systemMs / served(B) };
        return { A, B: creation, ratios: b.map((x, i) => x.rps / a[i].rps) };
      };
      const closed = await slices('AB', undefined);
      const sorted = [...closed.ratios].sort((x, y) => x - y);
      console.log(`  B / A: ${fmt((closed.B.rps / closed.A.rps) * 100, 1)}% over all slices; per pair of neighbouring slices median ${fmt(sorted[sorted.length >> 1] * 100, 1)}%, from ${fmt(sorted[0] * 100, 1)}% to ${fmt(sorted[sorted.length - 1] * 100, 1)}%`);
      ctx.results.interleaved = { floor: closed.A, creation: closed.B, ratios: closed.ratios };
      if (SCENARIOS.includes('openloop')) {
        const open = await slices('AB open loop', OPEN_LOOP_RATE);
        Object.assign(ctx.results.interleaved, { floorOpenLoop: open.A, openLoop: open.B });
      }
      if (closed.B.non2xx + closed.B.errors + closed.B.timeouts > 0) process.exitCode = 1;
    } finally {
      await gw.stop();
    }
  });
}

/** A gateway process of its own for a comparison scenario (run while no other gateway is up: pools of 50). */
function startGateway(env: Record<string, string> = {}): Promise<Child> {
  return startChild('gateway', 'server.ts', {
    JWT_SECRET,
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'warn',
    RUN_JOBS: 'false',
    BASE_URL: 'http://localhost:3000',
    ...env,
  });
}

/**
 * B1: B with group commit off (BENCH_GROUP_COMMIT=off: every creation in a statement of its own, as
 * before issue 17), and B2 on it too when asked: the comparison, in the same run.
 */
async function scenarioSingleStatements(ctx: Context): Promise<void> {
  const gw = await startGateway({ BENCH_GROUP_COMMIT: 'off' });
  try {
    await settle(ctx);
    console.log(`\n[B1] PIX creation, group commit off: POST /api/v1/transactions, ${CONNECTIONS} connections, ${SECONDS} s`);
    ctx.results.creationSingle = await creationLoad(ctx, gw, 'B1 one statement per creation');
    if (SCENARIOS.includes('openloop')) ctx.results.openLoopSingle = await scenarioOpenLoop(ctx, gw, 'B2-1');
    if (SCENARIOS.includes('simulate')) ctx.results.simulateSingle = await scenarioSimulate(ctx, gw, 'F1');
  } finally {
    await gw.stop();
  }
}

/**
 * E: PIX creation on the embedded database (PGlite in a fresh data directory, one connection), with
 * group commit and without it (E1). The gateway process runs the database too.
 */
async function scenarioEmbedded(ctx: Context): Promise<void> {
  for (const [label, env] of [
    ['E embedded', {}],
    ['E1 embedded, one statement per creation', { BENCH_GROUP_COMMIT: 'off' }],
  ] as const) {
    const dir = mkdtempSync(join(os.tmpdir(), 'cofre-bench-embedded-'));
    const gw = await startGateway({ ...env, BENCH_EMBEDDED_DIR: dir });
    try {
      await waitForQuiet();
      console.log(`\n[${label}] PIX creation on PGlite (${dir}): POST /api/v1/transactions, ${CONNECTIONS} connections, ${SECONDS} s`);
      const result = await creationLoad(ctx, gw, label);
      if (label === 'E embedded') ctx.results.embedded = result;
      else ctx.results.embeddedSingle = result;
    } finally {
      await gw.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

async function scenarioListDepth(ctx: Context, gw: Child): Promise<void> {
  console.log(`\n[C] list depth: ${ROWS.toLocaleString('en-US')} transactions, GET /api/v1/transactions?limit=${LIST_LIMIT}`);
  const m = await merchant(gw, 'listing');
  await seedTransactions(ctx, m.userId, ROWS);
  const depthPages = Math.min(DEPTH_PAGES, Math.floor(ROWS / LIST_LIMIT) - 2);
  const offset = depthPages * LIST_LIMIT;
  if (depthPages < 1) throw new Error('BENCH_ROWS is too small for the list scenario');
  const order = 'createdAt:desc';
  const { rows } = await ctx.admin.query<{ id: string; created_at: Date }>(
    `SELECT id, created_at FROM transactions WHERE user_id = $1 AND livemode = false ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 2`,
    [m.userId, offset - 1],
  );
  const cursors = new Cursors(loadConfig({ JWT_SECRET, DATABASE_URL }).cursorSecret);
  const cursor = cursors.of('transactions', { userId: m.userId, livemode: false }).encode({ order, value: rows[0].created_at.toISOString(), id: rows[0].id });
  const firstPath = `/api/v1/transactions?limit=${LIST_LIMIT}`;
  const deepPath = `/api/v1/transactions?limit=${LIST_LIMIT}&cursor=${encodeURIComponent(cursor)}`;
  // The deep page must be the one that follows row `offset - 1`: its first row is row `offset`.
  const check = await api(gw.url, 'GET', deepPath, undefined, { 'api-key': m.key });
  if (check.status !== 200 || check.body.transactions?.length !== LIST_LIMIT || check.body.transactions[0].id !== rows[1].id) {
    throw new Error(`deep page check failed: ${check.status} ${JSON.stringify(check.body).slice(0, 300)}`);
  }
  const first = await api(gw.url, 'GET', firstPath, undefined, { 'api-key': m.key });
  if (first.status !== 200 || first.body.transactions?.length !== LIST_LIMIT) throw new Error(`first page check failed: ${first.status}`);
  await waitForQuiet();
  console.log(`  deep page: ${depthPages.toLocaleString('en-US')} pages deep (rows ${offset + 1}..${offset + LIST_LIMIT} in createdAt desc order), cursor signed like the server's`);

  // The plans of the two queries the list route sends (same shape as Kysely's SQL), as evidence.
  const plans: string[] = [];
  for (const [name, cursorRow] of [['first page', null], ['deep page', rows[0]]] as const) {
    const where = cursorRow ? 'AND (created_at, id) < ($3, $4)' : '';
    const params = cursorRow ? [m.userId, false, cursorRow.created_at, cursorRow.id] : [m.userId, false];
    const { rows: plan } = await ctx.admin.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM transactions WHERE user_id = $1 AND livemode = $2 ${where} ORDER BY created_at DESC, id DESC LIMIT ${LIST_LIMIT + 1}`,
      params,
    );
    const text = plan.map((r) => r['QUERY PLAN']);
    console.log(`  plan, ${name}:\n${text.map((l) => `    ${l}`).join('\n')}`);
    const scan = text.find((l) => /Scan/.test(l))?.replace(/\s*\(cost=[^)]*\)/, '').replace(/^[\s>-]+/, '') ?? '?';
    const buffers = text.find((l) => /Buffers:/.test(l))?.trim() ?? '';
    const exec = text.find((l) => /Execution Time/.test(l))?.trim() ?? '';
    plans.push(`${name}: ${scan}; ${buffers}; ${exec}`);
  }

  const roles = { [gw.pid]: 'server', [process.pid]: 'autocannon' };
  const opts = (path: string, duration: number): autocannon.Options => ({
    url: gw.url,
    connections: LIST_CONNECTIONS,
    duration,
    requests: [{ method: 'GET', path, headers: { 'api-key': m.key } }],
  });
  await load('warm-up', opts(firstPath, 1), roles, true);
  await load('warm-up', opts(deepPath, 1), roles, true);
  // Alternating rounds, so that a burst of other activity on the machine hits both pages alike.
  const rounds = Math.max(1, LIST_SECONDS);
  const firstParts: LoadResult[] = [];
  const deepParts: LoadResult[] = [];
  for (let i = 0; i < rounds; i++) {
    firstParts.push(await load('first page', opts(firstPath, LIST_SECONDS / rounds), roles, true));
    deepParts.push(await load('deep page', opts(deepPath, LIST_SECONDS / rounds), roles, true));
  }
  const firstResult = merge('first page', firstParts);
  const deepResult = merge(`page ${depthPages}`, deepParts);
  for (const r of [firstResult, deepResult]) {
    console.log(`  ${r.label}: ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms, 2xx ${r.ok}, non-2xx ${r.non2xx}, errors ${r.errors + r.timeouts}`);
  }
  console.log(`  deep / first: p50 x${fmt(deepResult.p50 / firstResult.p50, 2)}, p99 x${fmt(deepResult.p99 / firstResult.p99, 2)}, req/s x${fmt(deepResult.rps / firstResult.rps, 2)}`);
  ctx.results.list = { rows: ROWS, depthPages, offset, first: firstResult, deep: deepResult, plans };
}

/**
 * R: the reports of a merchant with ROWS transactions over REPORT_DAYS days (a third each PIX, boleto,
 * card; 40% paid; one paid payment in 50 refunded), as the dashboard asks for them: one request at a
 * time (REPORT_CONNECTIONS), for 30 and 90 days. The rows are seeded with the report triggers on (the
 * daily totals are built as the rows are written, as in production). The scan counters show what the
 * reports read: the daily totals' primary key, never the transactions.
 */
async function scenarioReports(ctx: Context, gw: Child): Promise<void> {
  console.log(`\nR. reports: ${ROWS.toLocaleString('en-US')} transactions over ${REPORT_DAYS} days for one merchant`);
  const m = await merchant(gw, 'reports');
  const started = Date.now();
  // The seeded rows are totalled afterwards by migration 018 itself, as an existing database's rows
  // are (then 023 puts the transactions' triggers per statement back on top of it).
  await ctx.admin.query('ALTER TABLE transactions DISABLE TRIGGER transactions_report_days_insert');
  await ctx.admin.query('ALTER TABLE refunds DISABLE TRIGGER refunds_report_days');
  await seedTransactions(ctx, m.userId, ROWS, (REPORT_DAYS * 86_400) / ROWS);
  const refunds = await ctx.admin.query(
    `INSERT INTO refunds (id, user_id, livemode, transaction_id, amount_cents, fee_returned_cents, status, provider, created_at, updated_at)
     SELECT gen_random_uuid(), user_id, livemode, id, amount_cents / 2, 0, 'SUCCEEDED', 'sandbox', paid_at + interval '2 days', paid_at + interval '2 days'
       FROM transactions WHERE user_id = $1 AND status = 'PAID' AND abs(hashtext(id::text)) % 50 = 0 AND paid_at < now() - interval '2 days'`,
    [m.userId],
  );
  const totalling = Date.now();
  const database = await connect({ url: DATABASE_URL, schema: SCHEMA, poolSize: 1 });
  try {
    await migrations['023_report_days_per_statement'].down!(database.db);
    await migrations['018_report_days'].down!(database.db);
    await migrations['018_report_days'].up(database.db);
    await migrations['023_report_days_per_statement'].up(database.db);
  } finally {
    await database.close();
  }
  const migrationSeconds = (Date.now() - totalling) / 1000;
  await ctx.admin.query('VACUUM ANALYZE transactions');
  await ctx.admin.query('VACUUM ANALYZE refunds');
  await ctx.admin.query('VACUUM ANALYZE report_days');
  const seedSeconds = (Date.now() - started) / 1000;
  const { rows: [days] } = await ctx.admin.query<{ n: string }>('SELECT count(*) AS n FROM report_days');
  console.log(`  ${refunds.rowCount} refunds; migration 018 totalled them into ${days.n} daily rows in ${fmt(migrationSeconds, 1)} s; seeded in ${Math.round(seedSeconds)} s`);

  // What the triggers add to a write: single-row INSERTs (each its own statement and commit, as a
  // creation is), alternately with and without the trigger, in rounds.
  const insertMs = { with: [] as number[], without: [] as number[] };
  const { rows: [sample] } = await ctx.admin.query<{ id: string }>('SELECT id FROM transactions WHERE user_id = $1 LIMIT 1', [m.userId]);
  const insertOne = `INSERT INTO transactions SELECT (jsonb_populate_record(null::transactions, to_jsonb(t) || jsonb_build_object(
      'id', gen_random_uuid(), 'display_id', 'W' || md5(random()::text), 'pix_txid', null, 'created_at', now(), 'paid_at', now()))).* FROM transactions t WHERE t.id = $1`;
  for (let round = 0; round < 10; round++) {
    for (const mode of ['with', 'without'] as const) {
      if (mode === 'without') await ctx.admin.query('ALTER TABLE transactions DISABLE TRIGGER transactions_report_days_insert');
      const t0 = performance.now();
      for (let i = 0; i < 100; i++) await ctx.admin.query(insertOne, [sample.id]);
      insertMs[mode].push((performance.now() - t0) / 100);
      if (mode === 'without') await ctx.admin.query('ALTER TABLE transactions ENABLE TRIGGER transactions_report_days_insert');
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const writeCost = { with: median(insertMs.with), without: median(insertMs.without) };
  console.log(`  single-row INSERT (paid), median of 10 rounds of 100: ${fmt(writeCost.with, 3)} ms with the report trigger, ${fmt(writeCost.without, 3)} ms without`);

  const indexStats = async () => {
    const { rows } = await ctx.admin.query<{ name: string; scans: string; read: string; fetched: string }>(
      `SELECT indexrelname AS name, idx_scan AS scans, idx_tup_read AS read, idx_tup_fetch AS fetched FROM pg_stat_user_indexes
        WHERE schemaname = current_schema() AND indexrelname IN ('report_days_pkey', 'transactions_user_created', 'transactions_pkey') ORDER BY 1`,
    );
    return rows;
  };
  const roles = { [gw.pid]: 'server', [process.pid]: 'autocannon' };
  const runs: LoadResult[] = [];
  await sleep(1000); // statistics of the seeding reach pg_stat_user_indexes
  const before = await indexStats();
  for (const path of ['/api/v1/reports/summary', '/api/v1/reports/timeseries']) {
    for (const preset of ['30d', '90d']) {
      await waitForQuiet();
      const opts = (duration: number): autocannon.Options => ({
        url: gw.url,
        connections: REPORT_CONNECTIONS,
        duration,
        requests: [{ method: 'GET', path: `${path}?preset=${preset}`, headers: { 'api-key': m.key } }],
      });
      await load('warm-up', opts(1), roles, true);
      runs.push(await load(`${path.split('/').pop()} ${preset}`, opts(REPORT_SECONDS), roles));
    }
  }
  await sleep(1000);
  const after = await indexStats();
  const indexUse = after.map((a) => {
    const b = before.find((x) => x.name === a.name);
    const d = (k: 'scans' | 'read' | 'fetched') => Number(a[k]) - Number(b?.[k] ?? 0);
    return `${a.name}: ${d('scans').toLocaleString('en-US')} scans, ${d('read').toLocaleString('en-US')} index entries read, ${d('fetched').toLocaleString('en-US')} table rows fetched`;
  });
  for (const line of indexUse) console.log(`  ${line}`);
  const check = await fetch(`${gw.url}/api/v1/reports/summary?preset=90d`, { headers: { 'api-key': m.key } });
  const body = (await check.json()) as { data: { current: { paidCount: number; grossCents: number } } };
  console.log(`  90 days: ${body.data.current.paidCount.toLocaleString('en-US')} paid, gross ${body.data.current.grossCents.toLocaleString('en-US')} cents`);
  ctx.results.reports = { rows: ROWS, days: REPORT_DAYS, refunds: refunds.rowCount ?? 0, seedSeconds, migrationSeconds, dailyRows: Number(days.n), writeCost, runs, indexUse };
}

/**
 * ROWS transactions for one merchant straight into the table, in chunks; then ANALYZE. The newest
 * one minute ago, the others `spacingSeconds` apart going back (C: one second; R: a year's worth).
 */
async function seedTransactions(ctx: Context, userId: string, rows: number, spacingSeconds = 1) {
  const started = Date.now();
  const document = ctx.cpfs[0];
  const {
    rows: [client],
  } = await ctx.admin.query<{ id: string }>(
    `INSERT INTO clients (id, user_id, livemode, name, email, document, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, false, 'Cliente Seed', 'seed@example.com', $2, now(), now()) RETURNING id`,
    [userId, document],
  );
  // Newest row (g = 1) one minute ago, then going back; ms precision like the API's.
  const base = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  const chunk = 100_000;
  for (let from = 1; from <= rows; from += chunk) {
    const to = Math.min(rows, from + chunk - 1);
    await ctx.admin.query(
      `INSERT INTO transactions (id, user_id, livemode, display_id, product, amount_cents, charged_cents, fee_cents, status, payment_method,
         client_id, client_name, client_email, client_document, installments, card_brand, card_last4, pix_txid, pix_qr_code,
         boleto_barcode, boleto_line, due_date, expires_at, provider, authorized_at, paid_at, created_at, updated_at)
       SELECT
         -- time-ordered ids, like uuidv7(): 48 bits of ms, then pseudo-random bits
         (lpad(to_hex((extract(epoch FROM x.at) * 1000)::bigint), 12, '0') || '7' || substr(md5(g::text), 1, 3) || '8' || substr(md5(g::text), 4, 15))::uuid,
         $1, false, 'S' || lpad(g::text, 9, '0'), 'Pedido ' || (g % 1000), x.amount, x.amount,
         CASE x.method WHEN 'PIX' THEN x.amount * 99 / 10000 WHEN 'BOLETO' THEN 349 ELSE x.amount * 399 / 10000 + 39 END,
         x.status, x.method, $2, 'Cliente Seed', 'seed@example.com', $3, 1,
         CASE WHEN x.method = 'CARD' THEN 'visa' END, CASE WHEN x.method = 'CARD' THEN '4242' END,
         CASE WHEN x.method = 'PIX' THEN 'SEED' || lpad(g::text, 21, '0') END, CASE WHEN x.method = 'PIX' THEN $4 END,
         CASE WHEN x.method = 'BOLETO' THEN lpad(g::text, 44, '0') END, CASE WHEN x.method = 'BOLETO' THEN lpad(g::text, 47, '0') END,
         CASE WHEN x.method = 'BOLETO' THEN (x.at + interval '3 days')::date END,
         CASE WHEN x.method = 'PIX' THEN x.at + interval '1 day' WHEN x.method = 'BOLETO' THEN x.at + interval '3 days' END,
         'sandbox', CASE WHEN x.status = 'PAID' AND x.method = 'CARD' THEN x.at END,
         CASE WHEN x.status = 'PAID' THEN x.at + interval '1 minute' END, x.at, x.at
       FROM generate_series($5::int, $6::int) AS g
       CROSS JOIN LATERAL (SELECT
         (ARRAY['PIX','BOLETO','CARD'])[1 + g % 3] AS method,
         (ARRAY['PENDING','PAID','PAID','EXPIRED','FAILED'])[1 + g % 5] AS status,
         100 + (g::bigint * 7919) % 99900 AS amount,
         date_trunc('milliseconds', $7::timestamptz - g * $8::float8 * interval '1 second') AS at) AS x`,
      [userId, client.id, document, ctx.qrCode, from, to, base, spacingSeconds],
    );
    process.stdout.write(`\r  seeding: ${to.toLocaleString('en-US')} / ${rows.toLocaleString('en-US')} rows (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  await ctx.admin.query('ANALYZE transactions');
  console.log(`\n  seeded and analysed in ${Math.round((Date.now() - started) / 1000)} s`);
}

// ---------------------------------------------------------------------------------------------
// Report

interface Machine {
  date: string;
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  postgres: string;
  pgSettings: string;
}

async function machine(admin: pg.Client): Promise<Machine> {
  const v = await admin.query<{ v: string }>(`SELECT current_setting('server_version') AS v`);
  const s = await admin.query<{ name: string; setting: string; unit: string | null }>(
    `SELECT name, setting, unit FROM pg_settings WHERE name IN ('max_connections','shared_buffers','synchronous_commit','fsync','wal_level') ORDER BY name`,
  );
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: `PostgreSQL ${v.rows[0].v}`,
    pgSettings: s.rows.map((r) => `${r.name}=${r.setting}${r.unit && r.unit !== 'ms' ? ` (${r.unit})` : ''}`).join(', '),
  };
}

/** The disk under PostgreSQL's data directory when PostgreSQL runs on this machine (bench/disk.ts), else null. */
let diskDevice: string | null = null;
async function postgresDisk(admin: pg.Client): Promise<string | null> {
  if (!['127.0.0.1', 'localhost', '[::1]', ''].includes(new URL(DATABASE_URL).hostname)) return null;
  try {
    const { rows } = await admin.query<{ dir: string }>(`SELECT current_setting('data_directory') AS dir`);
    return deviceOf(rows[0].dir);
  } catch {
    return null; // not allowed to read the setting
  }
}

function cpuLine(r: LoadResult): string {
  const s = r.cpu.seconds;
  const parts = ['server', 'postgres', 'autocannon', 'other'].map((k) => `${k} ${fmt((s[k] ?? 0) / r.seconds, 2)}`);
  return `${parts.join(', ')} cores; machine ${fmt(r.cpu.machineBusy * 100, 0)}% busy${stallsSuffix(r.disk)}`;
}

function report(results: Results, mach: Machine): string {
  const { floor, creation, list } = results;
  const row = (name: string, r: LoadResult | undefined, conns: number) =>
    r
      ? `| ${name} | ${conns} | ${fmt(r.seconds, 0)} s | ${fmt(r.rps, 0)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.max, 1)} | ${r.ok.toLocaleString('en-US')} | ${r.non2xx} | ${r.errors + r.timeouts} |`
      : `| ${name} | - | - | not run | | | | | | |`;
  const met = (ok: boolean | undefined) => (ok === undefined ? 'not run' : ok ? '**met**' : '**missed**');
  const share = floor && creation ? creation.rps / floor.rps : undefined;
  const ab = results.interleaved;
  const abShare = ab ? ab.creation.rps / ab.floor.rps : undefined;
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  const p50Ratio = list ? list.deep.p50 / list.first.p50 : undefined;
  const p99Ratio = list ? list.deep.p99 / list.first.p99 : undefined;
  const lines = [
    `Run of ${mach.date}. Machine: ${mach.cpus} CPUs (${mach.cpuModel}), ${mach.memoryGb} GB RAM; Node ${mach.node}; ${mach.postgres} (${mach.pgSettings}).`,
    `Load generator, servers and PostgreSQL all on this machine. Measured ${SECONDS} s per write scenario (after a ${WARMUP_SECONDS} s warm-up), ${LIST_SECONDS} s per list page.`,
    '',
    '| Scenario | Connections | Duration | 2xx req/s | p50 ms | p99 ms | max ms | 2xx | non-2xx | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('A. Floor: one INSERT (POST /floor)', floor, CONNECTIONS),
    ...(results.floorSql ? [row('A2. PIX creation\'s SQL from raw pg (POST /floor-sql)', results.floorSql, CONNECTIONS)] : []),
    row('B. PIX creation (POST /api/v1/transactions)', creation, CONNECTIONS),
    ...(results.floorOpenLoop ? [row(`A3. Floor at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s (open loop)`, results.floorOpenLoop, CONNECTIONS)] : []),
    ...(results.openLoop ? [row(`B2. PIX creation at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s (open loop)`, results.openLoop, CONNECTIONS)] : []),
    ...(results.creationSingle ? [row('B1. B with group commit off (one statement per creation)', results.creationSingle, CONNECTIONS)] : []),
    ...(results.openLoopSingle ? [row(`B2-1. B2 with group commit off`, results.openLoopSingle, CONNECTIONS)] : []),
    ...(results.simulate ? [row('F. Status changes of one merchant (simulate PAID)', results.simulate, CONNECTIONS)] : []),
    ...(results.simulateSingle ? [row('F1. F with batching off (a transaction per change)', results.simulateSingle, CONNECTIONS)] : []),
    ...(results.embedded ? [row('E. PIX creation, embedded PGlite', results.embedded, CONNECTIONS)] : []),
    ...(results.embeddedSingle ? [row('E1. E with group commit off', results.embeddedSingle, CONNECTIONS)] : []),
    ...(ab
      ? [
          row('AB. Floor, in alternating slices with B', ab.floor, CONNECTIONS),
          row('AB. PIX creation, in alternating slices with A', ab.creation, CONNECTIONS),
          ...(ab.floorOpenLoop ? [row(`AB. Floor at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s, in slices with B2`, ab.floorOpenLoop, CONNECTIONS)] : []),
          ...(ab.openLoop ? [row(`AB. PIX creation at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s, in slices with A3`, ab.openLoop, CONNECTIONS)] : []),
        ]
      : []),
    row(`C. List, first page (limit=${LIST_LIMIT})`, list?.first, LIST_CONNECTIONS),
    row(`C. List, page ${list ? list.depthPages.toLocaleString('en-US') : DEPTH_PAGES.toLocaleString('en-US')} (limit=${LIST_LIMIT})`, list?.deep, LIST_CONNECTIONS),
    '',
    '| Target | Measured | Result |',
    '| --- | --- | --- |',
    `| PIX creations/s >= ${TARGETS.creationsPerSecond.toLocaleString('en-US')} | ${creation ? fmt(creation.rps, 0) : '-'} | ${met(creation && creation.rps >= TARGETS.creationsPerSecond)} |`,
    `| PIX creation p99 <= ${TARGETS.creationP99Ms} ms | ${creation ? `${fmt(creation.p99, 1)} ms` : '-'} | ${met(creation && creation.p99 <= TARGETS.creationP99Ms)} |`,
    `| PIX creation >= ${TARGETS.floorShare * 100}% of the floor | ${share !== undefined ? `${fmt(share * 100, 1)}% (${fmt(creation!.rps, 0)} / ${fmt(floor!.rps, 0)})` : '-'} | ${met(share === undefined ? undefined : share >= TARGETS.floorShare)} |`,
    `| PIX creation: 0 non-2xx | ${creation ? creation.non2xx + creation.errors + creation.timeouts : '-'} | ${met(creation && creation.non2xx + creation.errors + creation.timeouts === 0)} |`,
    `| Issue 17: PIX creation >= 100% of the floor, p99 <= ${TARGETS17.creationP99Ms} ms | ${share !== undefined ? `${fmt(share * 100, 1)}%, p99 ${fmt(creation!.p99, 1)} ms` : '-'} | ${met(share === undefined ? undefined : share >= 1 && creation!.p99 <= TARGETS17.creationP99Ms)} |`,
    ...(ab
      ? [
          `| Issue 17, A and B in alternating slices: PIX creation >= 100% of the floor, p99 <= ${TARGETS17.creationP99Ms} ms | ${fmt(abShare! * 100, 1)}% (per pair of slices: median ${fmt(median(ab.ratios) * 100, 1)}%, ${fmt(Math.min(...ab.ratios) * 100, 1)}-${fmt(Math.max(...ab.ratios) * 100, 1)}%), p99 ${fmt(ab.creation.p99, 1)} ms (the floor's ${fmt(ab.floor.p99, 1)} ms) | ${met(abShare! >= 1 && ab.creation.p99 <= TARGETS17.creationP99Ms)} |`,
          ...(ab.openLoop
            ? [`| Issue 17, A3 and B2 in alternating slices: open loop at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s, p99 <= ${TARGETS17.openLoopP99Ms} ms | p99 ${fmt(ab.openLoop.p99, 1)} ms (the floor's ${fmt(ab.floorOpenLoop!.p99, 1)} ms) | ${met(ab.openLoop.p99 <= TARGETS17.openLoopP99Ms)} |`]
            : []),
        ]
      : []),
    `| Issue 17: open loop at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s, p99 <= ${TARGETS17.openLoopP99Ms} ms | ${results.openLoop ? `p99 ${fmt(results.openLoop.p99, 1)} ms (${fmt(results.openLoop.rps, 0)}/s served)${results.floorOpenLoop ? `; the floor at the same rate (A3): p99 ${fmt(results.floorOpenLoop.p99, 1)} ms` : ''}` : '-'} | ${met(results.openLoop && results.openLoop.p99 <= TARGETS17.openLoopP99Ms)} |`,
    `| Issue 17: embedded (PGlite) >= ${TARGETS17.embeddedPerSecond.toLocaleString('en-US')} creations/s | ${results.embedded ? fmt(results.embedded.rps, 0) : '-'} | ${met(results.embedded && results.embedded.rps >= TARGETS17.embeddedPerSecond)} |`,
    `| Deep page <= ${TARGETS.deepOverFirst}x first page (${list ? list.rows.toLocaleString('en-US') : '-'} rows) | ${p50Ratio !== undefined ? `p50 x${fmt(p50Ratio, 2)}, p99 x${fmt(p99Ratio!, 2)}` : '-'} | ${met(p50Ratio === undefined ? undefined : p50Ratio <= TARGETS.deepOverFirst && p99Ratio! <= TARGETS.deepOverFirst)} |`,
    '',
    'CPU used during each measurement (cores, i.e. CPU seconds per second; "other" = processes outside this benchmark):',
    '',
    ...(floor ? [`- A: ${cpuLine(floor)}`] : []),
    ...(results.floorSql ? [`- A2: ${cpuLine(results.floorSql)}`] : []),
    ...(creation ? [`- B: ${cpuLine(creation)}`] : []),
    ...(ab ? [`- AB, A's slices: ${cpuLine(ab.floor)}`, `- AB, B's slices: ${cpuLine(ab.creation)}`] : []),
    ...(results.floorOpenLoop ? [`- A3: ${cpuLine(results.floorOpenLoop)}`] : []),
    ...(results.openLoop ? [`- B2: ${cpuLine(results.openLoop)}`] : []),
    ...(results.creationSingle ? [`- B1: ${cpuLine(results.creationSingle)}`] : []),
    ...(results.openLoopSingle ? [`- B2-1: ${cpuLine(results.openLoopSingle)}`] : []),
    ...(results.simulate ? [`- F: ${cpuLine(results.simulate)}`] : []),
    ...(results.simulateSingle ? [`- F1: ${cpuLine(results.simulateSingle)}`] : []),
    ...(results.embedded ? [`- E: ${cpuLine(results.embedded)} (the gateway process runs PGlite)`] : []),
    ...(results.embeddedSingle ? [`- E1: ${cpuLine(results.embeddedSingle)}`] : []),
    ...(list ? [`- C first page: ${cpuLine(list.first)}`, `- C deep page: ${cpuLine(list.deep)}`] : []),
  ];
  if (creation) {
    const q = creation.queriesPerRequest;
    const total = Object.values(q).reduce((a, b) => a + b, 0);
    lines.push(
      '',
      `PIX creation, per request (counted in the gateway process): ${fmt(total, 2)} SQL statements ` +
        `(${Object.entries(q).map(([k, v]) => `\`${k}\` ${fmt(v, 2)}`).join(', ')}); ` +
        `${fmt(creation.serverCpuMsPerRequest, 2)} ms of gateway CPU (${fmt(creation.serverSystemMsPerRequest, 2)} ms of it in the kernel)` +
        (floor ? ` (floor: 1 statement, ${fmt(floor.serverCpuMsPerRequest, 2)} ms of CPU in its process)` : '') +
        (floor ? `; PostgreSQL CPU per request: creation ${fmt(((creation.cpu.seconds.postgres ?? 0) * 1000) / Math.max(1, creation.ok), 2)} ms, floor ${fmt(((floor.cpu.seconds.postgres ?? 0) * 1000) / Math.max(1, floor.ok), 2)} ms.` : '.'),
    );
  }
  const statements = (r: GatewayResult) => fmt(Object.values(r.queriesPerRequest).reduce((a, b) => a + b, 0), 2);
  // The embedded gateway runs its database itself: its CPU is the gateway's (no PostgreSQL figure).
  const perRequest = (name: string, r: GatewayResult | undefined, embedded = false) =>
    r
      ? [
          `- ${name}: ${embedded ? '' : `${statements(r)} statements, `}${fmt(r.serverCpuMsPerRequest, 2)} ms of gateway CPU` +
            `${embedded ? ' (PGlite included)' : `, ${fmt(((r.cpu.seconds.postgres ?? 0) * 1000) / Math.max(1, r.ok), 2)} ms of PostgreSQL CPU`} per request.`,
        ]
      : [];
  const compared = [...perRequest('B1 (group commit off)', results.creationSingle), ...perRequest('E (embedded)', results.embedded, true), ...perRequest('E1 (embedded, group commit off)', results.embeddedSingle, true)];
  if (compared.length) lines.push('', ...compared);
  const co = results.checkout;
  if (co) {
    lines.push(
      '',
      '| Hosted checkout page (issue 5) | Measured | Target | Result |',
      '| --- | --- | --- | --- |',
      `| GET /pay/{slug}, ${co.connections} connections: time to response p50 | ${fmt(co.latencyMs.p50, 1)} ms (p99 ${fmt(co.latencyMs.p99, 1)} ms, ${fmt(co.perSecond, 0)} pages/s, ${co.non2xx + co.errors} failures) | <= ${CHECKOUT_TARGETS.firstByteP50Ms} ms | ${met(co.latencyMs.p50 <= CHECKOUT_TARGETS.firstByteP50Ms)} |`,
      ...(co.affiliate
        ? [
            `| K2: the same page through an affiliate link (\`?aff=\`, the click counted), p50 | ${fmt(co.affiliate.latencyMs.p50, 1)} ms (p99 ${fmt(co.affiliate.latencyMs.p99, 1)} ms, ${fmt(co.affiliate.perSecond, 0)} pages/s, ${co.affiliate.non2xx + co.affiliate.errors} failures) | <= ${CHECKOUT_TARGETS.firstByteP50Ms} ms, and near K1 | ${met(co.affiliate.latencyMs.p50 <= CHECKOUT_TARGETS.firstByteP50Ms)} |`,
          ]
        : []),
    );
  }
  const wh = results.webhooks;
  if (wh) {
    lines.push(
      '',
      '| Webhooks (one worker process, local HTTPS receiver answering 200) | Measured | Target | Result |',
      '| --- | --- | --- | --- |',
      `| Deliveries per second | ${fmt(wh.throughput.perSecond, 0)} (${wh.throughput.deliveries.toLocaleString('en-US')} in ${fmt(wh.throughput.seconds, 1)} s) | >= ${wh.targets.deliveriesPerSecond.toLocaleString('en-US')} | ${met(wh.throughput.perSecond >= wh.targets.deliveriesPerSecond)} |`,
      `| Commit to first attempt, p50 | ${fmt(wh.latency.p50, 1)} ms | <= ${wh.targets.latencyP50Ms} ms | ${met(wh.latency.p50 <= wh.targets.latencyP50Ms)} |`,
      `| Commit to first attempt, p99 | ${fmt(wh.latency.p99, 1)} ms | <= ${wh.targets.latencyP99Ms} ms | ${met(wh.latency.p99 <= wh.targets.latencyP99Ms)} |`,
      '',
      `Webhook CPU per delivery: worker ${fmt(wh.throughput.cpuMsPerDelivery.worker, 2)} ms, PostgreSQL ${fmt(wh.throughput.cpuMsPerDelivery.postgres, 2)} ms, receiver ${fmt(wh.throughput.cpuMsPerDelivery.receiver, 2)} ms; latency measured on ${wh.latency.samples} transactions at ${wh.latency.rate}/s.`,
    );
  }
  const sm = results.subsMetrics;
  const sr = results.subsRenewal;
  if (sm || sr) {
    lines.push('', '| Subscriptions (issue 13) | Measured | Target | Result |', '| --- | --- | --- | --- |');
    if (sm) {
      lines.push(
        `| GET /api/subscriptions/metrics (current month) over ${sm.subscriptions.toLocaleString('en-US')} subscriptions (${sm.cycles.toLocaleString('en-US')} cycles), ${sm.samples} requests one at a time: p99 | ${fmt(sm.p99, 1)} ms (p50 ${fmt(sm.p50, 1)} ms, max ${fmt(sm.max, 1)} ms) | <= ${SUBSCRIPTION_TARGETS.metricsP99Ms} ms | ${met(sm.p99 <= SUBSCRIPTION_TARGETS.metricsP99Ms)} |`,
      );
    }
    if (sr) {
      const ratio = creation ? sr.perSecond / creation.rps : undefined;
      lines.push(
        `| Renewal of ${sr.subscriptions.toLocaleString('en-US')} due card subscriptions of ${sr.merchants} merchants by ${sr.workers} worker processes | ${fmt(sr.perSecond, 0)} renewals/s (${sr.renewed.toLocaleString('en-US')}${sr.renewed < sr.subscriptions ? ` of ${sr.subscriptions.toLocaleString('en-US')}, time ran out,` : ''} in ${fmt(sr.seconds, 1)} s)${ratio !== undefined ? `; ${fmt(ratio * 100, 1)}% of B's ${fmt(creation!.rps, 0)} creations/s` : ''} | reported, with the ratio to B | each renewed exactly once, ${sr.verified.transactions.toLocaleString('en-US')} transactions, ledger balanced |`,
      );
    }
    if (sm) lines.push('', `Metrics book: ${sm.subscriptions.toLocaleString('en-US')} subscriptions, ${sm.cycles.toLocaleString('en-US')} cycles, ${sm.pauses.toLocaleString('en-US')} pauses, seeded in ${fmt(sm.seedSeconds, 0)} s; the endpoint answered activeSubscribers ${sm.sample.activeSubscribers.toLocaleString('en-US')}, mrrCents ${sm.sample.mrrCents.toLocaleString('en-US')}, totalPaused ${sm.sample.totalPaused.toLocaleString('en-US')}, pastDue ${sm.sample.pastDue.toLocaleString('en-US')}, trialing ${sm.sample.trialing.toLocaleString('en-US')}, totalCancelled ${sm.sample.totalCancelled.toLocaleString('en-US')}.`);
    if (sr) lines.push('', `Renewal CPU: the ${sr.workers} workers ${fmt(sr.cpuSeconds.workers, 0)} s (${fmt((sr.cpuSeconds.workers * 1000) / sr.subscriptions, 2)} ms per renewal), PostgreSQL ${fmt(sr.cpuSeconds.postgres, 0)} s (${fmt((sr.cpuSeconds.postgres * 1000) / sr.subscriptions, 2)} ms per renewal, all its processes).`);
  }
  const rep = results.reports;
  if (rep) {
    lines.push(
      '',
      `| Reports (issue 15): ${rep.rows.toLocaleString('en-US')} transactions of one merchant over ${rep.days} days, ${rep.refunds.toLocaleString('en-US')} refunds, ${REPORT_CONNECTIONS} connection(s), ${REPORT_SECONDS} s each | p50 ms | p99 ms | max ms | req/s | non-2xx | p99 <= ${TARGETS.reportP99Ms} ms |`,
      '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
      ...rep.runs.map((r) => `| ${r.label} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.max, 1)} | ${fmt(r.rps, 1)} | ${r.non2xx + r.errors + r.timeouts} | ${met(r.p99 <= TARGETS.reportP99Ms && r.non2xx === 0)} |`),
      '',
      `Migration 018 totalled the ${rep.rows.toLocaleString('en-US')} transactions and the refunds into ${rep.dailyRows.toLocaleString('en-US')} daily rows in ${fmt(rep.migrationSeconds, 1)} s. ` +
        `A single-row INSERT of a paid transaction (its own commit) took ${fmt(rep.writeCost.with, 3)} ms with the report trigger and ${fmt(rep.writeCost.without, 3)} ms without (medians of 10 rounds of 100, from this process over TCP).`,
      '',
      ...rep.runs.map((r) => `- R ${r.label}: ${cpuLine(r)}`),
      ...rep.indexUse.map((l) => `- ${l}`),
    );
  }
  if (list) lines.push('', 'List query plans (EXPLAIN ANALYZE of the route\'s query, once, before the load):', '', ...list.plans.map((p) => `- ${p}`));
  return lines.join('\n') + '\n';
}

const README_HEAD = `# Benchmarks

\`npm run bench\` (bench/run.ts) measures the gateway on real PostgreSQL
(\`DATABASE_URL\`, default \`postgres://postgres@127.0.0.1:5432/test\`) in a fresh schema \`bench_<random>\`,
dropped at the end, also on failure or Ctrl-C. With every scenario it takes well over half an hour on a
2-core machine (S2's 100,000 renewals alone took about 25 minutes on 2026-11-23); \`BENCH_SCENARIOS\` picks some.

## Targets (issue 3)

- PIX creation >= 1,500 creations/s, p99 <= 100 ms, and >= 25% of the floor's throughput.
- 0 non-2xx responses during PIX creation.
- With 1,000,000 transactions stored, a page 10,000 pages deep costs no more than 2x the first page.

## Targets (issue 5)

- The hosted checkout page \`GET /pay/{slug}\` at 100 concurrent requests: first byte p50 <= 20 ms
  (autocannon measures the whole response, an upper bound on the first byte). Method: bench/checkout.ts.

## Targets (issue 4)

- Webhook deliveries from one worker to a local receiver answering 200: >= 1,000/s.
- Time from the commit of a transaction to its first delivery attempt: p50 <= 50 ms, p99 <= 250 ms.
- Method: bench/webhooks.ts. The worker runs in its own process against a local HTTPS receiver
  (self-signed certificate trusted through WEBHOOK_CA_FILE); throughput is a pre-enqueued batch,
  latency is measured on transactions committed at a steady rate.

## Targets (issue 13)

- \`GET /api/subscriptions/metrics\` over 100,000 subscriptions: p99 <= 200 ms (S1, bench/subscriptions.ts:
  a book seeded in SQL over two years, 8 plans, every state; requests one after another).
- Renewal of 100,000 due card subscriptions by 2 worker processes (\`src/main.ts worker\`, the real
  job runner): renewals/s and its ratio to PIX creation (B) of the same run; afterwards every
  subscription renewed exactly once (one new cycle, one PAID transaction) and the ledger balanced (S2).
  \`BENCH_SUBSCRIPTIONS\` (default 100,000) sets both sizes; \`BENCH_RENEWAL_TIMEOUT_S\` (default 3600)
  bounds S2, which then reports (and verifies) the renewals made by then.

## Method

- **A. Floor.** bench/floor.ts, in its own process: a bare Fastify route \`POST /floor\` doing ONE
  \`INSERT\` into \`floor_tx\` (\`LIKE transactions INCLUDING DEFAULTS\`, no foreign keys, only the primary
  key and a \`(user_id, livemode, created_at, id)\` index), pg Pool of 50. autocannon, 50 connections,
  20 s, the same JSON bodies as B.
- **A2. SQL floor** (not a target; a diagnostic). The same process, \`POST /floor-sql\`: the statements
  PIX creation sends (idempotency claim; the creation statement, built by the gateway's own code;
  idempotency response), on the real tables, from raw pg as the same named prepared statements: no validation, schemas or hooks. The gap
  A -> A2 is the cost of the SQL design; A2 -> B, of the application code.
- **B. PIX creation.** bench/server.ts, in its own process: the real app (\`buildApp\`) with a pool of 50,
  rate limit out of the way, \`LOG_LEVEL=warn\`, no background jobs. A merchant and a development key
  are made through the API; then autocannon, 50 connections, 20 s, \`POST /api/v1/transactions\` PIX,
  a unique \`Idempotency-Key\` per request, a valid CPF from a pool of 20,000, the amount varying.
  Any non-2xx response is a failure. The gateway process counts the SQL statements it sends.
- **B2. Open loop** (issue 17). B at a fixed rate: 1,000 requests/s (\`BENCH_OPEN_LOOP_RATE\`), one
  every millisecond whatever the answers, over up to 50 keep-alive connections (\`bench/open-loop.ts\`);
  each latency runs from the request's due time, so a request kept waiting for a free connection
  counts its wait. Not autocannon's \`overallRate\`: that sends each connection's share of the second
  back to back as the second starts (bursts of 50 concurrent requests, then silence), which measures
  a saturated server for part of every second.
- **A3. Floor open loop** (with \`openloop\`). A at B2's fixed rate: what this machine gives one
  INSERT per request at that rate, the load generator beside it; B2's latencies are read against it.
- **B1. Group commit off** (issue 17, the comparison in the same run). B (and B2) against a second
  gateway process with \`BENCH_GROUP_COMMIT=off\`: every creation in a statement of its own.
- **E. Embedded** (issue 17). B against a gateway on PGlite (no \`DATABASE_URL\`) in a fresh data
  directory, with group commit and without (E1). The gateway process also runs the database.
- **C. List depth.** 1,000,000 transactions (\`BENCH_ROWS\`) seeded for one merchant with
  \`INSERT ... SELECT FROM generate_series\` in chunks of 100,000, one second apart, then \`ANALYZE\`.
  \`GET /api/v1/transactions?limit=20\`: the first page vs. the page 10,000 pages deep (after row
  200,000 in createdAt desc order). Walking 10,000 cursors would take too long, so the deep cursor is
  signed here the way the server signs it (the server gets a fixed \`JWT_SECRET\`) and checked to
  return the right rows; both queries' plans are recorded. autocannon, 10 connections, 10 s each, in
  alternating 1 s rounds (first, deep, first, ...) so that a burst of other work hits both alike.
- Warm-up before each measurement (3 s; 1 s per page for C). An open loop (A3, B2) first runs
  ${OPEN_LOOP_WARMUP_SECONDS} s at its rate (\`BENCH_OPEN_LOOP_WARMUP_SECONDS\`), then the checkpoint, then its 3 s:
  3,000 requests leave V8 compiling the request path during the measurement, a closed loop's
  warm-up sends five times as many (2026-11-27 below). Latencies are exact percentiles of the
  2xx responses' times as autocannon measures them; req/s counts 2xx responses only. Floor and
  gateway run one after the other, not together: two pools of 50 would reach max_connections (100).

**Caveat: this machine has 2 cores.** autocannon (bench/run.ts), the server process and PostgreSQL
share them: the load generator takes CPU from the system under test, so every figure is lower than
with the client on another machine. The CPU time each used is printed under the results ("postgres"
is every PostgreSQL process, "other" everything else, e.g. a test suite running meanwhile, which
distorts the figures: the run waits up to \`BENCH_QUIET_WAIT\` s, default 180, for a quiet machine
before each part, then measures anyway and shows it). The gateway is one Node process: it can use
at most one of the two cores.

**The disk.** Each line also counts the stalls of the disk under PostgreSQL's data directory (when
PostgreSQL runs on this machine; bench/disk.ts reads /proc/diskstats every 20 ms): moments of 50 ms
or more in which it had requests in flight and completed none. Every commit of such a moment waits
for its WAL flush, the floor's as the gateway's; at 1,000/s one stall of 100 ms alone puts an open
loop's p99 above 10 ms.

A run killed outright (kill -9) leaves its schema behind; the next run drops such schemas (a
\`bench_*\` schema that no connection is using as its application_name).

Options: \`BENCH_SECONDS\`, \`BENCH_LIST_SECONDS\`, \`BENCH_ROWS\`, \`BENCH_POOL_SIZE\`,
\`BENCH_SCENARIOS=${ALL_SCENARIOS.join(',')}\`, \`BENCH_OPEN_LOOP_RATE\` (B2), \`BENCH_OPEN_LOOP_WARMUP_SECONDS\` (A3, B2: the warm-up at the rate before the checkpoint, default 30), \`BENCH_SLICE_SECONDS\` (AB), \`BENCH_CREATION_BATCH\` (the gateway's creation batching, as JSON over its defaults, e.g. \`{"maxInFlight":3,"minExtraBatch":8}\`), \`BENCH_REPORT_DAYS\` / \`BENCH_REPORT_SECONDS\` / \`BENCH_REPORT_CONNECTIONS\` (R), \`BENCH_WRITE_README=0\` (print only; also when
not every scenario ran), \`BENCH_PROFILE=1\` (CPU profile of the gateway during B and F, summarised; it
slows the gateway down; \`=alloc\`: where its bytes are allocated, \`=promoted\`: which of them survive
the young generation, both through V8's sampling heap profiler), \`BENCH_SERVER_FLAGS\` (Node and V8 flags for the server processes, e.g. \`--trace-gc-nvp\`) with
\`BENCH_SERVER_STDOUT=<file>\` (where what they print goes). Quick check: \`BENCH_SECONDS=5 BENCH_ROWS=100000 BENCH_WRITE_README=0 npm run bench\`.
`;

function writeReadme(section: string) {
  const file = join(HERE, 'README.md');
  let head = README_HEAD;
  if (existsSync(file)) {
    const current = readFileSync(file, 'utf8');
    const at = current.indexOf('\n## Latest results');
    head = at >= 0 ? current.slice(0, at) : current.trimEnd();
  }
  writeFileSync(file, `${head.trimEnd()}\n\n## Latest results\n\n${section}`);
  console.log(`\nwrote ${file}`);
}

/** CPU cores used by processes outside this benchmark over `seconds`. */
async function otherLoad(seconds: number): Promise<number> {
  const before = cpuSnapshot();
  await sleep(seconds * 1000);
  const use = cpuUse(before, cpuSnapshot(), { [process.pid]: 'self' });
  return ((use.seconds.other ?? 0) + (use.seconds.postgres ?? 0)) / seconds;
}

/** Other work on this 2-core machine (a test suite...) distorts every figure: wait for it to stop. */
async function waitForQuiet() {
  const deadline = Date.now() + QUIET_WAIT * 1000;
  for (;;) {
    const busy = await otherLoad(3);
    if (busy < 0.25) return;
    if (Date.now() > deadline) {
      console.log(`  other processes still use ${fmt(busy, 2)} cores: measuring anyway (see "other" in the CPU lines)`);
      return;
    }
    console.log(`  other processes use ${fmt(busy, 2)} cores: waiting for a quieter machine (up to ${QUIET_WAIT} s)`);
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  console.log(`benchmark run ${runId}: schema ${SCHEMA} on ${DATABASE_URL.replace(/\/\/[^@]*@/, '//')}`);
  await dropStaleSchemas();
  const database = await connect({ url: DATABASE_URL, schema: SCHEMA, poolSize: 2 });
  cleanups.push(dropSchema);
  try {
    // With the schema, Kysely's bookkeeping tables live there too (not found in another run's schema).
    await migrate(database.db, SCHEMA);
  } finally {
    await database.close();
  }
  const admin = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${SCHEMA}` });
  await admin.connect();
  cleanups.push(() => admin.end());

  let seed = 12345;
  const rand = () => ((seed = (seed * 16807) % 2147483647), seed / 2147483647);
  const cpfs = Array.from(new Set(Array.from({ length: 20_000 }, () => generateCpf(rand))));
  const qrCode = buildBrCode({ pixKey: 'pix@cofre.com.br', merchantName: 'COFRE PAGAMENTOS', merchantCity: 'SAO PAULO', amountCents: 1990, txid: newTxid() });
  const ctx: Context = { admin, cpfs, qrCode, results: {} };
  const mach = await machine(admin);
  diskDevice = await postgresDisk(admin);

  if (SCENARIOS.includes('floor')) await withFloor(ctx, (floor) => floorOnly(ctx, floor));

  const gw = await startGateway();
  try {
    if (SCENARIOS.includes('creation')) await scenarioPixCreation(ctx, gw);
    if (SCENARIOS.includes('simulate')) ctx.results.simulate = await scenarioSimulate(ctx, gw, 'F');
    if (SCENARIOS.includes('openloop')) ctx.results.openLoop = await scenarioOpenLoop(ctx, gw, 'B2');
    if (SCENARIOS.includes('list')) await scenarioListDepth(ctx, gw);
    if (SCENARIOS.includes('reports')) await scenarioReports(ctx, gw);
    if (SCENARIOS.includes('checkout')) {
      await waitForQuiet();
      const m = await merchant(gw, 'checkout');
      const aff = await merchant(gw, 'affiliate');
      ctx.results.checkout = await checkoutPageScenario({ url: gw.url, apiKey: m.key, affiliateApiKey: aff.key });
    }
    if (SCENARIOS.includes('subsmetrics')) {
      const m = await merchant(gw, 'metrics');
      await waitForQuiet();
      ctx.results.subsMetrics = await metricsScenario({ admin, url: gw.url, key: m.key, userId: m.userId, n: SUBSCRIPTIONS });
    }
  } finally {
    await gw.stop();
  }
  if (SCENARIOS.includes('interleaved')) await scenarioInterleaved(ctx);
  if (SCENARIOS.includes('creation1')) await scenarioSingleStatements(ctx);
  if (SCENARIOS.includes('embedded')) await scenarioEmbedded(ctx);
  // After the gateway stopped (its pool of 50 and the workers' would crowd max_connections).
  if (SCENARIOS.includes('subsrenewal')) {
    await settle(ctx);
    ctx.results.subsRenewal = await renewalScenario({ databaseUrl: DATABASE_URL, schema: SCHEMA, admin, n: SUBSCRIPTIONS, timeoutMs: positiveInt('BENCH_RENEWAL_TIMEOUT_S', 3600) * 1000 });
  }
  // A diagnostic, after B: its rows land in the tables B writes to, and B is the measurement that counts.
  if (SCENARIOS.includes('floorsql')) await withFloor(ctx, (floor) => scenarioFloorSql(ctx, floor));
  if (SCENARIOS.includes('webhooks')) {
    await waitForQuiet();
    ctx.results.webhooks = await webhookScenarios({ databaseUrl: DATABASE_URL, schema: SCHEMA });
  }

  const section = report(ctx.results, mach);
  console.log('\n' + section);
  if (WRITE_README && ALL_SCENARIOS.every((x) => SCENARIOS.includes(x))) writeReadme(section);
  const c = ctx.results.creation;
  if (c && c.non2xx + c.errors + c.timeouts > 0) process.exitCode = 1;
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    await cleanup();
  });
