// The one place a transaction changes status. Each move checks the state machine, runs the other
// modules' hooks, updates the row, posts the ledger journal and records the events — all inside the
// caller's database transaction, on a row the caller has locked (FOR UPDATE).
import { flushDeferred } from '../../db/deferred.ts';
import type { Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { AccountKind, Transaction, TransactionStatus } from '../../db/types.ts';
import { badRequest } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS } from '../../payments/calendar.ts';
import { split } from '../../payments/fees.ts';
import { collectEvents, type EventLog, type EventsByMerchant, type EventType } from '../events/service.ts';
import { lockAccount, lockAccounts, transferPostings, type AccountKey, type JournalInput, type JournalRows, type Ledger, type Posting } from '../ledger/service.ts';
import { writeChange, type ChangedColumns } from './changed-rows.ts';
import type { SaleAccount, Split, TransactionHooks } from './hooks.ts';
import { eventData } from './view.ts';

/** What a status change writes through besides the row: the ledger, the event log, the hooks. */
export interface StateDeps {
  ledger: Ledger;
  events: EventLog;
  hooks: readonly TransactionHooks[];
}

const ALLOWED: Record<TransactionStatus, TransactionStatus[]> = {
  PENDING: ['AUTHORIZED', 'PAID', 'FAILED', 'EXPIRED', 'CANCELLED'],
  AUTHORIZED: ['PAID', 'CANCELLED', 'EXPIRED'],
  PAID: ['PARTIALLY_REFUNDED', 'REFUNDED', 'CHARGEBACK'],
  PARTIALLY_REFUNDED: ['PARTIALLY_REFUNDED', 'REFUNDED', 'CHARGEBACK'],
  FAILED: [],
  EXPIRED: [],
  CANCELLED: [],
  REFUNDED: [],
  // Entered and left only by chargeback.ts (a case opened; won: back to PAID or PARTIALLY_REFUNDED
  // with its own reversal journal, never through applyChange's PAID, which would book a payment).
  CHARGEBACK: [],
};

export function canMove(from: TransactionStatus, to: TransactionStatus): boolean {
  return ALLOWED[from].includes(to);
}

export type Change =
  | { to: 'AUTHORIZED'; until: Date }
  /**
   * `settled`: the payment took another amount than charged, with the fee on it: a card
   * authorisation captured in part, or a PIX with a due date paid late (its fine and interest).
   */
  | { to: 'PAID'; settled?: { chargedCents: number; feeCents: number }; paidWith?: 'BOLETO' | 'PIX'; settlesAt?: Date }
  | { to: 'FAILED'; reason: string }
  | { to: 'EXPIRED' }
  | { to: 'CANCELLED' }
  | { to: 'REFUNDED' | 'PARTIALLY_REFUNDED'; amountCents: number };

/** Card instalment i settles 30·i days after payment. */
export const SETTLEMENT_DAYS = 30;

/**
 * Moves the locked transaction `tx` as `change` says. `providerRef`: the provider's reference of the
 * payment, written by the same UPDATE (a card's authorisation, a notification's payment).
 */
