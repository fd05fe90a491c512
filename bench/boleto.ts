// H: production boletos through the inter connector, against the fake Inter (test/fake-inter, run
// in this process) answering every call in BENCH_BANK_LATENCY_MS (default 300). A gateway without
// background jobs (RUN_JOBS=false, as an API instance runs) takes BENCH_BOLETOS (default 2,000)
// creations from 50 connections: they must answer at once, ISSUING, not held by the bank (p99
// beside the floor's, A, of the same run). ONE `worker` process (src/main.ts worker, its issuing
// sweep every JOB_INTERVAL_MS = 100) issues them: boletos ISSUED per second from the first creation
// to the last ISSUED. Verified: every boleto ISSUED with numbers, each issued once at the fake (one
// charge per seuNumero), no rule of Inter's broken.
import os from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { interEnv, startFakeInter } from '../test/fake-inter/server.ts';
import { type Context, pixBody, settle } from './context.ts';
import { liveMerchant } from './card.ts';
import { load, type LoadResult } from './load.ts';
import { startGateway } from './processes.ts';
import { timingLines, withFloor } from './scenarios-write.ts';
import { summarizeProfile } from './profile.ts';
import { startWorker, stopWorkers } from './payouts.ts';
import { DATABASE_URL, PROFILE, runId, SCHEMA } from './settings.ts';
import { fmt } from './stats.ts';

export interface BoletoBenchResult {
  boletos: number;
  bankMs: number;
  creation: LoadResult;
  /** The floor (one INSERT) loaded the same way: the same number of requests, after the same warm-up. */
  floorBurst: LoadResult;
  /** The floor's steady p99 (A), when A ran. */
  floorP99: number | null;
  /** From the first creation to the last boleto ISSUED (s), and boletos ISSUED per second over it. */
  issuedSeconds: number;
  issuedPerSecond: number;
  verified: { issued: number; once: boolean; violations: number };
}

const WARMUP = 500;
const ADDRESS = { zipCode: '01310100', street: 'Avenida Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' };

let sequence = 0;
function boletoBody(ctx: Context): string {
  const n = sequence++;
  return JSON.stringify({ product: `Pedido ${n % 1000}`, amountCents: 500 + ((n * 7919) % 99_500), clientName: 'Cliente Benchmark', clientEmail: `cliente${n % 5000}@example.com`, clientDocument: ctx.cpfs[n % ctx.cpfs.length], paymentMethod: 'BOLETO', clientAddress: ADDRESS });
}

/**
 * The floor loaded as H loads the gateway: `n` requests from 50 connections after WARMUP. A burst of a
 * second or two has a p99 of its own (its first and last requests), so H's is read against this one.
 */
async function floorBurst(ctx: Context, n: number): Promise<LoadResult> {
  let result: LoadResult | undefined;
  await withFloor(ctx, async (floor) => {
    const roles = { [floor.pid]: 'server', [process.pid]: 'autocannon' };
    const opts = (amount: number): autocannon.Options => ({
      url: floor.url,
      connections: 50,
      amount,
      requests: [{ setupRequest: (req) => ({ ...req, method: 'POST', path: '/floor', headers: { 'content-type': 'application/json' }, body: pixBody(ctx) }) }],
    });
    await load('floor warm-up', opts(WARMUP), roles, true);
    result = await load('floor, the same burst', opts(n), roles);
  });
  return result!;
}

