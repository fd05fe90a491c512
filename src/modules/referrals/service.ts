// Referrals (issue 14): every account has an invite code; an account registered with it
// (users.referred_by, set once at registration) earns its referrer, in production only:
//   - a FIXED reward once its paid sales (net of refunds) reach a threshold;
//   - a COMMISSION, a share of the platform's fee, on each sale for some months after it registered.
// Both are paid out of the platform's fee account (the referred account's `fees`) in a journal of
// their own, posted with the sale's journal in the same database transaction, and held in the
// referrer's commission_pending until released, cancelled or clawed back with the affiliate
// commissions' rules (affiliates/commissions.ts: releaseAt, refundOf, releaseHeld).
import type { Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { ReferralConfig } from '../../config.ts';
import { flushDeferred } from '../../db/deferred.ts';
import { inTx, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { CommissionStatus, ReferralReward, ReferralRewardKind } from '../../db/types.ts';
import { pageInfo } from '../../http/pagination.ts';
import type { JournalInput, Ledger } from '../ledger/service.ts';
import { transferPostings } from '../ledger/service.ts';
import type { TransactionHooks } from '../transactions/hooks.ts';
import { monthsAfter, releaseAt, refundOf, releaseHeld } from '../affiliates/commissions.ts';
import type { ListRewardsQuery } from './schemas.ts';

export interface ReferralDeps {
  db: Executor;
  ledger: Ledger;
  config: ReferralConfig;
}

const SETTLED = ['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED'] as const;

/** The referrer's share of a fee: basis points, rounded down (the fraction of a cent stays the platform's). */
export function commissionOfFee(feeCents: number, bp: number): number {
  return Math.max(0, Math.floor((feeCents * bp) / 10_000));
}

/** The journal that pays a reward out of the platform's fee account into the referrer's commission_pending. */
function rewardJournal(r: ReferralReward): JournalInput {
  return {
    kind: 'referral_reward',
    referenceType: 'referral_reward',
    referenceId: r.id,
    description: `Referral ${r.kind === 'FIXED' ? 'reward' : 'commission'} for sale ${r.transaction_id}`,
    postings: [{ account: 'fees', amount: -r.amount_cents }, ...transferPostings(r.user_id, 'commission_pending', r.amount_cents)],
  };
}

/** The journal that undoes it on a refund: from the referrer's `from` account back to the platform's fee account. */
function reversalJournal(r: ReferralReward, from: 'available' | 'commission_pending'): JournalInput {
  return {
    kind: 'referral_reversal',
    referenceType: 'referral_reward',
    referenceId: r.id,
    description: `Referral ${r.kind === 'FIXED' ? 'reward' : 'commission'} ${from === 'available' ? 'clawed back' : 'cancelled'}: sale ${r.transaction_id} refunded`,
    postings: [{ account: 'fees', amount: r.amount_cents }, ...transferPostings(r.user_id, from, -r.amount_cents)],
  };
}

async function insertReward(trx: Trx, row: Omit<ReferralReward, 'id' | 'status' | 'reason' | 'paid_at' | 'cancelled_at' | 'clawed_back_at'>): Promise<ReferralReward | undefined> {
  // Unique indexes: one commission per sale, one standing fixed reward per referred account.
  return trx
    .insertInto('referral_rewards')
    .values({ ...row, id: uuidv7(), status: 'PENDING' })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** The transaction hooks deps.ts wires: the rewards of a referred account's production sale, and their undoing on a refund. */
export function referralHooks(config: ReferralConfig): TransactionHooks {
  // Who referred a merchant, and when it registered, never change: read once per process, not on
  // every payment (a bounded cache: emptied when full).
  const sellers = new Map<string, { referred_by: string | null; created_at: Date } | undefined>();
  const sellerOf = async (trx: Trx, userId: string) => {
    if (sellers.has(userId)) return sellers.get(userId);
    const seller = await trx.selectFrom('users').select(['referred_by', 'created_at']).where('id', '=', userId).executeTakeFirst();
    if (sellers.size >= 10_000) sellers.clear();
    if (seller) sellers.set(userId, seller);
    return seller;
  };
  return {
    async paidJournals(trx, tx, now): Promise<JournalInput[]> {
      // Development never produces referral money.
      if (!tx.livemode) return [];
      const seller = await sellerOf(trx, tx.user_id);
      if (!seller?.referred_by || seller.referred_by === tx.user_id) return [];
      const referrer = seller.referred_by;
      const release = releaseAt(now, config.guaranteeDays, tx.payment_method, tx.installments);
      const rewards: ReferralReward[] = [];

      const share = commissionOfFee(tx.fee_cents, config.commissionBp);
      if (share > 0 && now < monthsAfter(seller.created_at, config.commissionMonths)) {
        const r = await insertReward(trx, { user_id: referrer, referred_id: tx.user_id, livemode: true, kind: 'COMMISSION', transaction_id: tx.id, base_cents: tx.fee_cents, rate_bp: config.commissionBp, amount_cents: share, release_at: release, created_at: now });
        if (r) rewards.push(r);
      }

      if (config.fixedRewardCents > 0 && !(await standingFixed(trx, tx.user_id))) {
        // The referred account's sales are summed under a lock on its row, so of two payments
        // racing over the threshold the second sees the first (and its reward) once it commits:
        // exactly one reward, never none. FOR NO KEY UPDATE leaves rows referencing it insertable.
        await trx.selectFrom('users').select('id').where('id', '=', tx.user_id).forNoKeyUpdate().execute();
        if (!(await standingFixed(trx, tx.user_id))) {
          // The batch's other payments are counted: their rows' writes may still wait (db/deferred.ts).
          await flushDeferred(trx);
          const before = await trx
            .selectFrom('transactions')
            .select(sql<string>`coalesce(sum(charged_cents - refunded_cents), 0)`.as('sales'))
            .where('user_id', '=', tx.user_id)
            .where('livemode', '=', true)
            .where('status', 'in', SETTLED)
            .where('id', '<>', tx.id)
            .executeTakeFirstOrThrow();
          const sales = Number(before.sales) + tx.charged_cents;
          if (sales >= config.salesThresholdCents) {
            const r = await insertReward(trx, { user_id: referrer, referred_id: tx.user_id, livemode: true, kind: 'FIXED', transaction_id: tx.id, base_cents: sales, rate_bp: null, amount_cents: config.fixedRewardCents, release_at: release, created_at: now });
            if (r) rewards.push(r);
          }
        }
      }
      return rewards.map(rewardJournal);
    },

    async refundJournals(trx, tx, _amount, now): Promise<JournalInput[]> {
      if (!tx.livemode) return [];
      const standing = await trx.selectFrom('referral_rewards').selectAll().where('transaction_id', '=', tx.id).where('status', 'in', ['PENDING', 'PAID']).orderBy('id').forUpdate().execute();
      const out: JournalInput[] = [];
      for (const r of standing) {
        // The affiliate rule: any refund of the sale undoes its rewards; after the release, a clawback.
        const undo = refundOf(r, now);
        await trx.updateTable('referral_rewards').set(undo.set).where('id', '=', r.id).execute();
        out.push(reversalJournal(r, undo.from));
      }
      return out;
    },
  };
}

async function standingFixed(db: Executor, referredId: string): Promise<boolean> {
  const row = await db.selectFrom('referral_rewards').select('id').where('referred_id', '=', referredId).where('kind', '=', 'FIXED').where('status', '<>', 'CANCELLED').executeTakeFirst();
  return !!row;
}

/** Releases due rewards to their referrer's available balance (PAID); returns how many. */
export async function releaseDueRewards(deps: Pick<ReferralDeps, 'db' | 'ledger'>, now: Date, limit: number): Promise<number> {
  return inTx(deps.db, async (trx) => {
    const due = await trx.selectFrom('referral_rewards').selectAll().where('status', '=', 'PENDING').where('release_at', '<=', now).orderBy('release_at').limit(limit).forUpdate().skipLocked().execute();
    await releaseHeld(trx, deps.ledger, due, { kind: 'referral_release', referenceType: 'referral_reward', description: (r) => `Referral ${r.kind === 'FIXED' ? 'reward' : 'commission'} released (sale ${r.transaction_id})` }, async (r) => {
      await trx.updateTable('referral_rewards').set({ status: 'PAID', paid_at: now }).where('id', '=', r.id).execute();
    });
    return due.length;
  });
}

/** The account's invite code and link (the sign-up page passes `ref` to registration as referralCode). */
export async function referralCode(db: Executor, config: ReferralConfig, userId: string) {
  const user = await db.selectFrom('users').select('referral_code').where('id', '=', userId).executeTakeFirstOrThrow();
  const link = new URL(config.signupUrl);
  link.searchParams.set('ref', user.referral_code);
  return { code: user.referral_code, link: link.toString() };
}

/**
 * The referrer's totals. Amounts are the ledger's: each reward's journals (reference
 * referral_reward) on the referrer's transfers account, whose sum is minus what stands (earned and
 * not cancelled); the withdrawn total and the available balance are the production wallet's.
 */
export async function referralStats(db: Executor, userId: string) {
  const [referrals, rewards, money, withdrawn, available] = await Promise.all([
    db
      .selectFrom('users as u')
      .where('u.referred_by', '=', userId)
      .select([
        sql<number>`count(*)::int`.as('total'),
        sql<number>`(count(*) FILTER (WHERE EXISTS (SELECT 1 FROM referral_rewards r WHERE r.referred_id = u.id AND r.kind = 'FIXED' AND r.status <> 'CANCELLED')))::int`.as('completed'),
      ])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('referral_rewards')
      .where('user_id', '=', userId)
      .where('status', '<>', 'CANCELLED')
      .select([sql<number>`(count(*) FILTER (WHERE kind = 'FIXED'))::int`.as('fixed'), sql<number>`(count(*) FILTER (WHERE kind = 'COMMISSION'))::int`.as('commissions')])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_journals as j', 'j.id', 'e.journal_id')
      .innerJoin('referral_rewards as r', (join) => join.onRef('r.id', '=', 'j.reference_id').on('j.reference_type', '=', 'referral_reward'))
      .where('e.user_id', '=', userId)
      .where('e.livemode', '=', true)
      .where('e.account_kind', '=', 'transfers')
      .where('r.user_id', '=', userId)
      .select([
        sql<string>`coalesce(-sum(e.amount_cents) FILTER (WHERE r.kind = 'FIXED'), 0)`.as('fixed'),
        sql<string>`coalesce(-sum(e.amount_cents) FILTER (WHERE r.kind = 'COMMISSION'), 0)`.as('commissions'),
      ])
      .executeTakeFirstOrThrow(),
    // What completed withdrawals took out: the amount paid out plus the withdrawal fee.
    db
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_journals as j', 'j.id', 'e.journal_id')
      .where('j.reference_type', '=', 'withdrawal')
      .where('e.user_id', '=', userId)
      .where('e.livemode', '=', true)
      .where('e.account_kind', 'in', ['external', 'fees'])
      .select(sql<string>`coalesce(sum(e.amount_cents), 0)`.as('cents'))
      .executeTakeFirstOrThrow(),
    db.selectFrom('ledger_accounts').select('balance_cents').where('user_id', '=', userId).where('livemode', '=', true).where('kind', '=', 'available').executeTakeFirst(),
  ]);
  const total = Number(referrals.total);
  const completed = Number(referrals.completed);
  const fixedCents = Number(money.fixed);
  const commissionCents = Number(money.commissions);
  return {
    totalReferrals: total,
    completedReferrals: completed,
    pendingReferrals: total - completed,
    totalFixedRewards: Number(rewards.fixed),
    totalFixedRewardAmountCents: fixedCents,
    totalCommissions: Number(rewards.commissions),
    totalCommissionAmountCents: commissionCents,
    totalRewards: Number(rewards.fixed) + Number(rewards.commissions),
    totalRewardAmountCents: fixedCents + commissionCents,
    totalWithdrawnCents: Number(withdrawn.cents),
    availableBalanceCents: Number(available?.balance_cents ?? 0),
  };
}

export function rewardView(r: ReferralReward & { referred_name: string }) {
  return {
    id: r.id,
    kind: r.kind,
    referred: { id: r.referred_id, name: r.referred_name },
    transactionId: r.transaction_id,
    baseCents: Number(r.base_cents),
    rateBp: r.rate_bp,
    amountCents: r.amount_cents,
    status: r.status,
    reason: r.reason,
    releaseAt: r.release_at,
    paidAt: r.paid_at,
    cancelledAt: r.cancelled_at,
    createdAt: r.created_at,
  };
}

/** The referrer's rewards, newest first (page style). */
export async function listRewards(db: Executor, userId: string, q: Static<typeof ListRewardsQuery>) {
  let base = db.selectFrom('referral_rewards as r').innerJoin('users as u', 'u.id', 'r.referred_id').where('r.user_id', '=', userId);
  if (q.status) base = base.where('r.status', '=', q.status as CommissionStatus);
  if (q.kind) base = base.where('r.kind', '=', q.kind as ReferralRewardKind);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base
      .selectAll('r')
      .select('u.name as referred_name')
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(q.limit)
      .offset((q.page - 1) * q.limit)
      .execute(),
  ]);
  return { data: rows.map(rewardView), meta: pageInfo(q.page, q.limit, Number(total)) };
}