export async function applyChange(deps: StateDeps, trx: Trx, tx: Transaction, change: Change, now = new Date(), providerRef: string | null = null): Promise<Transaction> {
  if (!canMove(tx.status, change.to)) {
    throw badRequest('INVALID_STATE_TRANSITION', `Cannot move a ${tx.status} transaction to ${change.to}`, [
      { field: 'status', message: `${tx.status} -> ${change.to} is not allowed` },
    ]);
  }
  // A sale a hook refuses does not happen (a payment link's stock gone): the payment fails instead.
  if (change.to === 'PAID') {
    for (const hook of deps.hooks) {
      const refused = await hook.beforePaid?.(trx, tx, now);
      if (refused) {
        change = { to: 'FAILED', reason: refused };
        break;
      }
    }
  }
  const scope: Scope = { userId: tx.user_id, livemode: tx.livemode };
  // transaction.updated says the status changed: not sent for a second partial refund (PARTIALLY_REFUNDED again).
  const events: EventType[] = tx.status === change.to ? [] : ['transaction.updated'];
  // Every merchant's events of the change (balance.updated from the journals, a split recipient's),
  // recorded with the transaction's in one statement.
  const collected: EventsByMerchant = new Map();
  const set: ChangedColumns = { status: change.to, updated_at: now };
  if (providerRef !== null) set.provider_ref = providerRef;

  switch (change.to) {
    case 'AUTHORIZED':
      // The money is held on the customer's card: nothing is credited until the capture.
      set.authorized_at = now;
      set.expires_at = change.until;
      events.push('transaction.authorized');
      break;
    case 'PAID':
      tx = await bookPayment(deps, trx, tx, change, set, now, collected);
      if (tx.status === 'AUTHORIZED') events.push('transaction.captured');
      events.push('transaction.completed');
      break;
    case 'FAILED':
      set.failed_at = now;
      set.failure_reason = change.reason;
      events.push('transaction.failed');
      break;
    case 'EXPIRED':
      set.expired_at = now;
      break;
    case 'CANCELLED':
      set.cancelled_at = now;
      events.push('transaction.cancelled');
      break;
    case 'REFUNDED':
    case 'PARTIALLY_REFUNDED':
      await bookRefund(deps, trx, tx, change.amountCents, now, { kind: 'refund', description: `Refund of ${tx.display_id}`, overdraw: false }, collected);
      set.refunded_cents = tx.refunded_cents + change.amountCents;
      set.refunded_at = now;
      events.push('transaction.refunded');
      break;
  }

  const updated = await writeChange(trx, tx, set);
  for (const hook of deps.hooks) await hook.afterChange?.(trx, tx, updated, now);
  collectEvents(collected, scope.userId, events.map((type) => ({ type, data: eventData(updated, tx.status) })));
  await deps.events.recordAll(trx, scope.livemode, collected);
  return updated;
}

/**
 * PAID: the payment journal (external -> the merchant's net in available, or receivable for a card,
 * the fee to the platform, other accounts' shares split off in the same journal, the hooks' own
 * journals beside it) and a card's instalments scheduled. Returns the transaction as the payment
 * took it (a partial capture or a late PIX changes what was charged).
 */
async function bookPayment(deps: StateDeps, trx: Trx, tx: Transaction, change: Extract<Change, { to: 'PAID' }>, set: ChangedColumns, now: Date, collected: EventsByMerchant): Promise<Transaction> {
  const scope: Scope = { userId: tx.user_id, livemode: tx.livemode };
  const ref = { referenceType: 'transaction', referenceId: tx.id };
  set.paid_at = now;
  if (tx.payment_method === 'BOLETO') set.paid_with = change.paidWith ?? 'BOLETO';
  if (tx.status === 'AUTHORIZED') {
    set.captured_at = now;
    set.expires_at = null;
  }
  if (change.settled) {
    // The payment is what was taken: less (a partial capture: the rest of the hold is released;
    // the sale's amount shrinks with it) or more (a late PIX: the amount stays the sale's, the
    // difference is the fine and interest).
    const { chargedCents, feeCents } = change.settled;
    set.charged_cents = chargedCents;
    set.amount_cents = Math.min(tx.amount_cents, chargedCents);
    set.fee_cents = feeCents;
    if (tx.installment_cents !== null) set.installment_cents = Math.ceil(chargedCents / tx.installments);
    tx = { ...tx, charged_cents: chargedCents, fee_cents: feeCents };
  }
  const net = tx.charged_cents - tx.fee_cents;
  // A card's instalments, and a payment whose money the bank credits later (a boleto paid by barcode), are receivable until they settle.
  const later = tx.payment_method !== 'CARD' && change.settlesAt && change.settlesAt > now ? change.settlesAt : null;
  const toAccount: SaleAccount = tx.payment_method === 'CARD' || later ? 'receivable' : 'available';
  // Other accounts' shares of the sale (a split's recipients, an affiliate's commission) leave the
  // merchant's net in this same journal, so the merchant is never credited money that is not its own.
  const splits: Split[] = [];
  let kept = net;
  for (const hook of deps.hooks) {
    const more = (await hook.paidSplits?.(trx, tx, kept, now, toAccount)) ?? [];
    kept -= more.reduce((a, s) => a + s.amountCents, 0);
    splits.push(...more);
  }
  if (splits.some((s) => s.amountCents < 0) || kept < 0) throw new Error(`transactions: shares of ${tx.id} (${net - kept}) exceed its net (${net})`);
  const journals: JournalInput[] = [];
  for (const hook of deps.hooks) journals.push(...((await hook.paidJournals?.(trx, tx, now)) ?? []));
  const payment: JournalInput = {
    kind: 'payment',
    ...ref,
    description: `Payment ${tx.display_id} (${tx.payment_method})`,
    postings: [
      { account: 'external', amount: -tx.charged_cents },
      { account: toAccount, amount: kept },
      { account: 'fees', amount: tx.fee_cents },
      ...splits.flatMap((s) => transferPostings(s.userId, s.account ?? toAccount, s.amountCents)),
    ],
    // The shares' rows, and the instalments of what is receivable, written by the journal's own statement.
    rows: [...splits.flatMap((s) => s.rows ?? []), ...(toAccount === 'receivable' ? instalmentRows(tx, kept, splits, later, now) : [])],
  };
  collectSplitEvents(collected, splits);
  await deps.ledger.postAll(trx, scope, [payment, ...journals], collected);
  return tx;
}

