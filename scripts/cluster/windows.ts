// The figures the rehearsal computes from its own records: each fault's window of failed requests
// and the throughput of a phase. Pure functions (test/rehearsal-figures.test.ts).
import type { Attempt } from './client.ts';

export interface FaultMark {
  name: string;
  /** When the fault began (ms since the epoch). */
  at: number;
}

export interface FaultWindow {
  name: string;
  /** Failed answers (5xx or no answer) attributed to the fault. */
  failures: number;
  /** From the fault to its first and last failure, ms; null without failures. */
  firstMs: number | null;
  lastMs: number | null;
  /** Last failure minus first, ms (0 for one failure, null for none). */
  windowMs: number | null;
}

export const failed = (a: Attempt) => a.status === 0 || a.status >= 500;

/**
 * Each failed attempt is put on the latest fault begun at or before it; one that comes before
 * every fault, or more than `horizonMs` after its fault, is no fault's (returned as `unattributed`).
 */
export function faultWindows(faults: FaultMark[], attempts: Attempt[], horizonMs = 30_000): { windows: FaultWindow[]; unattributed: number } {
  const sorted = [...faults].sort((a, b) => a.at - b.at);
  const times = sorted.map(() => [] as number[]);
  let unattributed = 0;
  for (const a of attempts) {
    if (!failed(a)) continue;
    let k = -1;
    for (let i = 0; i < sorted.length && sorted[i].at <= a.at; i++) k = i;
    if (k < 0 || a.at - sorted[k].at > horizonMs) unattributed++;
    else times[k].push(a.at);
  }
  const windows = sorted.map((f, i) => {
    const t = times[i];
    if (t.length === 0) return { name: f.name, failures: 0, firstMs: null, lastMs: null, windowMs: null };
    const first = Math.min(...t);
    const last = Math.max(...t);
    return { name: f.name, failures: t.length, firstMs: first - f.at, lastMs: last - f.at, windowMs: last - first };
  });
  return { windows, unattributed };
}

/** Answered requests per second (any status but no answer) between from and to. */
export function throughput(attempts: Attempt[], from: number, to: number): number {
  const n = attempts.filter((a) => a.at >= from && a.at < to && a.status !== 0).length;
  return to > from ? n / ((to - from) / 1000) : 0;
}

/** Receipts of each event id: how many were received, and how many beyond the first. */
export function receipts(received: Map<string, number>): { events: number; duplicates: number } {
  let duplicates = 0;
  for (const n of received.values()) duplicates += n - 1;
  return { events: received.size, duplicates };
}

/**
 * Requests refused (4xx) on a try after one that failed (no answer, 5xx, or 409 while the key was
 * held): the first try may have done the work on a process that died before storing its answer, and
 * the retry, taking the key over once its lease ended, ran it again (docs/operations.md, "Rehearsal").
 */
export function refusedOnRetry<T extends { status: number | null; history: number[] }>(outcomes: T[]): T[] {
  return outcomes.filter((o) => o.status !== null && o.status >= 400 && o.status < 500 && o.history.slice(0, -1).some((s) => s === 0 || s >= 500 || s === 409));
}
