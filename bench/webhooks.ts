// Webhook benchmarks on real PostgreSQL (issue 4):
//
//   W1  throughput   deliveries per second from ONE `worker` process (src/main.ts worker, its own
//                    process) to a local HTTPS receiver answering 200 at once. N deliveries are
//                    committed in one transaction; the clock runs from that commit until every one
//                    is recorded SUCCEEDED in the database (not just received).       target >= 1,000/s
//   W2  latency      time from the commit of a transaction (createTransaction returns) to the first
//                    delivery attempt of its transaction.created event arriving at the receiver,
//                    at a steady 50 transactions/s.                     target p50 <= 50 ms, p99 <= 250 ms
//
// `webhookScenarios(opts)` runs both against an existing, migrated schema (bench/run.ts's) and
// returns the figures; run this file directly to get a throwaway schema of its own:
//
//   node bench/webhooks.ts        (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test;
//                                  BENCH_WEBHOOK_DELIVERIES default 20000; BENCH_WEBHOOK_SAMPLES default 500)
//
// The worker runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true (the receiver is on 127.0.0.1), so the
// per-delivery DNS lookup of the SSRF guard is not in these figures; with the guard on, a delivery
// adds one getaddrinfo call (libuv thread pool) before connecting.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { connect, migrate, type Database } from '../src/db/index.ts';
import { uuidv7 } from '../src/db/ids.ts';
import { buildDeps } from '../src/deps.ts';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { createTransaction } from '../src/modules/transactions/service.ts';
import { envelope } from '../src/modules/webhooks/enqueue.ts';
import { generateCpf } from '../src/payments/documents.ts';
import { makeCertificate } from '../test/webhook-receiver.ts';
import { cpuTicks, postgresTicks } from './proc.ts';
import { percentile } from './stats.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const MAIN = resolve(HERE, '..', 'src', 'main.ts');
const JWT_SECRET = 'bench-jwt-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

export const WEBHOOK_TARGETS = { deliveriesPerSecond: 1000, latencyP50Ms: 50, latencyP99Ms: 250 };

export interface WebhookBenchOptions {
  databaseUrl: string;
  /** An existing schema with the migrations applied (bench/run.ts's). */
  schema: string;
  /** Deliveries in the measured throughput batch (after a warm-up batch of a tenth). */
  deliveries?: number;
  /** Transactions whose commit-to-first-attempt latency is measured. */
  latencySamples?: number;
  /** Steady rate of the latency scenario, transactions per second. */
  latencyRate?: number;
  log?: (line: string) => void;
}

export interface WebhookBenchResult {
  throughput: {
    deliveries: number;
    seconds: number;
    perSecond: number;
    /** CPU per delivery: the worker process, PostgreSQL (all its processes, so anything else using it counts too), this process (receiver). */
    cpuMsPerDelivery: { worker: number; postgres: number; receiver: number };
    receiverRequests: number;
    /** TLS connections the receiver accepted during the run (keep-alive reuse). */
    receiverConnections: number;
  };
  latency: { samples: number; rate: number; p50: number; p90: number; p99: number; max: number };
  targets: typeof WEBHOOK_TARGETS;
  pass: { throughput: boolean; latencyP50: boolean; latencyP99: boolean };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Arrival {
  at: number;
  eventType: string;
  dataId: string | null;
}

/** Local HTTPS receiver: answers 200 at once, keeps connections alive, notes each arrival. */
async function startReceiver(onArrival: (a: Arrival) => void) {
  const cert = makeCertificate();
  const server = https.createServer({ key: readFileSync(cert.keyFile), cert: readFileSync(cert.certFile), keepAliveTimeout: 30_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200, { 'content-length': '2' }).end('ok');
      let dataId: string | null = null;
      const type = String(req.headers['x-webhook-event']);
      if (type === 'transaction.created') {
        try {
          dataId = JSON.parse(Buffer.concat(chunks).toString()).data.id;
        } catch {
          /* not ours */
        }
      }
      onArrival({ at, eventType: type, dataId });
    });
  });
  let connections = 0;
  server.on('secureConnection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    certFile: cert.certFile,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(cert.dir, { recursive: true, force: true });
    },
  };
}

