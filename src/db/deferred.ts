// Writes put off to the end of a transaction, so that a batch of status changes (see
// modules/transactions/changes.ts) sends each kind as one statement for all its changes: their
// ledger journals (the accounts moved once, by the batch's total; with the rows they describe, a
// split's shares and a card sale's instalments), their card tries' finishes, then their events.
// Outside a transaction opened for it with deferWrites, nothing is put off.
//
// A part is flushed before anything reads what it would write (the ledger's balance reads, the
// shares' and instalments' reads and the janitor's settling of tries flush first), at the end of the batch, and by each change of a batch run with savepoints before its
// savepoint is released, so a failing write fails with its own change.
import type { Trx } from './index.ts';

/** What one kind of deferred write keeps for a transaction, and how it writes it. */
export interface DeferredPart {
  flush(trx: Trx): Promise<void>;
}

/** Parts are flushed in rank order: a lower rank may still defer into a higher one while it flushes. */
interface Entry {
  rank: number;
  part: DeferredPart;
}

const open = new WeakMap<Trx, Map<string, Entry>>();

/** From now on, parts that support it defer their writes in `trx` until flushDeferred. */
export function deferWrites(trx: Trx): void {
  if (!open.has(trx)) open.set(trx, new Map());
}

/** The part `key` of `trx`, made on first use; undefined when `trx` does not defer (write at once). */
export function deferredPart<T extends DeferredPart>(trx: Trx, key: string, rank: number, make: () => T): T | undefined {
  const parts = open.get(trx);
  if (!parts) return undefined;
  let entry = parts.get(key);
  if (!entry) {
    entry = { rank, part: make() };
    parts.set(key, entry);
  }
  return entry.part as T;
}

/** Writes everything `trx` has put off, lowest rank first; a no-op for an executor that does not defer. */
export async function flushDeferred(trx: unknown): Promise<void> {
  const parts = open.get(trx as Trx);
  if (!parts) return;
  while (parts.size) {
    const [key, entry] = [...parts].reduce((a, b) => (b[1].rank < a[1].rank ? b : a));
    parts.delete(key);
    await entry.part.flush(trx as Trx);
  }
}

/** Forgets what `trx` has put off since its last flush (its change was rolled back to a savepoint). */
export function discardDeferred(trx: Trx): void {
  open.get(trx)?.clear();
}
