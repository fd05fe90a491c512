// Posting journals: the accounts moved by their total in one statement (in the global lock order),
// then the journals, their entries and their rows in one more. Inside a batch of status changes
// (db/deferred.ts) the journals of every change wait for the batch's end and go together: each
// account is moved once for the batch, and the batch costs those two statements, not two a change.
import { sql, type Insertable } from 'kysely';
import { deferred } from '../../db/deferred.ts';
import type { Trx } from '../../db/index.ts';
import { uuidv7, uuidv7Ordered } from '../../db/ids.ts';
import type { AccountKind, DB } from '../../db/types.ts';
import type { Scope } from '../../http/scope.ts';
import { collectEvents, type EventLog, type EventsByMerchant } from '../events/service.ts';

export interface Posting {
  account: AccountKind;
  amount: number; // cents; positive increases the account, negative decreases it
  /**
   * Another merchant's account (same environment) moved in this journal: an affiliate's share of a
   * sale. Each merchant's part of a journal must balance on its own (through `transfers`).
   */
  userId?: string;
}

export interface JournalInput {
  kind: string; // payment, refund, settlement, withdrawal, ...
  referenceType: string;
  referenceId: string;
  description: string;
  postings: Posting[];
  /** Rows that describe the journal's movements (a split's shares), written by its own statement. */
  rows?: JournalRows[];
}

/** Rows of one table, inserted with a journal. */
export type JournalRows = { [T in keyof DB]: { table: T; values: Insertable<DB[T]>[] } }[keyof DB];

export interface Balance {
  availableCents: number;
  receivableCents: number;
  reservedCents: number;
}

/** An account of a merchant: what `lockAccounts` takes. */
export interface AccountKey {
  userId: string;
  kind: AccountKind;
}

export const MERCHANT_ACCOUNTS: AccountKind[] = ['available', 'receivable', 'reserved'];
const ORDER: AccountKind[] = ['available', 'receivable', 'reserved', 'fees', 'external', 'commission_pending', 'transfers'];

/** The one global order every lock on ledger accounts follows: by merchant, then kind (ORDER). */
export function byLockOrder(a: AccountKey, b: AccountKey): number {
  if (a.userId !== b.userId) return a.userId < b.userId ? -1 : 1;
  return ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind);
}

/** A journal to post and its deltas per merchant and account kind. */
interface Journal {
  scope: Scope;
  input: JournalInput;
  deltas: Map<string, Map<AccountKind, number>>;
}

/** One postAll: its journals, and the data of the balance.updated events they owe (filled once the accounts moved). */
interface Post {
  journals: Journal[];
  updates: { userId: string; data: Record<string, unknown>; input: JournalInput }[];
}

/** Deltas per merchant and account kind; each merchant's part must balance on its own. */
function journalDeltas(scope: Scope, input: JournalInput): Journal['deltas'] {
  const deltas = new Map<string, Map<AccountKind, number>>();
  for (const p of input.postings) {
    if (!Number.isSafeInteger(p.amount)) throw new Error(`ledger: non-integer amount ${p.amount}`);
    const userId = p.userId ?? scope.userId;
    const of = deltas.get(userId) ?? new Map<AccountKind, number>();
    of.set(p.account, (of.get(p.account) ?? 0) + p.amount);
    deltas.set(userId, of);
  }
  for (const [userId, of] of deltas) {
    const sum = [...of.values()].reduce((a, b) => a + b, 0);
    if (sum !== 0) throw new Error(`ledger: unbalanced journal ${input.kind} (${sum}${userId === scope.userId ? '' : ` for ${userId}`})`);
    for (const [kind, delta] of of) if (delta === 0) of.delete(kind);
  }
  return deltas;
}

/**
 * Posts balanced journals of one environment: balance.updated to each merchant whose own accounts a
 * journal moved, one per journal, into `collect` (for the caller to record with its own events) or
 * recorded here. In a transaction that defers its writes, the journals are written at its end.
 */