function startWorker(databaseUrl: string, schema: string, caFile: string): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'PORT', 'DATA_DIR', 'RUN_JOBS']) delete env[k];
  // BENCH_WORKER_NODE_ARGS: extra node flags for the worker, e.g. --cpu-prof --cpu-prof-dir=/tmp/prof
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, MAIN, 'worker'], {
    env: {
      ...env,
      DATABASE_URL: databaseUrl,
      DATABASE_SCHEMA: schema,
      JWT_SECRET,
      LOG_LEVEL: 'info',
      DATABASE_POOL_SIZE: '20',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_CA_FILE: caFile,
      WEBHOOK_CONCURRENCY: '50',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolveStart, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${out}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('worker started')) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolveStart(child);
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}):\n${out}`)));
  });
}

async function stopWorker(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function createMerchant(database: Database, name: string): Promise<string> {
  const id = randomUUID();
  await database.db
    .insertInto('users')
    .values({ id, name, email: `bench.${name}.${randomBytes(4).toString('hex')}@example.com`, password_hash: 'x', referral_code: randomBytes(6).toString('hex').toUpperCase() })
    .execute();
  return id;
}

async function subscribe(database: Database, userId: string, url: string, events: string[]): Promise<string> {
  const id = uuidv7();
  const now = new Date();
  await database.db
    .insertInto('webhook_subscriptions')
    .values({ id, user_id: userId, livemode: false, url, events: JSON.stringify(events), secret: 'whsec_' + randomBytes(32).toString('base64url'), status: 'ACTIVE', created_at: now, updated_at: now })
    .execute();
  return id;
}

/** A realistic transaction.completed payload (about 1 KB of JSON). */
function samplePayload(i: number): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    id: randomUUID(), displayId: 'BENCH' + String(i).padStart(5, '0'), status: 'PAID', previousStatus: 'PENDING', amountCents: 1990, chargedCents: 1990,
    feeCents: 20, netAmountCents: 1970, refundedCents: 0, paymentMethod: 'PIX', installments: 1, product: 'Camiseta Cofre', clientId: randomUUID(),
    clientName: 'Cliente Benchmark', clientEmail: 'cliente@example.com', clientDocument: '***.982.247-**', paymentLinkId: null, metadata: { pedido: String(i) },
    trackingParams: { utm_source: 'bench' }, failureReason: null, livemode: false, createdAt: now, updatedAt: now, paidAt: now, refundedAt: null,
  };
}

/** Commits `n` deliveries in one transaction (with NOTIFY, as the enqueue hook does); resolves at commit. */
async function enqueueBatch(database: Database, userId: string, subscriptionId: string, url: string, n: number) {
  await database.db.transaction().execute(async (trx) => {
    for (let off = 0; off < n; off += 1000) {
      const rows = [];
      for (let i = off; i < Math.min(n, off + 1000); i++) {
        const e = { id: uuidv7(), type: 'transaction.completed', data: samplePayload(i), createdAt: new Date() };
        rows.push({
          id: uuidv7(), user_id: userId, livemode: false, event_id: e.id, event_type: e.type, subscription_id: subscriptionId, url,
          body: envelope(e, false, { id: subscriptionId, url }), status: 'PENDING' as const, next_attempt_at: sql<Date>`now()`, created_at: e.createdAt, updated_at: e.createdAt,
        });
      }
      await trx.insertInto('webhook_deliveries').values(rows).execute();
    }
    await sql`SELECT pg_notify('cofre_webhooks', '')`.execute(trx);
  });
}

async function waitSucceeded(database: Database, subscriptionId: string, n: number, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_deliveries WHERE subscription_id = ${subscriptionId} AND status = 'SUCCEEDED'`.execute(database.db);
    if (Number(rows[0].n) >= n) return;
    if (Date.now() > end) throw new Error(`only ${rows[0].n} of ${n} deliveries succeeded within ${timeoutMs} ms`);
    await sleep(25);
  }
}

