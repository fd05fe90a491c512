// The row of a status change: locked before the change (lockTransaction) and written by it
// (writeChange). In a batch of changes (changes.ts) the batch's rows are locked by one statement
// before its changes run, and their writes wait for the batch's end (db/deferred.ts), where each
// set of columns is written for all the rows that change it by one statement: a change costs no
// round trip of its own. What a change writes is answered as the row will be (no trigger rewrites
// a transaction's row), and anything that reads a row of the batch flushes the writes first.
import { sql } from 'kysely';
import { deferred, flushDeferred } from '../../db/deferred.ts';
import type { Trx } from '../../db/index.ts';
import type { Transaction } from '../../db/types.ts';
import type { Scope } from '../../http/scope.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Rows a batch of changes locked together (lockBatch), each for its change's lockTransaction to take, once. */
const lockedEarly = new WeakMap<Trx, Map<string, Transaction>>();

/** Locks the transactions a batch of changes is about to change, in one statement, in id order (as any other batch takes them). */
export async function lockBatch(trx: Trx, ids: string[]): Promise<void> {
  // An id that is no UUID (a provider's malformed reference) is left to its change's own lookup.
  ids = ids.filter((id) => UUID.test(id));
  if (ids.length < 2) return;
  const rows = await trx
    .selectFrom('transactions')
    .selectAll()
    .where(sql<boolean>`id = ANY(${`{${ids.join(',')}}`}::uuid[])`)
    .orderBy('id')
    .forUpdate()
    .execute();
  lockedEarly.set(trx, new Map(rows.map((r) => [r.id, r])));
}

/**
 * Locks a transaction row of this tenant for a status change. A row its batch locked is taken as
 * read then, once: its change writes it, so a second change of the row in the batch reads it again.
 */
export async function lockTransaction(trx: Trx, scope: Scope, id: string): Promise<Transaction | undefined> {
  const early = lockedEarly.get(trx);
  const row = early?.get(id);
  if (row) {
    early!.delete(id);
    return row.user_id === scope.userId && row.livemode === scope.livemode ? row : undefined;
  }
  await flushDeferred(trx);
  return trx
    .selectFrom('transactions')
    .selectAll()
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** The columns a status change writes, with their SQL types (the batch's statement reads them from JSON). */
const CHANGED = {
  status: 'text',
  updated_at: 'timestamptz',
  provider_ref: 'text',
  authorized_at: 'timestamptz',
  expires_at: 'timestamptz',
  paid_at: 'timestamptz',
  paid_with: 'text',
  captured_at: 'timestamptz',
  charged_cents: 'bigint',
  amount_cents: 'bigint',
  fee_cents: 'bigint',
  installment_cents: 'bigint',
  failed_at: 'timestamptz',
  failure_reason: 'text',
  expired_at: 'timestamptz',
  cancelled_at: 'timestamptz',
  refunded_cents: 'bigint',
  refunded_at: 'timestamptz',
} as const;
export type ChangedColumns = Partial<Pick<Transaction, keyof typeof CHANGED>>;

interface Write {
  id: string;
  user_id: string;
  set: ChangedColumns;
}

/** Writes a change's columns to its locked row `tx` (an undefined one is not written); answers the row as written. */
export async function writeChange(trx: Trx, tx: Transaction, columns: ChangedColumns): Promise<Transaction> {
  const later = deferred<Write>(trx, 'transactions', 0, writeChanges);
  if (!later) return trx.updateTable('transactions').set(columns).where('user_id', '=', tx.user_id).where('id', '=', tx.id).returningAll().executeTakeFirstOrThrow();
  const set = Object.fromEntries(Object.entries(columns).filter(([, v]) => v !== undefined)) as ChangedColumns;
  later.push({ id: tx.id, user_id: tx.user_id, set });
  return { ...tx, ...set };
}

/** A batch's writes: one statement per set of columns; a row written twice (not through lockTransaction) in rounds, in order. */
async function writeChanges(trx: Trx, writes: Write[]): Promise<void> {
  let round = new Map<string, Write[]>();
  const ids = new Set<string>();
  for (const w of writes) {
    if (ids.has(w.id)) {
      await writeRound(trx, round);
      round = new Map();
      ids.clear();
    }
    ids.add(w.id);
    const columns = Object.keys(w.set).sort().join(',');
    const same = round.get(columns);
    if (same) same.push(w);
    else round.set(columns, [w]);
  }
  await writeRound(trx, round);
}

async function writeRound(trx: Trx, byColumns: Map<string, Write[]>): Promise<void> {
  for (const [columns, rows] of byColumns) {
    const names = columns.split(',') as (keyof typeof CHANGED)[];
    for (const n of names) if (!(n in CHANGED)) throw new Error(`transactions: no deferred write of ${n}`);
    const body = JSON.stringify(rows.map((w) => ({ id: w.id, user_id: w.user_id, ...w.set })));
    await sql`UPDATE transactions t SET ${sql.raw(names.map((n) => `${n} = r.${n}`).join(', '))}
      FROM json_to_recordset(${body}::json) AS r (id uuid, user_id uuid, ${sql.raw(names.map((n) => `${n} ${CHANGED[n]}`).join(', '))})
      WHERE t.user_id = r.user_id AND t.id = r.id`.execute(trx);
  }
}