export async function postJournals(trx: Trx, events: EventLog, scope: Scope, inputs: JournalInput[], collect?: EventsByMerchant): Promise<void> {
  const post: Post = { journals: [], updates: [] };
  const out: EventsByMerchant = collect ?? new Map();
  for (const input of inputs) {
    const deltas = journalDeltas(scope, input);
    if (![...deltas.values()].some((of) => of.size > 0)) continue;
    post.journals.push({ scope, input, deltas });
    for (const [userId, of] of deltas) {
      if (!MERCHANT_ACCOUNTS.some((k) => of.has(k))) continue;
      // The event's place is taken now, so the merchant's events keep their order; its balances come with the posting.
      const data: Record<string, unknown> = {};
      post.updates.push({ userId, data, input });
      collectEvents(out, userId, [{ type: 'balance.updated', data }]);
    }
  }
  if (!post.journals.length) return;
  // In a batch, the journals of all its changes are posted together at its end.
  const later = deferred<Post>(trx, `ledger:${scope.livemode}`, 0, (t, posts) => writePosts(t, scope.livemode, posts));
  if (later) later.push(post);
  else await writePosts(trx, scope.livemode, [post]);
  if (!collect) await events.recordAll(trx, scope.livemode, out);
}

/** Now on the database's clock, to the millisecond (what a Date holds, and so what list cursors hold). */
const MOVED_AT = sql<Date>`date_trunc('milliseconds', clock_timestamp())`;

type Delta = { userId: string; kind: AccountKind; delta: number };

async function writePosts(trx: Trx, livemode: boolean, posts: Post[]): Promise<void> {
  const journals = posts.flatMap((p) => p.journals);
  if (!journals.length) return;
  // All the journals' deltas together, applied in one statement in the global lock order.
  const total = totalDeltas(journals);
  const { accounts, balances } = await moveAccounts(trx, livemode, [...total.values()].sort(byLockOrder));
  // The accounts are locked from here to the commit. The entries are stamped with their accounts'
  // movement time and their ids drawn in order, so that listed by (created_at, id) they follow the
  // order of the balances after them, whichever process wrote them (a time read in the process
  // before the lock put a transaction that had waited for it before the one it waited for).
  const now = new Date(Math.max(...accounts.map((a) => a.updated_at.getTime())));
  // Each entry's balance after it: from the balance before all the journals, journal by journal.
  const running = new Map(accounts.map((a) => [`${a.user_id}:${a.kind}`, { id: a.id, balance: Number(a.balance_cents) - total.get(`${a.user_id}:${a.kind}`)!.delta }]));
  const journalRows: Insertable<DB['ledger_journals']>[] = [];
  const entryRows: Insertable<DB['ledger_entries']>[] = [];
  const more = new Map<string, JournalRows>();
  for (const { scope, input, deltas } of journals) {
    const journalId = uuidv7();
    const { referenceType: reference_type, referenceId: reference_id, description } = input;
    journalRows.push({ id: journalId, user_id: scope.userId, livemode, kind: input.kind, reference_type, reference_id, description, created_at: now });
    const entries = [...deltas].flatMap(([userId, of]) => [...of].map(([kind, delta]) => ({ userId, kind, delta }))).sort(byLockOrder);
    for (const e of entries) {
      const account = running.get(`${e.userId}:${e.kind}`)!;
      account.balance += e.delta;
      const row = { id: uuidv7Ordered(), journal_id: journalId, account_id: account.id, user_id: e.userId, livemode, account_kind: e.kind, amount_cents: e.delta, balance_after_cents: account.balance, created_at: now };
      entryRows.push(row);
    }
    for (const r of input.rows ?? []) {
      const same = more.get(r.table);
      if (same) (same.values as unknown[]).push(...r.values);
      else more.set(r.table, { ...r, values: [...r.values] } as JournalRows);
    }
  }
  // The journals, their entries and their rows in one statement (the entries' foreign key is checked at its end).
  await insertRows(trx, [{ table: 'ledger_journals', values: journalRows }, { table: 'ledger_entries', values: entryRows }, ...more.values()]);
  fillBalanceUpdates(posts, balances);
}

/**
 * The balance.updated data of each post: the balances after it, i.e. after all the posts less what
 * the later ones moved (a batch's posts are one after another).
 */