/** What the receiver saw: requests, and when each transaction's first delivery arrived (by its id). */
interface Arrivals {
  requests: number;
  firstAt: Map<string, number>;
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export async function webhookScenarios(opts: WebhookBenchOptions): Promise<WebhookBenchResult> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const deliveries = opts.deliveries ?? 20_000;
  const samples = opts.latencySamples ?? 500;
  const rate = opts.latencyRate ?? 50;
  const database = await connect({ url: opts.databaseUrl, schema: opts.schema, poolSize: 10 });
  const arrivals: Arrivals = { requests: 0, firstAt: new Map() };
  const receiver = await startReceiver((a) => {
    arrivals.requests++;
    if (a.dataId && !arrivals.firstAt.has(a.dataId)) arrivals.firstAt.set(a.dataId, a.at);
  });
  let worker: ChildProcess | null = null;
  try {
    const url = `https://localhost:${receiver.port}/hook`;
    worker = await startWorker(opts.databaseUrl, opts.schema, receiver.certFile);

    const throughput = await throughputScenario(database, url, receiver, worker.pid!, arrivals, deliveries, log);
    const latency = await latencyScenario(database, opts.databaseUrl, url, arrivals, samples, rate, log);

    const pass = {
      throughput: throughput.perSecond >= WEBHOOK_TARGETS.deliveriesPerSecond,
      latencyP50: latency.p50 <= WEBHOOK_TARGETS.latencyP50Ms,
      latencyP99: latency.p99 <= WEBHOOK_TARGETS.latencyP99Ms,
    };
    log(
      `  targets: >= ${WEBHOOK_TARGETS.deliveriesPerSecond}/s ${pass.throughput ? 'met' : 'MISSED'}; p50 <= ${WEBHOOK_TARGETS.latencyP50Ms} ms ${pass.latencyP50 ? 'met' : 'MISSED'}; ` +
        `p99 <= ${WEBHOOK_TARGETS.latencyP99Ms} ms ${pass.latencyP99 ? 'met' : 'MISSED'}`,
    );
    return { throughput, latency, targets: WEBHOOK_TARGETS, pass };
  } finally {
    if (worker) await stopWorker(worker);
    await receiver.close();
    await database.close();
  }
}

/** W1: throughput. `deliveries` after a warm-up of a tenth, from the one worker process to the receiver. */
async function throughputScenario(database: Database, url: string, receiver: Receiver, workerPid: number, arrivals: Arrivals, deliveries: number, log: (l: string) => void): Promise<WebhookBenchResult['throughput']> {
  log(`\n[W1] webhook deliveries: one worker, concurrency 50, ${deliveries.toLocaleString('en-US')} deliveries to a local HTTPS receiver`);
  const tpUser = await createMerchant(database, 'webhooks-throughput');
  const tpSub = await subscribe(database, tpUser, url, ['transaction.completed']);
  const warm = Math.max(100, Math.round(deliveries / 10));
  await enqueueBatch(database, tpUser, tpSub, url, warm);
  await waitSucceeded(database, tpSub, warm, 120_000);
  const before = arrivals.requests;
  const conns0 = receiver.connections();
  const cpu0 = cpuTicks(workerPid);
  const pg0 = postgresTicks();
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  await enqueueBatch(database, tpUser, tpSub, url, deliveries);
  const committed = performance.now();
  await waitSucceeded(database, tpSub, warm + deliveries, 600_000);
  const seconds = (performance.now() - committed) / 1000;
  const self = process.cpuUsage(self0);
  const throughput = {
    deliveries,
    seconds,
    perSecond: deliveries / seconds,
    cpuMsPerDelivery: {
      worker: ((cpuTicks(workerPid) - cpu0) * 10) / deliveries,
      postgres: ((postgresTicks() - pg0) * 10) / deliveries,
      receiver: (self.user + self.system) / 1000 / deliveries,
    },
    receiverRequests: arrivals.requests - before,
    receiverConnections: receiver.connections() - conns0,
  };
  const c = throughput.cpuMsPerDelivery;
  log(
    `  ${Math.round(throughput.perSecond).toLocaleString('en-US')} deliveries/s (${deliveries} in ${seconds.toFixed(2)} s after a ${((committed - t0) / 1000).toFixed(2)} s enqueue commit), ` +
      `${throughput.receiverRequests} requests over ${throughput.receiverConnections} new TLS connections\n` +
      `  CPU per delivery: worker ${c.worker.toFixed(3)} ms, PostgreSQL ${c.postgres.toFixed(3)} ms, receiver (this process) ${c.receiver.toFixed(3)} ms`,
  );
  return throughput;
}

