// Writes put off to the end of a transaction, so that a batch of status changes (see
// modules/transactions/changes.ts) sends each kind as one statement for all its changes: their
// transactions' rows, their ledger journals (the accounts moved once, by the batch's total; with the
// rows they describe, a split's shares and a card sale's instalments), their card tries' finishes,
// then their events, then the requests' stored answers.
// Outside a transaction opened for it with deferWrites, nothing is put off.
//
// What is put off is written before anything reads it (the ledger's balance reads, the shares' and
// instalments' reads, a second lock of a row, a referral's sum of sales and the janitor's settling of
// tries flush first), at the end of the batch, and
// by each change of a batch run with savepoints before its savepoint is released, so a failing
// write fails with its own change.
import type { Trx } from './index.ts';

/** One kind of deferred write of a transaction: what it keeps, and how it writes that. */
interface Part {
  rank: number;
  items: unknown[];
  write(trx: Trx, items: unknown[]): Promise<void>;
}

const open = new WeakMap<Trx, Map<string, Part>>();

/** From now on, writers that support it defer their writes in `trx` until flushDeferred. */
export function deferWrites(trx: Trx): void {
  if (!open.has(trx)) open.set(trx, new Map());
}

/**
 * The list of items of kind `key` that `trx` puts off, to push to; `write` gets them all at the flush.
 * Kinds are flushed in `rank` order: a lower rank may still defer into a higher one while it writes.
 * Undefined when `trx` does not defer (write at once).
 */
export function deferred<T>(trx: unknown, key: string, rank: number, write: (trx: Trx, items: T[]) => Promise<void>): T[] | undefined {
  const parts = open.get(trx as Trx);
  if (!parts) return undefined;
  let part = parts.get(key);
  if (!part) {
    part = { rank, items: [], write: write as Part['write'] };
    parts.set(key, part);
  }
  return part.items as T[];
}

/** Writes everything `trx` has put off, lowest rank first; a no-op for an executor that does not defer. */
export async function flushDeferred(trx: unknown): Promise<void> {
  const parts = open.get(trx as Trx);
  if (!parts) return;
  while (parts.size) {
    const [key, part] = [...parts].reduce((a, b) => (b[1].rank < a[1].rank ? b : a));
    parts.delete(key);
    await part.write(trx as Trx, part.items);
  }
}

/** Forgets what `trx` has put off since its last flush (its change was rolled back to a savepoint). */
export function discardDeferred(trx: Trx): void {
  open.get(trx)?.clear();
}
