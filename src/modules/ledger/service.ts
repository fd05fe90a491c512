// Double-entry ledger. Each merchant and environment has five accounts:
//   available, receivable, reserved — the merchant's money (shown as its balance);
//   fees     — the platform's revenue from this merchant;
//   external — the outside world (payers and payout destinations); it goes negative as money comes in.
// Every movement is a journal whose entries sum to zero, posted inside the caller's transaction;
// account balances are updated under row lock and always equal the sum of their entries.
import { sql } from 'kysely';
import type { Executor, Trx } from '../../db/index.ts';
import { uuidv7, uuidv7Ordered } from '../../db/ids.ts';
import type { Insertable } from 'kysely';
import type { AccountKind, DB } from '../../db/types.ts';
import { createdAtPage, type CursorPageQuery, type Cursors } from '../../http/pagination.ts';
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

/**
 * Moves `amount` from the journal's merchant to another merchant's `account` through both sides'
 * `transfers`; the caller posts the merchant's own side (the account the money leaves).
 */
export function transferPostings(userId: string, account: AccountKind, amount: number): Posting[] {
  return [
    { account: 'transfers', amount },
    { userId, account: 'transfers', amount: -amount },
    { userId, account, amount },
  ];
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

const MERCHANT_ACCOUNTS: AccountKind[] = ['available', 'receivable', 'reserved'];
const ORDER: AccountKind[] = ['available', 'receivable', 'reserved', 'fees', 'external', 'commission_pending', 'transfers'];

export interface Balance {
  availableCents: number;
  receivableCents: number;
  reservedCents: number;
}

export async function getBalance(db: Executor, scope: Scope): Promise<Balance> {
  const rows = await db
    .selectFrom('ledger_accounts')
    .select(['kind', 'balance_cents'])
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('kind', 'in', MERCHANT_ACCOUNTS)
    .execute();
  const of = (k: AccountKind) => rows.find((r) => r.kind === k)?.balance_cents ?? 0;
  return { availableCents: of('available'), receivableCents: of('receivable'), reservedCents: of('reserved') };
}

/** The merchant's wallet id (users.wallet_id): what splits name to pay it. */
export async function walletOf(db: Executor, userId: string): Promise<string> {
  return (await db.selectFrom('users').select('wallet_id').where('id', '=', userId).executeTakeFirstOrThrow()).wallet_id;
}

/**
 * When the receivable balance becomes available: the card instalments still to settle, summed per
 * calendar day in São Paulo (the first `limit` days, soonest first), and the total of all of them.
 * An instalment due and not yet swept shows on its own (past) day: it is released by the next sweep.
 */
export async function listReleases(db: Executor, scope: Scope, limit: number) {
  const rows = await db
    .selectFrom('receivables')
    .select([
      sql<string>`to_char(settle_at AT TIME ZONE 'America/Sao_Paulo', 'YYYY-MM-DD')`.as('day'),
      sql<string>`sum(amount_cents)`.as('amount'),
      sql<string>`count(*)`.as('count'),
      sql<string>`sum(sum(amount_cents)) OVER ()`.as('total'),
    ])
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('status', '=', 'PENDING')
    .where('amount_cents', '>', 0)
    .groupBy('day')
    .orderBy('day')
    .limit(limit)
    .execute();
  return {
    releases: rows.map((r) => ({ date: r.day, amountCents: Number(r.amount), instalments: Number(r.count) })),
    totalCents: rows.length ? Number(rows[0].total) : 0,
  };
}

/**
 * The balance under the names origin clients read (docs/compatibility.md): pending = receivable,
 * total = available + pending (what is the merchant's and not already on its way out in a withdrawal).
 */
export function originBalanceNames(b: Balance) {
  return { availableCents: b.availableCents, pendingCents: b.receivableCents, totalCents: b.availableCents + b.receivableCents };
}

/** Locks the merchant's account of this kind (creating it if needed) and returns its balance. */
export async function lockAccount(trx: Trx, scope: Scope, kind: AccountKind): Promise<number> {
  await trx
    .insertInto('ledger_accounts')
    .values({ id: uuidv7(), user_id: scope.userId, livemode: scope.livemode, kind, balance_cents: 0, updated_at: new Date() })
    .onConflict((oc) => oc.columns(['user_id', 'livemode', 'kind']).doNothing())
    .execute();
  const row = await trx
    .selectFrom('ledger_accounts')
    .select('balance_cents')
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('kind', '=', kind)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return row.balance_cents;
}

/** An account of a merchant: what `lockAccounts` takes. */
export interface AccountKey {
  userId: string;
  kind: AccountKind;
}

/** The one global order every lock on ledger accounts follows: by merchant, then kind (ORDER). */
function byLockOrder(a: AccountKey, b: AccountKey): number {
  if (a.userId !== b.userId) return a.userId < b.userId ? -1 : 1;
  return ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind);
}

