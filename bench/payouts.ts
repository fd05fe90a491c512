// P: production withdrawals paid by Pix through the Efí connector, against the fake Efí
// (test/fake-efi) answering every request in BENCH_PSP_LATENCY_MS (default 100), run inside this
// process. P1 drains BENCH_PAYOUTS (default 5,000) queued withdrawals of 50 merchants with ONE
// `worker` process (src/main.ts worker: the real payout runner, its SKIP LOCKED claim), then as many
// again with TWO: sends per second from the first send to the last (the Efí connector sends one at
// a time per process, as Efí advises, so a second worker should nearly double it). P2: with the
// queue empty and one worker, withdrawals asked one by one at ~2/s: the time from the request to
// PROCESSING (the payout job's claim, PAYOUT_INTERVAL_MS at its default). Verified afterwards: each
// withdrawal COMPLETED, sent once at the fake (one debit per idEnvio), the ledger balanced.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { connect } from '../src/db/index.ts';
import { efiEnv } from '../test/fake-efi/env.ts';
import { startFakeEfi, type FakeEfi } from '../test/fake-efi/server.ts';
import { appConfig, appOver, merchant } from '../test/helpers.ts';
import { assertLedgerBalanced } from '../test/ledger-check.ts';
import { paidCard, req, settleAll } from '../test/wallet-helpers.ts';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { percentile } from './stats.ts';

const ROOT = join(import.meta.dirname, '..');
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const MERCHANTS = 50;

export interface PayoutBenchResult {
  queued: number;
  latencyMs: number;
  /** Sends per second draining the queue, with one worker and with two. */
  perSecond: { one: number; two: number };
  /** Request to PROCESSING with the queue empty (ms). */
  toProcessing: { samples: number; p50: number; p99: number; max: number };
  verified: { completed: number; debitsEach: number; ledgerBalanced: boolean };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function startWorker(env: Record<string, string>, name: string): Promise<ChildProcess> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'PORT', 'DATA_DIR', 'RUN_JOBS', 'SMTP_URL']) delete base[k];
  const child = spawn(process.execPath, [join(ROOT, 'src', 'main.ts'), 'worker'], { env: { ...base, ...env, PGAPPNAME: name }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker ${name} did not start:\n${out}`));
    }, 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      if (!out.includes('worker started')) return;
      clearTimeout(timer);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker ${name} exited (${code}):\n${out}`)));
  });
}

export async function stopWorkers(children: ChildProcess[]) {
  await Promise.all(
    children.map((c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      return exited;
    }),
  );
}

export async function payoutScenario(opts: { databaseUrl: string; schema: string; n: number; log?: (l: string) => void }): Promise<PayoutBenchResult> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const latencyMs = Number(process.env.BENCH_PSP_LATENCY_MS ?? 100);
  log(`\n[P] payouts through Efí (a fake answering in ${latencyMs} ms): ${opts.n.toLocaleString('en-US')} queued withdrawals of ${MERCHANTS} merchants drained by 1, then 2 worker processes; request to PROCESSING with the queue empty`);
  const efi = await startFakeEfi({ balanceCents: 1e12, latencyMs });
  // No gateway listens here: the worker's own lookup right after the send completes it, and the
  // registration does not call the webhook URL first.
  efi.behaviour.notify = 'none';
  efi.behaviour.pingOnRegister = false;
  const env = { ...efiEnv(efi), DATABASE_URL: opts.databaseUrl, DATABASE_SCHEMA: opts.schema, JWT_SECRET, LOG_LEVEL: 'info', DATABASE_POOL_SIZE: '8', PAYOUT_REVIEW_ABOVE_CENTS: '0', PAYOUT_NEW_DESTINATION_HOLD_HOURS: '0', BASE_URL: 'http://127.0.0.1:9' };
  const database = await connect({ url: opts.databaseUrl, schema: opts.schema, poolSize: 8 });
  const app = await appOver(appConfig({ ...env, PAYMENT_PROVIDER: 'sandbox' }), database, { limiter: new MemoryLimiter() });
  const ctx = { app, database } as Parameters<typeof settleAll>[0];
  try {
    const keys: { key: string }[] = [];
    for (let i = 0; i < MERCHANTS; i++) {
      const m = await merchant(app, { live: true });
      keys.push({ key: m.liveKey! });
      await paidCard(app, keys[i], 10_000_000, 1);
    }
    await settleAll(ctx, 31);
    const queue = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const res = await req(app, 'POST', '/api/withdraws', keys[i % MERCHANTS], { amountCents: 1000 + (i % 997), pixKeyType: 'email', pixKey: `loja${i % 500}@example.com` });
        if (res.status !== 201) throw new Error(`withdrawal: ${res.status} ${res.raw}`);
      }
    };
    const one = await drain(efi, env, 1, opts.n, queue, log);
    const two = await drain(efi, env, 2, opts.n, queue, log);
    const toProcessing = await requestToProcessing(app, env, keys, database, log);
    const verified = await verify(database, efi);
    log(`  verified: ${verified.completed.toLocaleString('en-US')} withdrawals COMPLETED, each sent once at the fake, the ledger balanced`);
    return { queued: opts.n, latencyMs, perSecond: { one, two }, toProcessing, verified };
  } finally {
    await app.close();
    await database.close();
    await efi.close();
  }
}

