// Percentiles of the benchmark's samples, one definition for every scenario.
import type { BatchesSummary, ChildStats } from './child.ts';

/** The p-th percentile (nearest rank) of ascending `sorted` values; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** p50, p99 and the largest of `values` (any order); NaN for each when there are none. */
export function spread(values: ArrayLike<number>): { p50: number; p99: number; max: number } {
  const sorted = Float64Array.from(values).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.length ? sorted[sorted.length - 1] : NaN };
}

/** A number with `digits` decimals, thousands separated (en-US); n/a when it is not finite. */
export const fmt = (n: number, digits: number) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');

/** A target's result as the report writes it. */
export const met = (ok: boolean | undefined) => (ok === undefined ? 'not run' : ok ? '**met**' : '**missed**');

/** How the gateway's writers' batches went: their number and size, how long each ran, how long its oldest item waited for it. */
export function batchesLines(stats: Pick<ChildStats, 'batches' | 'changeBatches'>): string[] {
  const line = (what: string, b: BatchesSummary) =>
    `${what} batches: ${b.count} (${fmt(b.rows / b.count, 1)} each on average), each ran p50 ${fmt(b.ran.p50, 1)} ms, p99 ${fmt(b.ran.p99, 1)} ms; ` +
    `its oldest had waited for it p50 ${fmt(b.waited.p50, 1)} ms, p99 ${fmt(b.waited.p99, 1)} ms`;
  return [
    ...(stats.batches ? [line('creation', stats.batches)] : []),
    ...(stats.changeBatches ? [line('status change', stats.changeBatches)] : []),
  ];
}