/**
 * Locks accounts of one environment (creating missing ones) in the global order journals use, so
 * a caller that must read a balance before it posts (a refund checks what the merchant can pay)
 * takes every account its journals will move up front, and two such callers on the same merchants
 * in opposite roles (each refunding a sale the other earned a share of) cannot deadlock.
 */
export async function lockAccounts(trx: Trx, livemode: boolean, keys: AccountKey[]): Promise<void> {
  const seen = new Set<string>();
  const sorted = keys.filter((k) => !seen.has(`${k.userId}:${k.kind}`) && seen.add(`${k.userId}:${k.kind}`)).sort(byLockOrder);
  if (!sorted.length) return;
  const now = new Date();
  // One statement, rows in order: an insert or a no-op update takes each row's lock in turn.
  await trx
    .insertInto('ledger_accounts')
    .values(sorted.map((k) => ({ id: uuidv7(), user_id: k.userId, livemode, kind: k.kind, balance_cents: 0, updated_at: now })))
    .onConflict((oc) => oc.columns(['user_id', 'livemode', 'kind']).doUpdateSet((eb) => ({ balance_cents: eb.ref('ledger_accounts.balance_cents') })))
    .execute();
}

/** Posts journals; built once by deps.ts with the event log its balance.updated events go to. */
export class Ledger {
  private events: EventLog;
  constructor(events: EventLog) {
    this.events = events;
  }

  /**
   * Posts a balanced journal. Accounts are created on first use and updated in a fixed order (by
   * merchant, then kind), so concurrent journals cannot deadlock. Emits balance.updated to each
   * merchant whose own accounts moved.
   */
  post(trx: Trx, scope: Scope, input: JournalInput): Promise<void> {
    return postJournals(trx, this.events, scope, [input]);
  }

  /**
   * Posts several journals of one environment at once (a payment's and a referral reward's): the
   * accounts of all of them are locked together in the one order, as for a single journal.
   * `collect`: the balance.updated events go there instead, for the caller to record with its own
   * in one statement (without it they are recorded here, every merchant's in one statement).
   */
  postAll(trx: Trx, scope: Scope, inputs: JournalInput[], collect?: EventsByMerchant): Promise<void> {
    return postJournals(trx, this.events, scope, inputs, collect);
  }
}

