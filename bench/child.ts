// Shared plumbing of the benchmark's child processes (bench/server.ts, bench/floor.ts):
// a per-statement query counter on pg, the IPC protocol with bench/run.ts, and shutdown.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { Server } from 'node:http';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import pg from 'pg';
import { spread } from './stats.ts';

type Spread = ReturnType<typeof spread>;

/** Statements sent to PostgreSQL by this process since the last reset, keyed "verb table". */
const counts = new Map<string, number>();

function statementKey(text: string): string {
  const head = text.slice(0, 200); // the verb and first table are near the start; long statements cost the counter nothing more
  const verb = /^\s*(\w+)/.exec(head)?.[1]?.toLowerCase() ?? '?';
  const table = /"(\w+)"/.exec(head)?.[1] ?? /\b(?:into|from|update)\s+(\w+)/i.exec(head)?.[1];
  return table ? `${verb} ${table}` : verb;
}

/** Wraps pg.Client#query (which Pool#query and Kysely both go through) to count statements. */
export function countQueries() {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : typeof (first as { text?: unknown })?.text === 'string' ? (first as { text: string }).text : '';
    const key = statementKey(text);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.apply(this, args);
  };
}

/** The statements counted since the last call (or reset), cleared. */
export function takeCounts(): Record<string, number> {
  const out = Object.fromEntries(counts);
  counts.clear();
  return out;
}

export type ParentMessage =
  | { type: 'reset' }
  | { type: 'stats' }
  | { type: 'stop' }
  | { type: 'profile-start'; kind: ProfileKind }
  | { type: 'profile-stop'; file: string };
/** A CPU profile (where the time goes), or a sampling heap profile: of every allocation, freed or not ('alloc': where the bytes go), or of those no scavenge freed ('promoted'). */
export type ProfileKind = 'cpu' | 'alloc' | 'promoted';
export interface ChildStats {
  type: 'stats';
  queries: Record<string, number>;
  /** process.cpuUsage() since the last reset, in ms (user + system). */
  cpuMs: number;
  /** The system (kernel) part of cpuMs: socket reads and writes, mostly. */
  systemMs: number;
  /** How late the event loop ran its turns (ms): what every request in the process waited on top of its own work. */
  loopDelay: { p50: number; p99: number; max: number };
  /** Garbage collection pauses since the last reset: count, total and longest (ms); `major` the mark-compacts among them. */
  gc: { count: number; totalMs: number; maxMs: number; majorCount: number; majorMaxMs: number };
  /** Time from a request's arrival in Node's HTTP server to the end of its response (ms), as this process saw it. */
  served: Spread;
  /**
   * The creation batches written since the last reset (see observeBatches): how many, their rows,
   * how long each ran (from its start to its commit's answer, ms) and how long its oldest creation
   * had waited for it to start (ms). Null when none was written (the floor never batches).
   */
  batches: BatchesSummary | null;
  /** The status-change batches (ChangeWriter), the same way (see observeChangeBatches). */
  changeBatches: BatchesSummary | null;
  /** What the process adds of its own (serveParent's `extra`): bench/cielo.ts, the sales it holds. */
  extra?: unknown;
}

const served: number[] = [];
export interface BatchesSummary {
  count: number;
  rows: number;
  ran: Spread;
  waited: Spread;
}
type BatchLog = { rows: number; ran: number[]; waited: number[] };
const batches: BatchLog = { rows: 0, ran: [], waited: [] };
const changeBatches: BatchLog = { rows: 0, ran: [], waited: [] };
/** A writer's `observe` (GroupCommit): each batch's size, wait and run, into `log`. */
const recordInto =
  (log: BatchLog) =>
  (size: number, waitedMs: number, ranMs: number): void => {
    log.rows += size;
    log.ran.push(ranMs);
    log.waited.push(waitedMs);
  };
