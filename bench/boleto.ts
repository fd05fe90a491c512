// H: production boletos through the inter connector, against the fake Inter (test/fake-inter, run
// in this process) answering every call in BENCH_BANK_LATENCY_MS (default 300). A gateway without
// background jobs (RUN_JOBS=false, as an API instance runs) takes BENCH_BOLETO_ROUNDS (default 4)
// bursts of BENCH_BOLETOS (default 2,000) creations from 50 connections, alternated with bursts of
// the floor (A's one INSERT) loaded the same way: the creations must answer at once, ISSUING, not
// held by the bank (their pooled p99 beside the floor bursts'). ONE `worker` process (src/main.ts
// worker, its issuing sweep every JOB_INTERVAL_MS = 100) then issues them: boletos ISSUED per second
// from the first creation to the last ISSUED. Verified: every boleto ISSUED with numbers, each
// issued once at the fake (one charge per seuNumero), no rule of Inter's broken.
import os from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { interEnv, startFakeInter } from '../test/fake-inter/server.ts';
import { type Context, pixBody, settle } from './context.ts';
import { liveMerchant } from './card.ts';
import { load, type LoadResult, merge } from './load.ts';
import { type Child, startGateway } from './processes.ts';
import { timingLines, withFloor } from './scenarios-write.ts';
import { summarizeProfile } from './profile.ts';
import { startWorker, stopWorkers } from './payouts.ts';
import { DATABASE_URL, PROFILE, positiveInt, runId, SCHEMA } from './settings.ts';
import { fmt } from './stats.ts';

export interface BoletoBenchResult {
  boletos: number;
  bankMs: number;
  /** Every round's creations together (their latencies pooled). */
  creation: LoadResult;
  /** The floor (one INSERT) loaded the same way in each round, pooled: the same requests, after the same warm-up. */
  floorBurst: LoadResult;
  /** Each round's p99 (ms): the floor's burst and the creations', in the order they ran. */
  rounds: { floorP99: number; creationP99: number }[];
  /** The floor's steady p99 (A), when A ran. */
  floorP99: number | null;
  /** From the first creation to the last boleto ISSUED (s), and boletos ISSUED per second over it. */
  issuedSeconds: number;
  issuedPerSecond: number;
  verified: { issued: number; once: boolean; violations: number };
}

/** Requests of each kind before the first burst: V8 still compiles both processes' hot code after 500 (the first round's p99 doubled). */
const WARMUP = 3000;
/** Bursts of each kind, alternated (floor, creations; creations, floor; ...): a burst of a second has a p99 the host's drift moves. */
const ROUNDS = positiveInt('BENCH_BOLETO_ROUNDS', 4);
const ADDRESS = { zipCode: '01310100', street: 'Avenida Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' };

let sequence = 0;
function boletoBody(ctx: Context): string {
  const n = sequence++;
  return JSON.stringify({ product: `Pedido ${n % 1000}`, amountCents: 500 + ((n * 7919) % 99_500), clientName: 'Cliente Benchmark', clientEmail: `cliente${n % 5000}@example.com`, clientDocument: ctx.cpfs[n % ctx.cpfs.length], paymentMethod: 'BOLETO', clientAddress: ADDRESS });
}

/** A burst of `amount` requests from 50 connections (autocannon), each built by `request`. */
function burst(url: string, amount: number, request: autocannon.Request): autocannon.Options {
  return { url, connections: 50, amount, requests: [request] };
}

/**
 * The creations and the floor in alternating bursts of `n`, each kind warmed by WARMUP first; the
 * gateway's statements, CPU, loop and GC over its bursts are printed.
 */
async function alternate(ctx: Context, gw: Child, floor: Child, key: string, n: number) {
  let k = 0;
  const create: autocannon.Request = { setupRequest: (req) => ({ ...req, method: 'POST', path: '/api/v1/transactions', headers: { 'content-type': 'application/json', 'api-key': key, 'idempotency-key': `boleto-${runId}-${k++}` }, body: boletoBody(ctx) }) };
  const insert: autocannon.Request = { setupRequest: (req) => ({ ...req, method: 'POST', path: '/floor', headers: { 'content-type': 'application/json' }, body: pixBody(ctx) }) };
  const roles = { [gw.pid]: 'server', [floor.pid]: 'floor', [process.pid]: 'autocannon' };
  await load('floor warm-up', burst(floor.url, WARMUP, insert), roles, true);
  await load('warm-up', burst(gw.url, WARMUP, create), roles, true);
  await gw.reset();
  const profileFile = join(os.tmpdir(), `cofre-bench-${runId}-boleto.${PROFILE === 'cpu' ? 'cpuprofile' : 'heapprofile'}`);
  if (PROFILE) await gw.profileStart(PROFILE);
  const floors: LoadResult[] = [];
  const creations: LoadResult[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const kind of i % 2 ? ['creations', 'floor'] : ['floor', 'creations']) {
      await settle(ctx);
      if (kind === 'floor') floors.push(await load(`floor, the same burst (round ${i + 1})`, burst(floor.url, n, insert), roles));
      else creations.push(await load(`boleto creations (round ${i + 1})`, burst(gw.url, n, create), roles));
    }
  }
  const creation = merge('boleto creations', creations);
  if (PROFILE) await gw.profileStop(profileFile);
  if (PROFILE) console.log(summarizeProfile(profileFile, creation.ok));
  const stats = await gw.stats();
  const per = (v: number) => fmt(v / Math.max(1, creation.ok), 2);
  for (const line of timingLines(stats)) console.log(`  ${line}`);
  const byKind = Object.entries(stats.queries).sort((a, b) => b[1] - a[1]).map(([q, v]) => `${q} ${per(v)}`);
  console.log(`  gateway: ${per(Object.values(stats.queries).reduce((a, b) => a + b, 0))} statements per creation (${byKind.join(', ')}); its CPU ${per(stats.cpuMs)} ms per creation`);
  const rounds = creations.map((c, i) => ({ floorP99: floors[i].p99, creationP99: c.p99 }));
  return { creation, floorBurst: merge('floor, the same bursts', floors), rounds };
}

