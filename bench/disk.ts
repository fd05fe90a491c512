// Write stalls of the disk PostgreSQL writes to, counted while a load runs (/proc/diskstats, read
// every 20 ms): moments when the device had requests in flight and completed none for 50 ms or more.
// On the virtual machines these benchmarks ran on such stalls come and go (none in 30 s of one
// process writing and syncing 8 KB blocks alone, several in a run of PostgreSQL committing 1,000
// times a second): every commit of those moments waits for its WAL flush (WALSync), the floor's as
// the gateway's, and one stall of 100 ms puts an open loop's p99 above 10 ms (bench/HISTORY.md,
// 2026-11-27). Reported beside each figure so that a latency can be read against them.
import { readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface DiskStalls {
  /** Stalls of at least STALL_MS. */
  count: number;
  longestMs: number;
  totalMs: number;
}

const STALL_MS = 50;
const EVERY_MS = 20;

/** The device holding `dir`, as /proc/diskstats names it ("major minor"); null when it cannot be told here. */
export function deviceOf(dir: string): string | null {
  try {
    const dev = statSync(dir, { bigint: true }).dev;
    // glibc's gnu_dev_major / gnu_dev_minor.
    const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
    const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
    const device = `${major} ${minor}`;
    return sample(device) ? device : null;
  } catch {
    return null;
  }
}

interface Sample {
  at: number;
  /** Reads, writes and flushes completed so far. */
  completed: number;
  /** Milliseconds the device has had requests in flight. */
  busyMs: number;
}

function sample(device: string): Sample | null {
  for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (`${f[0]} ${f[1]}` !== device) continue;
    // Fields after the name: reads completed (3), writes completed (7), ms doing I/O (12), flushes completed (17, newer kernels).
    return { at: performance.now(), completed: Number(f[3]) + Number(f[7]) + Number(f[17] ?? 0), busyMs: Number(f[12]) };
  }
  return null;
}

/** Starts counting the device's stalls; the function returned stops and tells them (null without a device). */
export function watchDisk(device: string | null): () => DiskStalls | null {
  if (!device) return () => null;
  const stalls: DiskStalls = { count: 0, longestMs: 0, totalMs: 0 };
  let last = sample(device);
  let stalled = 0; // ms of the stall going on
  const end = () => {
    if (stalled >= STALL_MS) {
      stalls.count++;
      stalls.longestMs = Math.max(stalls.longestMs, stalled);
      stalls.totalMs += stalled;
    }
    stalled = 0;
  };
  const timer = setInterval(() => {
    const now = sample(device);
    if (!now || !last) return;
    const dt = now.at - last.at;
    // Busy for most of the interval (the kernel counts busy time in ticks) and nothing completed.
    if (now.completed === last.completed && now.busyMs - last.busyMs >= dt / 2) stalled += dt;
    else end();
    last = now;
  }, EVERY_MS);
  return () => {
    clearInterval(timer);
    end();
    return stalls;
  };
}

/** "; disk 2 stalls >= 50 ms (longest 124 ms, 180 ms in all)", to end a result's line; "" without a device. */
export function stallsSuffix(s: DiskStalls | null | undefined): string {
  if (!s) return '';
  return `; disk ${s.count} stall${s.count === 1 ? '' : 's'} >= ${STALL_MS} ms${s.count ? ` (longest ${Math.round(s.longestMs)} ms, ${Math.round(s.totalMs)} ms in all)` : ''}`;
}