/** The seller's instalments of a receivable sale and each share's that settles with it, on the same days. */
function instalmentRows(tx: Transaction, kept: number, splits: Split[], later: Date | null, now: Date): JournalRows[] {
  const settleAt = (i: number) => later ?? new Date(now.getTime() + SETTLEMENT_DAYS * (i + 1) * DAY_MS);
  const owners = [{ userId: tx.user_id, amount: kept }, ...splits.filter((s) => !s.account).map((s) => ({ userId: s.userId, amount: s.amountCents }))];
  const values = owners.filter((o) => o.amount > 0).flatMap((o) =>
    split(o.amount, tx.installments).map((amount, i) => ({
      id: uuidv7(),
      user_id: o.userId,
      livemode: tx.livemode,
      transaction_id: tx.id,
      installment_number: i + 1,
      amount_cents: amount,
      settle_at: settleAt(i),
      status: 'PENDING' as const,
      settled_at: null,
      created_at: now,
    })),
  );
  return values.length ? [{ table: 'receivables', values }] : [];
}

/**
 * How a refund-like debit is booked: its journal's kind and description, and whether the merchant's
 * available balance may go negative (a chargeback: the acquirer took the money whatever the balance).
 */
export interface RefundBooking {
  kind: string;
  description: string;
  overdraw: boolean;
}

/**
 * A refund's journal: the money back out of the merchant's balance, the fee's share returned
 * (feeReturned), shares given back; a chargeback's debit is booked alike.
 */
export async function bookRefund(deps: StateDeps, trx: Trx, tx: Transaction, amountCents: number, now: Date, as: RefundBooking, collect?: EventsByMerchant): Promise<void> {
  const scope: Scope = { userId: tx.user_id, livemode: tx.livemode };
  const ref = { referenceType: 'transaction', referenceId: tx.id };
  // Shares given back (an affiliate's commission cancelled or clawed back) return to the
  // merchant's available balance in the refund's own journal, before it is checked.
  const splits: Split[] = [];
  for (const hook of deps.hooks) splits.push(...((await hook.refundSplits?.(trx, tx, amountCents, now)) ?? []));
  const journals: JournalInput[] = [];
  for (const hook of deps.hooks) journals.push(...((await hook.refundJournals?.(trx, tx, amountCents, now)) ?? []));
  // Every account the refund's journals move, locked together (see refundPostings).
  const own: AccountKind[] = ['available', 'fees', 'external', ...(mayHoldReceivables(tx) ? (['receivable'] as const) : []), ...(splits.length ? (['transfers'] as const) : [])];
  const accounts: AccountKey[] = [
    ...own.map((kind) => ({ userId: scope.userId, kind })),
    ...splits.flatMap((s) => [{ userId: s.userId, kind: 'transfers' as const }, { userId: s.userId, kind: s.account ?? 'available' }]),
    ...journals.flatMap((j) => j.postings.map((p) => ({ userId: p.userId ?? scope.userId, kind: p.account }))),
  ];
  const returned = -splits.reduce((a, s) => a + s.amountCents, 0);
  const postings = await refundPostings(trx, scope, tx, amountCents, returned, accounts, as.overdraw);
  postings.push({ account: 'available', amount: returned }, ...splits.flatMap((s) => transferPostings(s.userId, s.account ?? 'available', s.amountCents)));
  const collected: EventsByMerchant = collect ?? new Map();
  collectSplitEvents(collected, splits);
  await deps.ledger.postAll(trx, scope, [{ kind: as.kind, ...ref, description: as.description, postings }, ...journals], collected);
  if (!collect) await deps.events.recordAll(trx, scope.livemode, collected);
}

/** The shares' own events (a split recipient's), with the change's. */
function collectSplitEvents(into: EventsByMerchant, splits: Split[]): void {
  for (const s of splits) collectEvents(into, s.userId, s.events ?? []);
}