export async function scenarioBoleto(ctx: Context, n: number): Promise<void> {
  const bankMs = Number(process.env.BENCH_BANK_LATENCY_MS ?? 300);
  await settle(ctx);
  const burst = await floorBurst(ctx, n);
  const inter = await startFakeInter({ latencyMs: bankMs });
  const env = { ...interEnv(inter), BASE_URL: 'https://cofre.bench.invalid' };
  const gw = await startGateway(env);
  try {
    const m = await liveMerchant(ctx, gw, 0);
    console.log(`\n[H] production boletos over Inter (a fake answering in ${bankMs} ms): ${n.toLocaleString('en-US')} creations (after 500 to warm up) from 50 connections on an API instance; one worker issues them all`);
    await settle(ctx);
    let key = 0;
    const opts = (amount: number): autocannon.Options => ({
      url: gw.url,
      connections: 50,
      amount,
      requests: [{ setupRequest: (req) => ({ ...req, method: 'POST', path: '/api/v1/transactions', headers: { 'content-type': 'application/json', 'api-key': m.key, 'idempotency-key': `boleto-${runId}-${key++}` }, body: boletoBody(ctx) }) }],
    });
    const roles = { [gw.pid]: 'server', [process.pid]: 'autocannon' };
    // A warm-up of 500 (their boletos issued too, so counted below), then the measured creations.
    const started = Date.now();
    await load('warm-up', opts(WARMUP), roles, true);
    await gw.reset();
    const profileFile = join(os.tmpdir(), `cofre-bench-${runId}-boleto.${PROFILE === 'cpu' ? 'cpuprofile' : 'heapprofile'}`);
    if (PROFILE) await gw.profileStart(PROFILE);
    const creation = await load('boleto creations', opts(n), roles);
    if (PROFILE) await gw.profileStop(profileFile);
    if (PROFILE) console.log(summarizeProfile(profileFile, creation.ok));
    const stats = await gw.stats();
    const per = (v: number) => fmt(v / Math.max(1, creation.ok), 2);
    const byKind = Object.entries(stats.queries).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${per(v)}`);
    for (const line of timingLines(stats)) console.log(`  ${line}`);
    console.log(`  gateway: ${per(Object.values(stats.queries).reduce((a, b) => a + b, 0))} statements per creation (${byKind.join(', ')}); its CPU ${per(stats.cpuMs)} ms per creation`);
    const total = n + WARMUP;
    const worker = await startWorker({ ...env, DATABASE_URL, DATABASE_SCHEMA: SCHEMA, JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123', JOB_INTERVAL_MS: '100', LOG_LEVEL: 'info' }, 'boleto-worker');
    let issued = 0;
    try {
      const deadline = Date.now() + 30 * 60_000;
      while (Date.now() < deadline) {
        issued = Number((await ctx.admin.query(`SELECT count(*)::int AS n FROM transactions WHERE user_id = $1 AND boleto_barcode IS NOT NULL`, [m.userId])).rows[0].n);
        if (issued >= total) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await stopWorkers([worker]);
    }
    const issuedSeconds = (Date.now() - started) / 1000;
    const counts = [...inter.issuedBySeuNumero.values()];
    const out: BoletoBenchResult = {
      boletos: total,
      bankMs,
      creation,
      floorBurst: burst,
      floorP99: ctx.results.floor?.p99 ?? null,
      issuedSeconds,
      issuedPerSecond: issued / issuedSeconds,
      verified: { issued, once: counts.length === issued && counts.every((c) => c === 1), violations: inter.violations.length },
    };
    for (const line of boletoLines(out)) console.log(`  ${line}`);
    if (issued < total || !out.verified.once || out.verified.violations) process.exitCode = 1;
    ctx.results.boleto = out;
  } finally {
    await gw.stop();
    await inter.close();
  }
}

/** H's figures against its targets: printed after the load and in the report. */
export function boletoLines(h: BoletoBenchResult): string[] {
  const c = h.creation;
  const f = h.floorBurst;
  const steady = h.floorP99 === null ? '' : `; A's steady p99 ${fmt(h.floorP99, 1)} ms`;
  return [
    `creations: ${fmt(c.rps, 0)}/s, p50 ${fmt(c.p50, 1)} ms, p99 ${fmt(c.p99, 1)} ms (${c.non2xx + c.errors} failed) against the floor loaded the same way (${h.boletos - WARMUP} requests after ${WARMUP}) ${fmt(f.rps, 0)}/s, p50 ${fmt(f.p50, 1)} ms, p99 ${fmt(f.p99, 1)} ms${steady}: p99 ${c.p99 <= f.p99 ? 'met' : 'missed'}`,
    `issued: ${h.verified.issued.toLocaleString('en-US')} of ${h.boletos.toLocaleString('en-US')} in ${fmt(h.issuedSeconds, 1)} s from the first creation = ${fmt(h.issuedPerSecond, 1)} boletos ISSUED/s by one worker`,
    `verified: ${h.verified.once ? 'each issued once at the bank' : 'NOT each issued once'}, ${h.verified.violations} rules of Inter's broken`,
  ];
}