function fillBalanceUpdates(posts: Post[], final: Map<string, Balance>): void {
  const after = new Map([...final].map(([userId, b]) => [userId, { ...b }]));
  for (let i = posts.length - 1; i >= 0; i--) {
    for (const u of posts[i].updates) Object.assign(u.data, after.get(u.userId), { reason: u.input.kind, referenceType: u.input.referenceType, referenceId: u.input.referenceId });
    for (const { deltas } of posts[i].journals) {
      for (const [userId, of] of deltas) {
        const b = after.get(userId);
        if (!b) continue;
        b.availableCents -= of.get('available') ?? 0;
        b.receivableCents -= of.get('receivable') ?? 0;
        b.reservedCents -= of.get('reserved') ?? 0;
      }
    }
  }
}

/**
 * Applies the deltas to their accounts (created on first use) in one statement, in lock order;
 * answers the moved rows and each merchant's balance after them, read by the same statement (rows
 * `moved` false: its other accounts, and the moved ones as they were before).
 */
async function moveAccounts(trx: Trx, livemode: boolean, moved: Delta[]) {
  const upsert = trx
    .insertInto('ledger_accounts')
    .values(moved.map((m) => ({ id: uuidv7(), user_id: m.userId, livemode, kind: m.kind, balance_cents: m.delta, updated_at: MOVED_AT })))
    .onConflict((oc) =>
      oc.columns(['user_id', 'livemode', 'kind']).doUpdateSet((eb) => ({
        balance_cents: eb('ledger_accounts.balance_cents', '+', eb.ref('excluded.balance_cents')),
        // Read once the row is locked, on the database's one clock, and never before its last movement.
        updated_at: sql<Date>`greatest(${MOVED_AT}, ledger_accounts.updated_at + interval '1 millisecond')`,
      })),
    )
    .returning(['id', 'user_id', 'kind', 'balance_cents', 'updated_at', sql<boolean>`true`.as('moved')]);
  const owners = [...new Set(moved.filter((m) => MERCHANT_ACCOUNTS.includes(m.kind)).map((m) => m.userId))];
  const rows = owners.length
    ? await trx
        .with('moved', () => upsert)
        .selectFrom('moved')
        .selectAll()
        .unionAll(
          trx
            .selectFrom('ledger_accounts')
            .select(['id', 'user_id', 'kind', 'balance_cents', 'updated_at', sql<boolean>`false`.as('moved')])
            .where('livemode', '=', livemode)
            .where('user_id', 'in', owners)
            .where('kind', 'in', MERCHANT_ACCOUNTS),
        )
        .execute()
    : await upsert.execute();
  return { accounts: rows.filter((a) => a.moved), balances: ownerBalances(owners, rows) };
}

/** Each owner's balance after the journals: an account's moved row, else its row as it was, else 0. */
function ownerBalances(owners: string[], rows: { user_id: string; kind: AccountKind; balance_cents: number | string; moved: boolean }[]): Map<string, Balance> {
  const out = new Map<string, Balance>();
  for (const userId of owners) {
    const of = (kind: AccountKind) => {
      const mine = rows.filter((r) => r.user_id === userId && r.kind === kind);
      return Number((mine.find((r) => r.moved) ?? mine[0])?.balance_cents ?? 0);
    };
    out.set(userId, { availableCents: of('available'), receivableCents: of('receivable'), reservedCents: of('reserved') });
  }
  return out;
}

/** The deltas of all the journals together, per merchant and account kind. */
function totalDeltas(journals: Journal[]): Map<string, Delta> {
  const total = new Map<string, Delta>();
  for (const j of journals) {
    for (const [userId, of] of j.deltas) {
      for (const [kind, delta] of of) {
        const key = `${userId}:${kind}`;
        const t = total.get(key) ?? { userId, kind, delta: 0 };
        t.delta += delta;
        total.set(key, t);
      }
    }
  }
  return total;
}

/**
 * Inserts `rows` in one statement, each table's as a CTE of its own taking its rows as one JSON
 * parameter (by column name): one bind value however many rows and columns, and one statement text
 * however many journals a batch posts.
 */
async function insertRows(trx: Trx, rows: JournalRows[]): Promise<void> {
  const ctes = rows.map((r, i) => {
    const table = sql.table(r.table);
    return sql`${sql.raw(`rows_${i}`)} AS (INSERT INTO ${table} SELECT * FROM jsonb_populate_recordset(NULL::${table}, ${JSON.stringify(r.values)}::jsonb))`;
  });
  await sql`WITH ${sql.join(ctes)} SELECT 1`.execute(trx);
}
