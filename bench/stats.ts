// Percentiles of the benchmark's samples, one definition for every scenario.

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