/** A journal to post and its deltas per merchant and account kind. */
interface Journal {
  input: JournalInput;
  deltas: Map<string, Map<AccountKind, number>>;
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

/** Now on the database's clock, to the millisecond (what a Date holds, and so what list cursors hold). */
const MOVED_AT = sql<Date>`date_trunc('milliseconds', clock_timestamp())`;

async function postJournals(trx: Trx, events: EventLog, scope: Scope, inputs: JournalInput[], collect?: EventsByMerchant): Promise<void> {
  const journals: Journal[] = inputs.map((input) => ({ input, deltas: journalDeltas(scope, input) })).filter((j) => [...j.deltas.values()].some((of) => of.size > 0));
  if (!journals.length) return;
  // All the journals' deltas together, applied in one statement in the global lock order.
  const total = totalDeltas(journals);
  const moved = [...total.values()].sort(byLockOrder);

  const { accounts, balances } = await moveAccounts(trx, scope, moved);
  // The accounts are locked from here to the commit. The entries are stamped with their accounts'
  // movement time and their ids drawn in order, so that listed by (created_at, id) they follow the
  // order of the balances after them, whichever process wrote them (a time read in the process
  // before the lock put a transaction that had waited for it before the one it waited for).
  const now = new Date(Math.max(...accounts.map((a) => a.updated_at.getTime())));
  // Each entry's balance after it: from the balance before all the journals, journal by journal.
  const running = new Map(accounts.map((a) => [`${a.user_id}:${a.kind}`, { id: a.id, balance: Number(a.balance_cents) - total.get(`${a.user_id}:${a.kind}`)!.delta }]));

  for (const { input, deltas } of journals) {
    const entries = [...deltas].flatMap(([userId, of]) => [...of].map(([kind, delta]) => ({ userId, kind, delta }))).sort(byLockOrder);
    const journalId = uuidv7();
    // The journal, its entries and its rows in one statement (the entries' foreign key is checked at its end).
    await withRows(trx, input.rows ?? [])
      .with('journal', (db) =>
        db.insertInto('ledger_journals').values({
          id: journalId,
          user_id: scope.userId,
          livemode: scope.livemode,
          kind: input.kind,
          reference_type: input.referenceType,
          reference_id: input.referenceId,
          description: input.description,
          created_at: now,
        }),
      )
      .insertInto('ledger_entries')
      .values(
        entries.map((e) => {
          const account = running.get(`${e.userId}:${e.kind}`)!;
          account.balance += e.delta;
          return {
            id: uuidv7Ordered(),
            journal_id: journalId,
            account_id: account.id,
            user_id: e.userId,
            livemode: scope.livemode,
            account_kind: e.kind,
            amount_cents: e.delta,
            balance_after_cents: account.balance,
            created_at: now,
          };
        }),
      )
      .execute();
  }

  await recordBalanceUpdates(trx, events, scope, journals, balances, collect);
}

/**
 * Applies the deltas to their accounts (created on first use) in one statement, in lock order;
 * answers the moved rows and each merchant's balance after them, read by the same statement (rows
 * `moved` false: its other accounts, and the moved ones as they were before).
 */
async function moveAccounts(trx: Trx, scope: Scope, moved: { userId: string; kind: AccountKind; delta: number }[]) {
  const upsert = trx
    .insertInto('ledger_accounts')
    .values(moved.map((m) => ({ id: uuidv7(), user_id: m.userId, livemode: scope.livemode, kind: m.kind, balance_cents: m.delta, updated_at: MOVED_AT })))
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
            .where('livemode', '=', scope.livemode)
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
function totalDeltas(journals: Journal[]): Map<string, { userId: string; kind: AccountKind; delta: number }> {
  const total = new Map<string, { userId: string; kind: AccountKind; delta: number }>();
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

/** balance.updated to each merchant whose own accounts a journal moved, one per journal: into `collect`, or recorded in one statement. */
async function recordBalanceUpdates(trx: Trx, events: EventLog, scope: Scope, journals: Journal[], balances: Map<string, Balance>, collect?: EventsByMerchant): Promise<void> {
  const out: EventsByMerchant = collect ?? new Map();
  for (const { input, deltas } of journals) {
    for (const [userId, of] of deltas) {
      if (!MERCHANT_ACCOUNTS.some((k) => of.has(k))) continue;
      collectEvents(out, userId, [{ type: 'balance.updated', data: { ...balances.get(userId)!, reason: input.kind, referenceType: input.referenceType, referenceId: input.referenceId } }]);
    }
  }
  if (!collect) await events.recordAll(trx, scope.livemode, out);
}

/**
 * A query builder whose statement also inserts `rows`, each table's as a CTE of its own taking its
 * rows as one JSON parameter (by column name): one bind value however many rows and columns.
 */
function withRows(trx: Trx, rows: JournalRows[]) {
  let q: Pick<Trx, 'with'> = trx;
  rows.forEach((r, i) => {
    const table = sql.table(r.table);
    q = q.with(`rows_${i}`, () => sql`(INSERT INTO ${table} SELECT * FROM jsonb_populate_recordset(NULL::${table}, ${JSON.stringify(r.values)}::jsonb))`) as unknown as Pick<Trx, 'with'>;
  });
  return q;
}

/** The merchant's own ledger entries (available, receivable, reserved), newest first. */
export async function listEntries(db: Executor, cursors: Cursors, scope: Scope, q: CursorPageQuery) {
  const query = db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_journals as j', 'j.id', 'e.journal_id')
    .select(['e.id', 'e.journal_id', 'e.account_kind', 'e.amount_cents', 'e.balance_after_cents', 'e.created_at', 'j.kind', 'j.description', 'j.reference_type', 'j.reference_id'])
    .where('e.user_id', '=', scope.userId)
    .where('e.livemode', '=', scope.livemode)
    .where('e.account_kind', 'in', MERCHANT_ACCOUNTS);
  const page = await createdAtPage(cursors.of('ledger-entries', scope), query, q, { column: 'e.created_at', idColumn: 'e.id' });
  return {
    entries: page.rows.map((r) => ({
      id: r.id,
      journalId: r.journal_id,
      account: r.account_kind,
      amountCents: r.amount_cents,
      balanceAfterCents: r.balance_after_cents,
      kind: r.kind,
      description: r.description,
      referenceType: r.reference_type,
      referenceId: r.reference_id,
      createdAt: r.created_at,
    })),
    pagination: page.pagination,
  };
}
