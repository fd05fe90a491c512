// The benchmark's settings (environment variables, described in run.ts), its targets, and this run's
// identity: the schema it works in and the application_name of every connection it opens.
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProfileKind } from './child.ts';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const SECONDS = positiveInt('BENCH_SECONDS', 20);
export const LIST_SECONDS = positiveInt('BENCH_LIST_SECONDS', Math.min(10, SECONDS));
export const ROWS = positiveInt('BENCH_ROWS', 1_000_000);
export const WRITE_README = process.env.BENCH_WRITE_README !== '0';
export const ALL_SCENARIOS = ['floor', 'floorsql', 'creation', 'interleaved', 'simulate', 'openloop', 'creation1', 'embedded', 'list', 'checkout', 'webhooks', 'subsmetrics', 'subsrenewal', 'reports', 'card', 'payouts', 'boleto'];
export const SUBSCRIPTIONS = positiveInt('BENCH_SUBSCRIPTIONS', 100_000);
export const SCENARIOS = (process.env.BENCH_SCENARIOS || ALL_SCENARIOS.join(',')).split(',').map((x) => x.trim());
/** BENCH_PROFILE=1: a CPU profile of the gateway during B, F and G; =alloc / =promoted: an allocation profile (see child.ts). */
export const PROFILE: ProfileKind | null = process.env.BENCH_PROFILE === '1' ? 'cpu' : process.env.BENCH_PROFILE === 'alloc' || process.env.BENCH_PROFILE === 'promoted' ? process.env.BENCH_PROFILE : null;
export const QUIET_WAIT = Number(process.env.BENCH_QUIET_WAIT ?? 180);
/** Node and V8 flags for the servers (e.g. `--trace-gc`), and the file their standard output is appended to. */
export const SERVER_FLAGS = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
export const SERVER_STDOUT = process.env.BENCH_SERVER_STDOUT;
export const CONNECTIONS = 50;
export const LIST_CONNECTIONS = 10;
export const POOL_SIZE = positiveInt('BENCH_POOL_SIZE', 50);
export const WARMUP_SECONDS = 3;
/** AB: the length of one slice of A or B. */
export const SLICE_SECONDS = positiveInt('BENCH_SLICE_SECONDS', 3);
/** An open loop's warm-up at its rate before the checkpoint (warmUpOpen); 0 = none, as before 2026-11-27. */
export const OPEN_LOOP_WARMUP_SECONDS = nonNegativeInt('BENCH_OPEN_LOOP_WARMUP_SECONDS', 30);
/** Creations per second of the open-loop scenario (B2). */
export const OPEN_LOOP_RATE = positiveInt('BENCH_OPEN_LOOP_RATE', 1000);
export const LIST_LIMIT = 20;
export const DEPTH_PAGES = 10_000;
// Fixed, so that this process can sign cursors the server accepts (cursorSecret = JWT_SECRET + ':cursor').
export const JWT_SECRET = 'bench-jwt-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

export const TARGETS = { creationsPerSecond: 1500, creationP99Ms: 100, floorShare: 0.25, deepOverFirst: 2, reportP99Ms: 100 };
/** R: the seeded transactions span this many days back from now (BENCH_REPORT_DAYS). */
export const REPORT_DAYS = positiveInt('BENCH_REPORT_DAYS', 365);
export const REPORT_SECONDS = positiveInt('BENCH_REPORT_SECONDS', 10);
export const REPORT_CONNECTIONS = positiveInt('BENCH_REPORT_CONNECTIONS', 1);
export const TARGETS17 = { creationP99Ms: 15, openLoopP99Ms: 10, embeddedPerSecond: 1000 };
/**
 * G: card payments over a fake Cielo answering in `acquirerMs`, `connections` at once, the gateway's
 * time limit per call to it `timeoutMs`. Target: >= `share` of connections / acquirer time per second,
 * and Cofre's share of a payment (its latency minus the acquirer's) p99 <= the floor's (A) p99. The
 * payments are one merchant's unless BENCH_CARD_MERCHANTS spreads them over more (in turn).
 */
export const CARD = { connections: 200, acquirerMs: 150, timeoutMs: 5000, share: 0.8, merchants: positiveInt('BENCH_CARD_MERCHANTS', 1) };

export function positiveInt(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be ${min ? 'a positive' : 'a non-negative'} integer (got "${raw}")`);
  return n;
}
function nonNegativeInt(name: string, fallback: number): number {
  return positiveInt(name, fallback, 0);
}

// BENCH_RUN_ID names the run (and its schema) beforehand: a pooler that cannot pass the schema on
// (PgBouncer 1.18 drops `options`) sets it per server connection (scripts/cluster/bench-pooler.ts).
export const runId = /^[a-z0-9]{1,20}$/.test(process.env.BENCH_RUN_ID ?? '') ? (process.env.BENCH_RUN_ID as string) : randomBytes(5).toString('hex');
export const SCHEMA = `bench_${runId}`;
export const APP_NAME = SCHEMA; // application_name of every connection of this run (PGAPPNAME)
process.env.PGAPPNAME = APP_NAME;
