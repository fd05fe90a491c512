// Percentiles of the benchmark's samples, one definition for every scenario.

/** The p-th percentile (nearest rank) of ascending `sorted` values; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
