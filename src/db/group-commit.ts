// Group commit: many requests' writes in one statement and one commit.
//
// A write submitted while the database is idle starts at once, alone (no timer, no waiting for
// company; with `nextTurn`, on the next turn of the event loop). Writes submitted while batches are
// in flight queue up; as soon as a batch finishes, everything queued (up to `maxBatch`, of one
// group) becomes the next batch. At most `maxInFlight` batches run at a time (and, with
// `onePerGroup`, one per group). A batch that fails as a whole is written again one item at a time,
// so one bad item fails alone. Each submitter's promise settles only when its own batch has finished,
// i.e. after its commit (the statement is run outside any transaction: it commits by itself).
//
// It knows nothing of SQL: `write` is given the items of a batch and returns one result per item.

export interface GroupCommitOptions<T, R> {
  /** Items of one batch share this (e.g. the merchant and environment the statement is written for). */
  group(item: T): string;
  /** Writes the items in one statement; one result per item, in order. Throws if the statement failed. */
  write(items: T[]): Promise<R[]>;
  /** At most this many items per batch. */
  maxBatch: number;
  /** At most this many batches at a time. */
  maxInFlight: number;
  /**
   * A batch beyond the first in flight starts only with at least this many items waiting (default 1);
   * fewer wait for the batch in flight to finish and go together, in a bigger batch.
   */
  minExtraBatch?: number;
  /**
   * Start batches on the next turn of the event loop (setImmediate: no timer, no fixed wait) rather
   * than at once. For a database that runs in this thread (PGlite): while it works nothing else
   * runs, so requests received meanwhile are only read after it; one turn lets them join the batch.
   */
  nextTurn?: boolean;
  /**
   * At most one batch of a group at a time: a group's items wait while a batch of theirs is in
   * flight (for work that serialises on the group's rows anyway, where two batches of one group
   * would only wait on each other, or worse, lock rows in opposite orders).
   */
  onePerGroup?: boolean;
  /**
   * Told of every batch once it has finished (for measurements, e.g. the benchmark's): its size, how
   * long its oldest item waited for it to start, and how long it ran (ms).
   */
  observe?(size: number, waitedMs: number, ranMs: number): void;
}

interface Pending<T, R> {
  item: T;
  group: string;
  /** When it was submitted (performance.now()), kept only with `observe`. */
  at: number;
  resolve(result: R): void;
  reject(err: unknown): void;
}

export class GroupCommit<T, R> {
  private queue: Pending<T, R>[] = [];
  private inFlight = 0;
  /** The groups with a batch in flight (kept only with onePerGroup). */
  private readonly busy = new Set<string>();
  private scheduled = false;
  private readonly opts: GroupCommitOptions<T, R>;

  constructor(opts: GroupCommitOptions<T, R>) {
    this.opts = opts;
  }

  /** Writes `item` with whatever else is waiting; settles after its batch committed (or failed). */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, group: this.opts.group(item), at: this.opts.observe ? performance.now() : 0, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (!this.opts.nextTurn) {
      this.start();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    while (this.inFlight < this.opts.maxInFlight && this.queue.length >= (this.inFlight ? (this.opts.minExtraBatch ?? 1) : 1)) {
      const first = this.opts.onePerGroup ? this.queue.find((p) => !this.busy.has(p.group)) : this.queue[0];
      if (!first) return;
      const { group } = first;
      const batch = this.take(group);
      this.inFlight++;
      if (this.opts.onePerGroup) this.busy.add(group);
      const started = this.opts.observe ? performance.now() : 0;
      void this.run(batch).finally(() => {
        this.opts.observe?.(batch.length, started - batch[0].at, performance.now() - started);
        this.inFlight--;
        this.busy.delete(group);
        this.pump();
      });
    }
  }

  /** The waiting items of this group, in arrival order, up to maxBatch. */
  private take(group: string): Pending<T, R>[] {
    const batch: Pending<T, R>[] = [];
    const rest: Pending<T, R>[] = [];
    for (const p of this.queue) (p.group === group && batch.length < this.opts.maxBatch ? batch : rest).push(p);
    this.queue = rest;
    return batch;
  }

  private async run(batch: Pending<T, R>[]): Promise<void> {
    let results: R[];
    try {
      results = await this.opts.write(batch.map((p) => p.item));
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      // The statement failed as a whole: nothing of it was written. Each item alone, so that the
      // item that made it fail fails by itself and its neighbours are written.
      for (const p of batch) await this.run([p]);
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]));
  }
}
