// CPU accounting from /proc: who used the two cores during a measurement; and the wait for a quiet
// machine before one.
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { QUIET_WAIT } from './settings.ts';
import { fmt } from './stats.ts';

const CLK_TCK = 100;
interface CpuSnapshot {
  procs: Map<number, { comm: string; ticks: number }>;
  busy: number;
  total: number;
}

export function cpuSnapshot(): CpuSnapshot {
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

export function cpuUse(before: CpuSnapshot, after: CpuSnapshot, roles: Record<number, string>): CpuUse {
  const seconds: Record<string, number> = {};
  for (const [pid, p] of after.procs) {
    const delta = p.ticks - (before.procs.get(pid)?.ticks ?? 0);
    if (delta <= 0) continue;
    const role = roles[pid] ?? (p.comm === 'postgres' ? 'postgres' : 'other');
    seconds[role] = (seconds[role] ?? 0) + delta / CLK_TCK;
  }
  return { seconds, machineBusy: (after.busy - before.busy) / Math.max(1, after.total - before.total) };
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
