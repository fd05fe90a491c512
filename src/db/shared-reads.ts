// Reads that callers missing a cache together share: one query per key at a time, whose promise
// every caller that asks while it runs awaits (a cache's expiry under load is otherwise one query per
// request in flight at that moment). Only for reads outside a transaction: a transaction's reads are
// its own.
//
// A change the process makes to what the cache holds (`changed`) ends the sharing of the reads
// under way: a caller after it never joins a read started before it, and such a read, told by its
// `current()`, answers what it found without keeping it.

export class SharedReads<T> {
  private readonly running = new Map<string, Promise<T>>();
  private generation = 0;

  /** `read()`'s answer, or that of the read of `key` already under way and started since the last change. */
  run(key: string, read: (current: () => boolean) => Promise<T>): Promise<T> {
    const shared = `${this.generation}:${key}`;
    let pending = this.running.get(shared);
    if (!pending) {
      pending = read(this.watch()).finally(() => this.running.delete(shared));
      this.running.set(shared, pending);
    }
    return pending;
  }

  /** A change made here to what the reads read. */
  changed(): void {
    this.generation++;
  }

  /** Whether no change was made since now: for a read that may keep what it found (shared or not). */
  watch(): () => boolean {
    const generation = this.generation;
    return () => generation === this.generation;
  }
}
