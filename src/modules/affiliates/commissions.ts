// Commissions (issue 14): a paid sale attributed to an affiliate link splits the commission off the
// merchant's net in the sale's own journal (the affiliate's commission_pending goes up); a sweep
// releases it to the affiliate's available balance after the later of the program's guarantee and
// the sale's settlement; a refund before that cancels it (the split reversed in the refund's
// journal), a refund after it claws it back from the affiliate's available balance.
import type { Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import { inTx, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { AffiliateCommission, CommissionStatus, Transaction } from '../../db/types.ts';
import { pageInfo } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS } from '../../payments/calendar.ts';
import type { EventLog, EventType } from '../events/service.ts';
import type { Ledger } from '../ledger/service.ts';
import type { Split, TransactionHooks } from '../transactions/hooks.ts';
import { SETTLEMENT_DAYS } from '../transactions/states.ts';
import { lineCents } from '../transactions/view.ts';
import type { ListCommissionsQuery } from './schemas.ts';
import { commissionCents } from './service.ts';

export interface CommissionDeps {
  db: Executor;
  events: EventLog;
  ledger: Ledger;
}

/** Why a commission was cancelled (`reason`). */
export const REASONS = {
  selfPurchase: 'SELF_PURCHASE',
  refunded: 'REFUNDED',
  refundedAfterRelease: 'REFUNDED_AFTER_RELEASE',
} as const;

/**
 * When a commission is released: the later of the program's guarantee (refund window) and the
 * sale's own settlement (PIX and boleto at once; a card sale when its last instalment settles).
 */
export function releaseAt(paidAt: Date, guaranteeDays: number, paymentMethod: Transaction['payment_method'], installments: number): Date {
  const guarantee = paidAt.getTime() + guaranteeDays * DAY_MS;
  const settled = paymentMethod === 'CARD' ? paidAt.getTime() + SETTLEMENT_DAYS * installments * DAY_MS : paidAt.getTime();
  return new Date(Math.max(guarantee, settled));
}

const digits = (s: string) => s.replace(/\D/g, '');

/**
 * `months` calendar months after `from` (UTC), on the same day of the month, or the month's last
 * day when it is shorter: the end of an extended commission's cap and of a referral commission's window.
 */
export function monthsAfter(from: Date, months: number): Date {
  const d = new Date(from.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

/**
 * Whether a subscription's charge pays the program's commission: the subscription's first paid
 * charge always does (it is the sale); later ones (renewals) only with extendedCommission, and with
 * extendedCommissionMonths only while the charge's period starts at most that many months after
 * the first paid one's (on the subscription's own calendar: monthly billing, N renewals).
 */
async function paysOnSubscription(trx: Trx, tx: Transaction, program: { extended_commission: boolean; extended_months: number | null }): Promise<boolean> {
  if (!tx.subscription_id) return true;
  const first = await trx
    .selectFrom('transactions as t')
    .innerJoin('subscription_cycles as c', 'c.id', 't.subscription_cycle_id')
    .select('c.period_start')
    .where('t.subscription_id', '=', tx.subscription_id)
    .where('t.user_id', '=', tx.user_id)
    .where('t.status', 'in', ['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED'])
    .where('t.id', '<>', tx.id)
    .orderBy('c.period_start')
    .limit(1)
    .executeTakeFirst();
  if (!first) return true;
  if (!program.extended_commission) return false;
  if (program.extended_months == null) return true;
  const cycle = tx.subscription_cycle_id ? await trx.selectFrom('subscription_cycles').select('period_start').where('id', '=', tx.subscription_cycle_id).executeTakeFirst() : undefined;
  return !!cycle && cycle.period_start.getTime() <= monthsAfter(first.period_start, program.extended_months).getTime();
}

/**
 * A sum credited to a merchant out of a sale and held (commission_pending) until its release: an
 * affiliate commission, a referral reward (modules/referrals). Both follow the rules below.
 */
export interface HeldCredit {
  id: string;
  user_id: string;
  livemode: boolean;
  amount_cents: number;
  status: CommissionStatus;
}

/**
 * What a refund of its sale does to a standing credit: before the release it is cancelled and the
 * money leaves commission_pending; after it, it is clawed back from the available balance (which
 * may go negative). Any refund, partial or full, undoes the whole credit.
 */
export function refundOf(c: HeldCredit, now: Date) {
  const released = c.status === 'PAID';
  return {
    set: { status: 'CANCELLED' as const, reason: released ? REASONS.refundedAfterRelease : REASONS.refunded, cancelled_at: now, ...(released && { clawed_back_at: now }) },
    /** The account of the credited merchant the money is taken back from. */
    from: (released ? 'available' : 'commission_pending') as 'available' | 'commission_pending',
  };
}

/**
 * Releases locked, due credits: each one's commission_pending moves to its merchant's available
 * balance in a journal of its own (`referenceType`, the credit's id), then `paid` marks it PAID.
 * Merchant by merchant in one global order (the settlement sweep's reason): each journal locks
 * that merchant's accounts until commit, so two sweeps holding the same merchants in opposite due
 * order would otherwise deadlock. Stable: due order within a merchant.
 */
export async function releaseHeld<T extends HeldCredit>(trx: Trx, ledger: Ledger, due: T[], journal: { kind: string; referenceType: string; description: (c: T) => string }, paid: (c: T) => Promise<void>) {
  const key = (c: T) => `${c.user_id}:${c.livemode ? 1 : 0}`;
  const ordered = [...due].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  for (const c of ordered) {
    await ledger.post(trx, { userId: c.user_id, livemode: c.livemode }, {
      kind: journal.kind,
      referenceType: journal.referenceType,
      referenceId: c.id,
      description: journal.description(c),
      postings: [
        { account: 'commission_pending', amount: -c.amount_cents },
        { account: 'available', amount: c.amount_cents },
      ],
    });
    await paid(c);
  }
}

async function recordBoth(trx: Trx, events: EventLog, c: AffiliateCommission, type: EventType) {
  const data = commissionEvent(c);
  for (const userId of [c.merchant_id, c.user_id]) await events.record(trx, { userId, livemode: c.livemode }, [{ type, data }]);
}

function commissionEvent(c: AffiliateCommission) {
  return {
    id: c.id,
    programId: c.program_id,
    linkId: c.link_id,
    affiliateId: c.user_id,
    transactionId: c.transaction_id,
    amountCents: c.amount_cents,
    status: c.status,
    reason: c.reason,
    releaseAt: c.release_at,
  };
}

/** The transaction hooks deps.ts wires: the commission's split on PAID, its reversal on a refund. */
export function commissionHooks(events: EventLog): TransactionHooks {
  return {
    async paidSplits(trx, tx, net, now): Promise<Split[]> {
      if (!tx.affiliate_link_id) return [];
      const found = await trx
        .selectFrom('affiliate_links as l')
        .innerJoin('affiliate_programs as ap', 'ap.id', 'l.program_id')
        .innerJoin('users as u', 'u.id', 'l.user_id')
        .select(['l.id', 'l.user_id', 'l.status as link_status', 'ap.id as program_id', 'ap.user_id as owner_id', 'ap.status', 'ap.deleted_at', 'ap.commission_type', 'ap.commission_value', 'ap.guarantee_days', 'ap.extended_commission', 'ap.extended_months', 'ap.commission_on_bumps', 'u.email'])
        .where('l.id', '=', tx.affiliate_link_id)
        .executeTakeFirst();
      // Blocked affiliates and closed programs are paid nothing for sales confirmed afterwards.
      if (!found || found.owner_id !== tx.user_id || found.link_status !== 'ACTIVE' || found.status !== 'ACTIVE' || found.deleted_at) return [];
      if (!(await paysOnSubscription(trx, tx, found))) return [];
      // Base: what the buyer paid for the product (a partial capture: what was taken); never more than the merchant's net.
      // An order with bumps pays on the main product's lines unless the program says the whole order.
      const sold = tx.items && !found.commission_on_bumps ? tx.items.filter((l) => l.kind === 'MAIN').reduce((n, l) => n + lineCents(l), 0) : tx.amount_cents;
      const base = Math.min(sold, tx.charged_cents);
      const amount = Math.min(commissionCents(found.commission_type, found.commission_value, base), net);
      const kyc = await trx.selectFrom('kyc_submissions').select('document').where('user_id', '=', found.user_id).execute();
      const buyerDoc = digits(tx.client_document);
      const self = tx.client_email.toLowerCase() === found.email.toLowerCase() || kyc.some((k) => digits(k.document) === buyerDoc);
      const inserted = await trx
        .insertInto('affiliate_commissions')
        .values({
          id: uuidv7(),
          program_id: found.program_id,
          link_id: found.id,
          user_id: found.user_id,
          merchant_id: tx.user_id,
          livemode: tx.livemode,
          transaction_id: tx.id,
          commission_type: found.commission_type,
          commission_value: found.commission_value,
          base_cents: base,
          amount_cents: amount,
          status: self ? 'CANCELLED' : 'PENDING',
          reason: self ? REASONS.selfPurchase : null,
          release_at: releaseAt(now, found.guarantee_days, tx.payment_method, tx.installments),
          cancelled_at: self ? now : null,
          created_at: now,
        })
        .onConflict((oc) => oc.column('transaction_id').doNothing())
        .returningAll()
        .executeTakeFirst();
      // One commission per sale: a second confirmation finds the first one and pays nothing more.
      if (!inserted) return [];
      if (self) return [];
      await trx.updateTable('affiliate_links').set({ conversions: sql`conversions + 1` }).where('id', '=', found.id).execute();
      await recordBoth(trx, events, inserted, 'commission.created');
      return amount > 0 ? [{ userId: found.user_id, account: 'commission_pending', amountCents: amount }] : [];
    },

    async refundSplits(trx, tx, _amount, now): Promise<Split[]> {
      if (!tx.affiliate_link_id) return [];
      const c = await trx
        .selectFrom('affiliate_commissions')
        .selectAll()
        .where('transaction_id', '=', tx.id)
        .where('status', 'in', ['PENDING', 'PAID'])
        .forUpdate()
        .executeTakeFirst();
      if (!c) return [];
      // Any refund, partial or full, undoes the whole commission: the sale did not stand as sold.
      const undo = refundOf(c, now);
      const cancelled = await trx.updateTable('affiliate_commissions').set(undo.set).where('id', '=', c.id).returningAll().executeTakeFirstOrThrow();
      await recordBoth(trx, events, cancelled, 'commission.cancelled');
      return c.amount_cents > 0 ? [{ userId: c.user_id, account: undo.from, amountCents: -c.amount_cents }] : [];
    },
  };
}

/** Releases due commissions to their affiliate's available balance (PAID); returns how many. */
export async function releaseDue(deps: CommissionDeps, now: Date, limit: number): Promise<number> {
  return inTx(deps.db, async (trx) => {
    const due = await trx
      .selectFrom('affiliate_commissions')
      .selectAll()
      .where('status', '=', 'PENDING')
      .where('release_at', '<=', now)
      .orderBy('release_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    await releaseHeld(trx, deps.ledger, due, { kind: 'commission', referenceType: 'affiliate_commission', description: (c) => `Affiliate commission released (transaction ${c.transaction_id})` }, async (c) => {
      const paid = await trx.updateTable('affiliate_commissions').set({ status: 'PAID', paid_at: now }).where('id', '=', c.id).returningAll().executeTakeFirstOrThrow();
      await recordBoth(trx, deps.events, paid, 'commission.paid');
    });
    return due.length;
  });
}

export function commissionView(c: AffiliateCommission & { product_id: string; product_name: string; code: string }) {
  return {
    id: c.id,
    programId: c.program_id,
    product: { id: c.product_id, name: c.product_name },
    transactionId: c.transaction_id,
    code: c.code,
    amountCents: c.amount_cents,
    baseCents: c.base_cents,
    commissionType: c.commission_type,
    commissionValue: c.commission_value,
    status: c.status,
    reason: c.reason,
    releaseAt: c.release_at,
    paidAt: c.paid_at,
    cancelledAt: c.cancelled_at,
    createdAt: c.created_at,
  };
}

/** The caller's commissions as an affiliate, newest first (page style). */
export async function listCommissions(db: Executor, scope: Scope, q: Static<typeof ListCommissionsQuery>) {
  let base = db
    .selectFrom('affiliate_commissions as c')
    .innerJoin('affiliate_programs as ap', 'ap.id', 'c.program_id')
    .innerJoin('products as p', 'p.id', 'ap.product_id')
    .innerJoin('affiliate_links as l', 'l.id', 'c.link_id')
    .where('c.user_id', '=', scope.userId)
    .where('c.livemode', '=', scope.livemode);
  if (q.status) base = base.where('c.status', '=', q.status as CommissionStatus);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base
      .selectAll('c')
      .select(['ap.product_id', 'p.name as product_name', 'l.code'])
      .orderBy('c.created_at', 'desc')
      .orderBy('c.id', 'desc')
      .limit(q.limit)
      .offset((q.page - 1) * q.limit)
      .execute(),
  ]);
  return { data: rows.map(commissionView), meta: pageInfo(q.page, q.limit, Number(total)) };
}