/** W2: commit -> first attempt, for `samples` PIX transactions created at `rate` per second. */
async function latencyScenario(database: Database, databaseUrl: string, url: string, arrivals: Arrivals, samples: number, rate: number, log: (l: string) => void): Promise<WebhookBenchResult['latency']> {
  log(`\n[W2] commit to first delivery attempt: ${samples} PIX transactions at ${rate}/s, through createTransaction`);
  const config = loadConfig({ JWT_SECRET, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
  const { transactions: deps } = buildDeps(config, database, { limiter: new MemoryLimiter() });
  const latUser = await createMerchant(database, 'webhooks-latency');
  await subscribe(database, latUser, url, ['transaction.created']);
  const scope = { userId: latUser, livemode: false };
  let seed = 7;
  const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const commits = new Map<string, number>();
  const interval = 1000 / rate;
  const start = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < samples; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    inflight.push(
      createTransaction(deps, scope, {
        product: `Pedido ${i}`, amountCents: 1000 + i, clientName: 'Cliente', clientEmail: 'c@example.com', clientDocument: generateCpf(rand), paymentMethod: 'PIX',
      }).then((tx) => void commits.set(tx.id, performance.now())),
    );
  }
  await Promise.all(inflight);
  const end = Date.now() + 30_000;
  while ([...commits.keys()].some((id) => !arrivals.firstAt.has(id)) && Date.now() < end) await sleep(20);
  const lat = [...commits].filter(([id]) => arrivals.firstAt.has(id)).map(([id, at]) => arrivals.firstAt.get(id)! - at).sort((a, b) => a - b);
  if (lat.length < commits.size) throw new Error(`${commits.size - lat.length} transaction.created deliveries never arrived`);
  const latency = { samples: lat.length, rate, p50: percentile(lat, 50), p90: percentile(lat, 90), p99: percentile(lat, 99), max: lat[lat.length - 1] };
  log(`  commit -> first attempt: p50 ${latency.p50.toFixed(1)} ms, p90 ${latency.p90.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ${latency.max.toFixed(1)} ms`);
  return latency;
}

// Standalone: a throwaway schema, both scenarios, figures printed, schema dropped.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_wh_${randomBytes(4).toString('hex')}`;
  const positive = (name: string, fallback: number) => {
    const n = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
    return n;
  };
  const setup = await connect({ url: databaseUrl, schema, poolSize: 2 });
  await migrate(setup.db, schema);
  await setup.close();
  let code = 0;
  try {
    const r = await webhookScenarios({
      databaseUrl,
      schema,
      deliveries: positive('BENCH_WEBHOOK_DELIVERIES', 20_000),
      latencySamples: positive('BENCH_WEBHOOK_SAMPLES', 500),
    });
    console.log('\n' + JSON.stringify(r, null, 2));
  } catch (err) {
    console.error(err);
    code = 1;
  } finally {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  }
  process.exit(code);
}
