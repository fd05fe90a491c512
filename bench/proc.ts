// CPU accounting from /proc: who used the two cores during a measurement, a process's CPU time,
// PostgreSQL's. No settings here: the scenarios that run on their own (webhooks.ts) use it too.
import { readdirSync, readFileSync } from 'node:fs';

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

/** CPU ticks (utime + stime, 1/100 s) of a process from /proc; 0 where /proc is missing. */
export function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** CPU ticks of PostgreSQL from /proc: every live postgres process, plus what exited backends used (the postmaster's reaped-children time). */
export function postgresTicks(): number {
  let sum = 0;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        sum += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      } catch {
        /* exited meanwhile */
      }
    }
  } catch {
    /* no /proc */
  }
  return sum;
}