/**
 * The postings that give shares back to other accounts when money a refund or chargeback took
 * returns to the merchant (hooks' restoredSplits): out of the merchant's available balance. Their
 * events go into `collected`.
 */
export async function restoredPostings(deps: Pick<StateDeps, 'hooks'>, trx: Trx, tx: Transaction, now: Date, collected: EventsByMerchant): Promise<Posting[]> {
  const splits: Split[] = [];
  for (const hook of deps.hooks) splits.push(...((await hook.restoredSplits?.(trx, tx, now)) ?? []));
  collectSplitEvents(collected, splits);
  const total = splits.reduce((a, s) => a + s.amountCents, 0);
  if (!total) return [];
  return [{ account: 'available', amount: -total }, ...splits.flatMap((s) => transferPostings(s.userId, s.account ?? 'available', s.amountCents))];
}

/**
 * The part of a payment's fee a refund returns: the fee in proportion to what has been refunded so
 * far, minus what earlier refunds returned, so that the refunds of a sale return exactly its fee.
 */
export function feeReturned(tx: Pick<Transaction, 'fee_cents' | 'charged_cents' | 'refunded_cents'>, amount: number): number {
  const share = (refunded: number) => Math.floor((tx.fee_cents * refunded) / tx.charged_cents);
  return share(tx.refunded_cents + amount) - share(tx.refunded_cents);
}

/** Whether a paid transaction's net may still be receivable: a card's instalments, a boleto paid by barcode until the bank credits it. */
export const mayHoldReceivables = (tx: Transaction) => tx.payment_method === 'CARD' || tx.paid_with === 'BOLETO';

/**
 * Takes up to `amount` off the unsettled instalments of a sale that are `userId`'s (the seller's,
 * or a split recipient's), latest first, locked; answers what it took.
 */
export async function takeInstalments(trx: Trx, transactionId: string, userId: string, amount: number): Promise<number> {
  // The instalments are written with the PAID journal, which a batch may still hold (db/deferred.ts).
  await flushDeferred(trx);
  const pending = await trx
    .selectFrom('receivables')
    .select(['id', 'amount_cents'])
    .where('transaction_id', '=', transactionId)
    .where('user_id', '=', userId)
    .where('status', '=', 'PENDING')
    .orderBy('installment_number', 'desc')
    .forUpdate()
    .execute();
  let taken = 0;
  for (const r of pending) {
    if (taken === amount) break;
    const take = Math.min(r.amount_cents, amount - taken);
    taken += take;
    const left = r.amount_cents - take;
    await trx.updateTable('receivables').set(left === 0 ? { amount_cents: 0, status: 'CANCELLED' } : { amount_cents: left }).where('id', '=', r.id).execute();
  }
  return taken;
}

/**
 * A refund gives the customer `amount`; the platform returns the fee of the refunded part and the
 * merchant gives back the rest, so a sale can always be refunded in full from its own net. The
 * merchant's part comes first from what it has not received yet (a card payment's unsettled
 * instalments, latest first), then from the available balance, counting what the refund's journal
 * returns to it (`returned`: shares of the sale given back).
 */
async function refundPostings(trx: Trx, scope: Scope, tx: Transaction, amount: number, returned: number, accounts: AccountKey[], overdraw: boolean): Promise<Posting[]> {
  const fee = feeReturned(tx, amount);
  let remaining = amount - fee;
  const fromReceivable = mayHoldReceivables(tx) ? await takeInstalments(trx, tx.id, tx.user_id, remaining) : 0;
  remaining -= fromReceivable;
  // The balance is read before the journal is posted: every account the journals will move is
  // locked first, in the ledger's one order (two merchants refunding at once sales the other earned
  // a commission on would otherwise each hold its own balance and wait for the other's), and after
  // the instalments (the settlement sweep locks instalments, then accounts).
  await lockAccounts(trx, scope.livemode, accounts);
  if (remaining > 0 && !overdraw) {
    const available = (await lockAccount(trx, scope, 'available')) + returned;
    if (available < remaining) {
      throw badRequest('INSUFFICIENT_BALANCE', 'Available balance does not cover this refund', [
        { field: 'amountCents', message: `needs ${remaining} cents available, the balance is ${available}` },
      ]);
    }
  }
  return [
    { account: 'external', amount: amount },
    { account: 'fees', amount: -fee },
    { account: 'receivable', amount: -fromReceivable },
    { account: 'available', amount: -remaining },
  ];
}