/** The creation writer's `observe` (BatchOptions), for ChildStats.batches. */
export const observeBatches = recordInto(batches);
/** The status-change writer's `observe`, for ChildStats.changeBatches. */
export const observeChangeBatches = recordInto(changeBatches);
function clearLog(log: BatchLog): void {
  log.rows = 0;
  log.ran.length = 0;
  log.waited.length = 0;
}
function batchesSummary(log: BatchLog): BatchesSummary | null {
  if (!log.ran.length) return null;
  return { count: log.ran.length, rows: log.rows, ran: spread(log.ran), waited: spread(log.waited) };
}
/** Records each request's time inside this process (see ChildStats.served). */
export function timeRequests(server: Server): void {
  server.on('request', (_req, res) => {
    const start = performance.now();
    res.once('finish', () => served.push(performance.now() - start));
  });
}

// The event loop's lateness and GC pauses, to tell a latency tail of the process from one of the database.
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const noGc = () => ({ count: 0, totalMs: 0, maxMs: 0, majorCount: 0, majorMaxMs: 0 });
const gc = noGc();
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.count++;
    gc.totalMs += e.duration;
    gc.maxMs = Math.max(gc.maxMs, e.duration);
    if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      gc.majorCount++;
      gc.majorMaxMs = Math.max(gc.majorMaxMs, e.duration);
    }
  }
}).observe({ entryTypes: ['gc'] });

/** What a child tells the parent beyond its port (`info`, once) and its stats (`extra`, with each). */
export interface ParentExtras {
  info?: Record<string, string>;
  extra?: () => unknown;
}

/**
 * Tells the parent the port, answers its stats requests and shuts down on 'stop', SIGTERM, SIGINT
 * or when the parent goes away (IPC disconnect), so no child outlives a crashed benchmark.
 */
export function serveParent(port: number, close: () => Promise<void>, extras: ParentExtras = {}) {
  let cpu = process.cpuUsage();
  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    const force = setTimeout(() => process.exit(code), 5000);
    force.unref();
    try {
      await close();
    } finally {
      process.exit(code);
    }
  };
  process.on('message', (m: ParentMessage) => {
    if (m.type === 'reset') {
      counts.clear();
      cpu = process.cpuUsage();
      loop.reset();
      served.length = 0;
      clearLog(batches);
      clearLog(changeBatches);
      Object.assign(gc, noGc());
      process.send?.({ type: 'reset' });
    } else if (m.type === 'stats') {
      const used = process.cpuUsage(cpu);
      const ms = (ns: number) => ns / 1e6;
      const stats: ChildStats = {
        type: 'stats',
        queries: Object.fromEntries(counts),
        cpuMs: (used.user + used.system) / 1000,
        systemMs: used.system / 1000,
        loopDelay: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
        gc: { ...gc },
        served: spread(served),
        batches: batchesSummary(batches),
        changeBatches: batchesSummary(changeBatches),
        ...(extras.extra ? { extra: extras.extra() } : {}),
      };
      process.send?.(stats);
    } else if (m.type === 'stop') void shutdown(0);
    else if (m.type === 'profile-start') void profileStart(m.kind).then(() => process.send?.({ type: 'profile-started' }));
    else if (m.type === 'profile-stop') void profileStop(m.file).then(() => process.send?.({ type: 'profile-stopped', file: m.file }));
  });
  process.on('disconnect', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
  process.once('SIGINT', () => void shutdown(0));
  process.stdout.write(`PORT=${port}\n`);
  process.send?.({ type: 'ready', port, info: extras.info });
}

export function requireEnv(name: string): string {
  const v = process.env[name];
  if (!v) {
    console.error(`${name} is required (this process is started by bench/run.ts)`);
    process.exit(2);
  }
  return v;
}

// A profile of a chosen window (BENCH_PROFILE in bench/run.ts), through the inspector.
let session: Session | null = null;
let sessionKind: ProfileKind = 'cpu';
async function profileStart(kind: ProfileKind) {
  session = new Session();
  session.connect();
  sessionKind = kind;
  if (kind !== 'cpu') {
    // Allocations sampled (one per 16 KB on average), also those a GC has freed since; for
    // 'promoted', only those no young-generation collection (scavenge) freed: what survived to the
    // old generation (or is still alive when the profile stops).
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: kind === 'alloc' });
    return;
  }
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
}
async function profileStop(file: string) {
  if (!session) return;
  const { profile } = sessionKind !== 'cpu' ? await session.post('HeapProfiler.stopSampling') : await session.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
  session = null;
}