export async function scenarioBoleto(ctx: Context, n: number): Promise<void> {
  const bankMs = Number(process.env.BENCH_BANK_LATENCY_MS ?? 300);
  await settle(ctx);
  const inter = await startFakeInter({ latencyMs: bankMs });
  const env = { ...interEnv(inter), BASE_URL: 'https://cofre.bench.invalid' };
  const gw = await startGateway(env);
  try {
    const m = await liveMerchant(ctx, gw, 0);
    const total = ROUNDS * n + WARMUP;
    console.log(
      `\n[H] production boletos over Inter (a fake answering in ${bankMs} ms): ${ROUNDS} bursts of ${n.toLocaleString('en-US')} creations (after ${WARMUP.toLocaleString('en-US')} to warm up) from 50 connections on an API instance, ` +
        `alternated with bursts of the floor; one worker issues them all`,
    );
    const started = Date.now();
    let measured: Awaited<ReturnType<typeof alternate>> | undefined;
    await withFloor(ctx, async (floor) => {
      measured = await alternate(ctx, gw, floor, m.key, n);
    });
    const issued = await issueAll(ctx, env, m.userId, total);
    const issuedSeconds = (Date.now() - started) / 1000;
    const counts = [...inter.issuedBySeuNumero.values()];
    const out: BoletoBenchResult = {
      boletos: total,
      bankMs,
      ...measured!,
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

/** ONE worker issues the merchant's boletos: how many had their numbers when all had (or after 30 minutes). */
async function issueAll(ctx: Context, env: Record<string, string>, userId: string, total: number): Promise<number> {
  const worker = await startWorker({ ...env, DATABASE_URL, DATABASE_SCHEMA: SCHEMA, JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123', JOB_INTERVAL_MS: '100', LOG_LEVEL: 'info' }, 'boleto-worker');
  let issued = 0;
  try {
    const deadline = Date.now() + 30 * 60_000;
    while (Date.now() < deadline) {
      issued = Number((await ctx.admin.query(`SELECT count(*)::int AS n FROM transactions WHERE user_id = $1 AND boleto_barcode IS NOT NULL`, [userId])).rows[0].n);
      if (issued >= total) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await stopWorkers([worker]);
  }
  return issued;
}

/** H's figures against its targets: printed after the load and in the report. */
export function boletoLines(h: BoletoBenchResult): string[] {
  const c = h.creation;
  const f = h.floorBurst;
  const steady = h.floorP99 === null ? '' : `; A's steady p99 ${fmt(h.floorP99, 1)} ms`;
  const rounds = h.rounds.map((r, i) => `${i + 1}: ${fmt(r.creationP99, 1)} / ${fmt(r.floorP99, 1)}`).join(', ');
  return [
    `creations (${h.rounds.length} bursts of ${(c.ok / h.rounds.length).toLocaleString('en-US')}, pooled): ${fmt(c.rps, 0)}/s, p50 ${fmt(c.p50, 1)} ms, p99 ${fmt(c.p99, 1)} ms (${c.non2xx + c.errors} failed) ` +
      `against the floor's bursts alternated with them, pooled: ${fmt(f.rps, 0)}/s, p50 ${fmt(f.p50, 1)} ms, p99 ${fmt(f.p99, 1)} ms${steady}: p99 ${c.p99 <= f.p99 ? 'met' : 'missed'} ` +
      `(each round's p99, creations / floor: ${rounds} ms)`,
    `issued: ${h.verified.issued.toLocaleString('en-US')} of ${h.boletos.toLocaleString('en-US')} in ${fmt(h.issuedSeconds, 1)} s from the first creation = ${fmt(h.issuedPerSecond, 1)} boletos ISSUED/s by one worker`,
    `verified: ${h.verified.once ? 'each issued once at the bank' : 'NOT each issued once'}, ${h.verified.violations} rules of Inter's broken`,
  ];
}
