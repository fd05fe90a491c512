// Double-entry ledger. Each merchant and environment has five accounts:
//   available, receivable, reserved — the merchant's money (shown as its balance);
//   fees     — the platform's revenue from this merchant;
//   external — the outside world (payers and payout destinations); it goes negative as money comes in.
// Every movement is a journal whose entries sum to zero, posted inside the caller's transaction;
// account balances are updated under row lock and always equal the sum of their entries.
import { sql } from 'kysely';
import { flushDeferred } from '../../db/deferred.ts';
import type { Executor, Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { AccountKind } from '../../db/types.ts';
import { createdAtPage, type CursorPageQuery, type Cursors } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import type { EventLog, EventsByMerchant } from '../events/service.ts';
import { byLockOrder, MERCHANT_ACCOUNTS, postJournals, type AccountKey, type Balance, type JournalInput, type Posting } from './posting.ts';

export type { AccountKey, Balance, JournalInput, JournalRows, Posting } from './posting.ts';

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

export async function getBalance(db: Executor, scope: Scope): Promise<Balance> {
  await flushDeferred(db);
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
  // A balance read sees the journals its transaction has put off (db/deferred.ts).
  await flushDeferred(trx);
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

/**
 * Locks accounts of one environment (creating missing ones) in the global order journals use, so
 * a caller that must read a balance before it posts (a refund checks what the merchant can pay)
 * takes every account its journals will move up front, and two such callers on the same merchants
 * in opposite roles (each refunding a sale the other earned a share of) cannot deadlock.
 */
export async function lockAccounts(trx: Trx, livemode: boolean, keys: AccountKey[]): Promise<void> {
  await flushDeferred(trx);
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