async function drain(efi: FakeEfi, env: Record<string, string>, workers: number, n: number, queue: (n: number) => Promise<void>, log: (l: string) => void): Promise<number> {
  const before = efi.sends.size;
  await queue(n);
  const started = await Promise.all(Array.from({ length: workers }, (_, i) => startWorker(env, `payouts-${workers}-${i}`)));
  try {
    while (efi.sends.size < before + n) await sleep(200);
  } finally {
    await stopWorkers(started);
  }
  const times = [...efi.sends.values()].slice(before).map((s) => Date.parse(s.solicitacao)).sort((a, b) => a - b);
  const perSecond = (n - 1) / ((times[times.length - 1] - times[0]) / 1000);
  log(`  P1 ${workers} worker${workers > 1 ? 's' : ''}: ${n.toLocaleString('en-US')} sends in ${((times[times.length - 1] - times[0]) / 1000).toFixed(1)} s = ${perSecond.toFixed(1)} sends/s`);
  return perSecond;
}

async function requestToProcessing(app: Awaited<ReturnType<typeof appOver>>, env: Record<string, string>, keys: { key: string }[], database: Awaited<ReturnType<typeof connect>>, log: (l: string) => void) {
  const worker = await startWorker(env, 'payouts-latency');
  const ids: string[] = [];
  try {
    await sleep(2000);
    for (let i = 0; i < 100; i++) {
      const res = await req(app, 'POST', '/api/withdraws', keys[i % MERCHANTS], { amountCents: 1500, pixKeyType: 'email', pixKey: 'latencia@example.com' });
      ids.push(res.body.data.id);
      await sleep(500);
    }
    const done = () => database.db.selectFrom('withdrawals').select((eb) => eb.fn.countAll<number>().as('n')).where('id', 'in', ids).where('status', '=', 'COMPLETED').executeTakeFirstOrThrow();
    for (let i = 0; i < 300 && Number((await done()).n) < ids.length; i++) await sleep(100);
  } finally {
    await stopWorkers([worker]);
  }
  const rows = await database.db.selectFrom('withdrawals').select(['created_at', 'processed_at']).where('id', 'in', ids).execute();
  const waits = rows.map((r) => (r.processed_at ? r.processed_at.getTime() - r.created_at.getTime() : Infinity)).sort((a, b) => a - b);
  const out = { samples: waits.length, p50: percentile(waits, 50), p99: percentile(waits, 99), max: waits[waits.length - 1] };
  log(`  P2 request to PROCESSING, ${out.samples} withdrawals at ~2/s, queue empty, PAYOUT_INTERVAL_MS default: p50 ${out.p50.toFixed(0)} ms, p99 ${out.p99.toFixed(0)} ms, max ${out.max.toFixed(0)} ms`);
  return out;
}

async function verify(database: Awaited<ReturnType<typeof connect>>, efi: FakeEfi) {
  const rows = await database.db.selectFrom('withdrawals').select(['status', 'payout_ref']).where('livemode', '=', true).execute();
  const open = rows.filter((r) => r.status !== 'COMPLETED');
  if (open.length) throw new Error(`${open.length} withdrawals not COMPLETED`);
  const twice = [...efi.sends.values()].filter((s) => s.debits !== 1);
  if (twice.length || rows.some((r) => !efi.sends.has(r.payout_ref!))) throw new Error('a withdrawal was not sent exactly once');
  await assertLedgerBalanced(database.db);
  return { completed: rows.length, debitsEach: 1, ledgerBalanced: true };
}
