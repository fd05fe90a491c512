// Load generation: closed loops (autocannon) and open loops (bench/open-loop.ts), their results with
// the CPU each process used and the stalls of PostgreSQL's disk meanwhile; the wait for a quiet machine.
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type pg from 'pg';
import { deviceOf, type DiskStalls, stallsSuffix, watchDisk } from './disk.ts';
import { openLoop, type OpenLoopOptions } from './open-loop.ts';
import { type CpuUse, cpuSnapshot, cpuUse } from './proc.ts';
import { CONNECTIONS, DATABASE_URL, QUIET_WAIT } from './settings.ts';
import { fmt, percentile } from './stats.ts';

/** The disk every load watches for stalls (watchPostgresDisk); null: none. */
let diskDevice: string | null = null;

/** From now on, every load watches the disk under PostgreSQL's data directory (when PostgreSQL runs on this machine). */
export async function watchPostgresDisk(admin: pg.Client): Promise<void> {
  diskDevice = await postgresDisk(admin);
}

/** The disk under PostgreSQL's data directory when PostgreSQL runs on this machine (bench/disk.ts), else null. */
async function postgresDisk(admin: pg.Client): Promise<string | null> {
  if (!['127.0.0.1', 'localhost', '[::1]', ''].includes(new URL(DATABASE_URL).hostname)) return null;
  try {
    const { rows } = await admin.query<{ dir: string }>(`SELECT current_setting('data_directory') AS dir`);
    return deviceOf(rows[0].dir);
  } catch {
    return null; // not allowed to read the setting
  }
}

export interface LoadResult {
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
export function merge(label: string, parts: LoadResult[]): LoadResult {
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
export async function load(label: string, opts: autocannon.Options, roles: Record<number, string>, quiet = false): Promise<LoadResult> {
  const latencies: number[] = [];
  const before = cpuSnapshot();
  const stopDisk = watchDisk(diskDevice);
  const started = performance.now();
  let last = started;
  const instance = autocannon({ renderProgressBar: false, renderResultsTable: false, timeout: 30, ...opts });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, ms: number) => {
    last = performance.now();
    if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
  });
  const r = await instance;
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));
  // A run of a fixed `amount` ends on autocannon's next one-second tick, which its duration counts:
  // the rate is over the time to the last answer instead.
  const seconds = opts.amount ? (last - started) / 1000 : r.duration;
  const run = { seconds, ok: r['2xx'], non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, statusCodes, latencies, disk: stopDisk() };
  return loadResult(label, run, cpuUse(before, cpuSnapshot(), roles), quiet);
}

/** `CONNECTIONS` connections as fast as they go for `seconds`, each request made by `request` (its body and headers fresh). */
export function closedLoop(url: string, seconds: number, request: OpenLoopOptions['request']): autocannon.Options {
  return { url, connections: CONNECTIONS, duration: seconds, requests: [{ setupRequest: (req) => ({ ...req, ...request() }) }] };
}

/** A fixed-rate load (bench/open-loop.ts): latencies counted from each request's due time. */
export async function loadOpen(label: string, opts: OpenLoopOptions, roles: Record<number, string>, quiet = false): Promise<LoadResult> {
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

export function cpuLine(r: LoadResult): string {
  const s = r.cpu.seconds;
  const parts = ['server', 'postgres', 'autocannon', 'other'].map((k) => `${k} ${fmt((s[k] ?? 0) / r.seconds, 2)}`);
  return `${parts.join(', ')} cores; machine ${fmt(r.cpu.machineBusy * 100, 0)}% busy${stallsSuffix(r.disk)}`;
}

/** CPU cores used by processes outside this benchmark over `seconds`. */
async function otherLoad(seconds: number): Promise<number> {
  const before = cpuSnapshot();
  await sleep(seconds * 1000);
  const use = cpuUse(before, cpuSnapshot(), { [process.pid]: 'self' });
  return ((use.seconds.other ?? 0) + (use.seconds.postgres ?? 0)) / seconds;
}

/** Other work on this 2-core machine (a test suite...) distorts every figure: wait for it to stop. */
export async function waitForQuiet() {
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
