// Reads that callers missing a cache together share: one query per key at a time, whose promise
// every caller that asks while it runs awaits (a cache's expiry under load is otherwise one query per
// request in flight at that moment). Only for reads outside a transaction: a transaction's reads are
// its own.

export class SharedReads<T> {
  private readonly running = new Map<string, Promise<T>>();

  /** `read()`'s answer, or that of the read of `key` already under way. */
  run(key: string, read: () => Promise<T>): Promise<T> {
    let pending = this.running.get(key);
    if (!pending) {
      pending = read().finally(() => this.running.delete(key));
      this.running.set(key, pending);
    }
    return pending;
  }
}
