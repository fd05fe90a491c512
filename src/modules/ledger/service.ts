// Double-entry ledger. Each merchant and environment has five accounts:
//   available, receivable, reserved — the merchant's money (shown as its balance);
//   fees     — the platform's revenue from this merchant;
//   external — the outside world (payers and payout destinations); it goes negative as money comes in.
// Every movement is a journal whose entries sum to zero, posted inside the caller's transaction;
// account balances are updated under row lock and always equal the sum of their entries.
import type { Executor, Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { AccountKind } from '../../db/types.ts';
import { createdAtPage, type CursorPageQuery, type Cursors } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import type { EventLog } from '../events/service.ts';

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
}

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
    return postJournal(trx, this.events, scope, input);
  }
}

async function postJournal(trx: Trx, events: EventLog, scope: Scope, input: JournalInput): Promise<void> {
  // Deltas per merchant and account kind; each merchant's part must balance on its own.
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
  }
  const moved = [...deltas.keys()]
    .sort()
    .flatMap((userId) => ORDER.filter((k) => (deltas.get(userId)!.get(k) ?? 0) !== 0).map((kind) => ({ userId, kind, delta: deltas.get(userId)!.get(kind)! })));
  if (!moved.length) return;

  const now = new Date();
  const accounts = await trx
    .insertInto('ledger_accounts')
    .values(moved.map((m) => ({ id: uuidv7(), user_id: m.userId, livemode: scope.livemode, kind: m.kind, balance_cents: m.delta, updated_at: now })))
    .onConflict((oc) =>
      oc.columns(['user_id', 'livemode', 'kind']).doUpdateSet((eb) => ({
        balance_cents: eb('ledger_accounts.balance_cents', '+', eb.ref('excluded.balance_cents')),
        updated_at: now,
      })),
    )
    .returning(['id', 'user_id', 'kind', 'balance_cents'])
    .execute();

  const journalId = uuidv7();
  await trx
    .insertInto('ledger_journals')
    .values({
      id: journalId,
      user_id: scope.userId,
      livemode: scope.livemode,
      kind: input.kind,
      reference_type: input.referenceType,
      reference_id: input.referenceId,
      description: input.description,
      created_at: now,
    })
    .execute();
  await trx
    .insertInto('ledger_entries')
    .values(
      accounts.map((a) => ({
        id: uuidv7(),
        journal_id: journalId,
        account_id: a.id,
        user_id: a.user_id,
        livemode: scope.livemode,
        account_kind: a.kind,
        amount_cents: deltas.get(a.user_id)!.get(a.kind)!,
        balance_after_cents: a.balance_cents,
        created_at: now,
      })),
    )
    .execute();

  for (const userId of new Set(moved.filter((m) => MERCHANT_ACCOUNTS.includes(m.kind)).map((m) => m.userId))) {
    const owner: Scope = { userId, livemode: scope.livemode };
    const balance = await getBalance(trx, owner);
    await events.record(trx, owner, [{ type: 'balance.updated', data: { ...balance, reason: input.kind, referenceType: input.referenceType, referenceId: input.referenceId } }]);
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
  const page = await createdAtPage(cursors, query, q, { column: 'e.created_at', idColumn: 'e.id' });
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
