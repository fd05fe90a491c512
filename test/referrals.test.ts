// Referrals (issue 14): the invite code and link; an account registered with it earns its referrer,
// in production only, a FIXED reward when its paid sales reach REFERRAL_SALES_THRESHOLD_CENTS and a
// COMMISSION (REFERRAL_COMMISSION_BP of the platform fee) on each sale within
// REFERRAL_COMMISSION_MONTHS; both out of the platform fee, held until released, cancelled or clawed
// back on a refund; stats equal to the ledger's sums; exactly one FIXED reward when payments race
// over the threshold (PostgreSQL). The ledger check runs after each.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { monthsAfter as commissionUntil } from '../src/modules/affiliates/commissions.ts';
import { commissionOfFee, releaseDueRewards } from '../src/modules/referrals/service.ts';
import { processPayouts } from '../src/modules/withdrawals/payouts.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { approveKyc, call, emailedCode, merchant, onPostgres, uniqueEmail, type Merchant } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { DAY, paidCard, paidPix, payoutConnectors, settleAll } from './wallet-helpers.ts';

const ctx = useApp({ env: { PAYMENT_PROVIDER: 'sandbox', SANDBOX_PAYOUT_DELAY_MS: '0', PAYOUT_NEW_DESTINATION_HOLD_HOURS: '0' } });
const referrer = useMerchant(ctx, { live: true });

const codeOf = async (m: Merchant) => (await call(ctx.app, 'GET', '/api/referral/code', { token: m.token })).body.data.code as string;

/** An account registered with `code`, with KYC approved and a production key. */
async function referred(code: string): Promise<Merchant & { liveKey: string }> {
  const email = uniqueEmail('indicada');
  const password = 'correct horse battery';
  const reg = await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'Loja Indicada', email, password, referralCode: code } });
  assert.equal(reg.status, 201, reg.raw);
  const token = reg.body.token;
  await approveKyc(ctx.app, reg.body.user.id);
  const live = await call(ctx.app, 'POST', '/api/credentials', { token, body: { name: 'live', environment: 'PRODUCTION' }, headers: { 'x-second-factor': await emailedCode(ctx.app, token, reg.body.user.id) } });
  assert.equal(live.status, 201, live.raw);
  const dev = await call(ctx.app, 'POST', '/api/credentials', { token, body: { name: 'dev', environment: 'DEVELOPMENT' } });
  return { id: reg.body.user.id, email, password, token, devKey: dev.body.key, liveKey: live.body.key };
}

const rewardsOf = (referredId: string) => ctx.database.db.selectFrom('referral_rewards').selectAll().where('referred_id', '=', referredId).orderBy('created_at').orderBy('id').execute();
const feeOf = async (txId: string) => (await ctx.database.db.selectFrom('transactions').select('fee_cents').where('id', '=', txId).executeTakeFirstOrThrow()).fee_cents;
const stats = async (m: Merchant) => {
  const res = await call(ctx.app, 'GET', '/api/referral/stats', { token: m.token });
  assert.equal(res.status, 200, res.raw);
  return res.body;
};
async function refund(key: string, id: string) {
  const res = await call(ctx.app, 'POST', `/api/v1/transactions/${id}/refund`, { key });
  assert.ok(res.status === 200 || res.status === 201, res.raw);
}

/**
 * The referrer's reward amounts summed straight from the ledger: its commission_pending and
 * available entries in the journals of its referral rewards (paid in, released, undone).
 */
async function ledgerSums(userId: string) {
  const { rows } = await sql<{ kind: string; cents: string }>`
    SELECT r.kind, sum(e.amount_cents)::bigint AS cents
    FROM ledger_entries e JOIN ledger_journals j ON j.id = e.journal_id
    JOIN referral_rewards r ON j.reference_type = 'referral_reward' AND r.id = j.reference_id
    WHERE e.user_id = ${userId} AND e.account_kind IN ('commission_pending', 'available') AND e.livemode
    GROUP BY r.kind`.execute(ctx.database.db);
  const of = (k: string) => Number(rows.find((r) => r.kind === k)?.cents ?? 0);
  const wallet = await sql<{ available: string; withdrawn: string }>`
    SELECT coalesce(sum(e.amount_cents) FILTER (WHERE e.account_kind = 'available'), 0)::bigint AS available,
           coalesce(sum(e.amount_cents) FILTER (WHERE j.reference_type = 'withdrawal' AND e.account_kind IN ('external', 'fees')), 0)::bigint AS withdrawn
    FROM ledger_entries e JOIN ledger_journals j ON j.id = e.journal_id WHERE e.user_id = ${userId} AND e.livemode`.execute(ctx.database.db);
  return { fixed: of('FIXED'), commissions: of('COMMISSION'), available: Number(wallet.rows[0]!.available), withdrawn: Number(wallet.rows[0]!.withdrawn) };
}

async function assertStatsMatchLedger(m: Merchant) {
  const s = await stats(m);
  const l = await ledgerSums(m.id);
  assert.equal(s.totalFixedRewardAmountCents, l.fixed);
  assert.equal(s.totalCommissionAmountCents, l.commissions);
  assert.equal(s.totalRewardAmountCents, l.fixed + l.commissions);
  assert.equal(s.availableBalanceCents, l.available);
  assert.equal(s.totalWithdrawnCents, l.withdrawn);
  return s;
}

describe('referral code and registration', () => {
  test('GET /api/referral/code: the account code and its invite link (dashboard token only)', async () => {
    const row = await ctx.database.db.selectFrom('users').select('referral_code').where('id', '=', referrer.id).executeTakeFirstOrThrow();
    const res = await call(ctx.app, 'GET', '/api/referral/code', { token: referrer.token });
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual(Object.keys(res.body.data).sort(), ['code', 'link']);
    assert.equal(res.body.data.code, row.referral_code);
    assert.equal(res.body.data.link, `http://localhost:3000/cadastro?ref=${res.body.data.code}`);
    assert.equal((await call(ctx.app, 'GET', '/api/referral/code', { key: referrer.devKey })).status, 401);
    assert.equal((await call(ctx.app, 'GET', '/api/referral/stats')).status, 401);
  });

  test('registering with a code links the account once; an unknown code is a 400 that creates nothing', async () => {
    const code = await codeOf(referrer);
    const r = await referred(code.toLowerCase());
    const row = await ctx.database.db.selectFrom('users').select('referred_by').where('id', '=', r.id).executeTakeFirstOrThrow();
    assert.equal(row.referred_by, referrer.id);
    const email = uniqueEmail();
    const bad = await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'X', email, password: 'correct horse battery', referralCode: 'NOPE2345' } });
    assert.equal(bad.status, 400, bad.raw);
    assert.equal(bad.body.errors[0].field, 'referralCode');
    assert.equal(await ctx.database.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst(), undefined);
  });
});

describe('rewards', () => {
  test('commission on each production sale, the fixed reward at R$ 1.000; development earns nothing; stats equal the ledger', async () => {
    const p = await merchant(ctx.app, { live: true });
    const r = await referred(await codeOf(p));
    // Development sales, however large, produce no referral money.
    await paidPix(ctx.app, { key: r.devKey }, 500_000);
    assert.deepEqual(await rewardsOf(r.id), []);

    const first = await paidCard(ctx.app, { key: r.liveKey }, 60_000, 1);
    const fee1 = await feeOf(first.id);
    let rewards = await rewardsOf(r.id);
    assert.deepEqual(rewards.map((x) => [x.kind, x.amount_cents, x.status]), [['COMMISSION', Math.floor((fee1 * 1000) / 10000), 'PENDING']]);
    // Paid out of the platform fee: the seller keeps its whole net.
    assert.equal(first.net, 60_000 - fee1);

    const second = await paidCard(ctx.app, { key: r.liveKey }, 50_000, 1);
    const fee2 = await feeOf(second.id);
    rewards = await rewardsOf(r.id);
    assert.deepEqual(
      rewards.map((x) => [x.kind, x.transaction_id, x.amount_cents]).sort(),
      [
        ['COMMISSION', first.id, Math.floor(fee1 / 10)],
        ['COMMISSION', second.id, Math.floor(fee2 / 10)],
        ['FIXED', second.id, 5000],
      ].sort(),
    );
    assert.equal(Number(rewards.find((x) => x.kind === 'FIXED')!.base_cents), 110_000);
    // A card sale's rewards wait for the sale's settlement (30 days for 1x), like a commission.
    for (const x of rewards) assert.ok(x.release_at.getTime() - x.created_at.getTime() >= 30 * DAY - 1000);

    const commissions = Math.floor(fee1 / 10) + Math.floor(fee2 / 10);
    const s = await assertStatsMatchLedger(p);
    assert.deepEqual(s, {
      totalReferrals: 1,
      completedReferrals: 1,
      pendingReferrals: 0,
      totalFixedRewards: 1,
      totalFixedRewardAmountCents: 5000,
      totalCommissions: 2,
      totalCommissionAmountCents: commissions,
      totalRewards: 3,
      totalRewardAmountCents: 5000 + commissions,
      totalWithdrawnCents: 0,
      availableBalanceCents: 0,
    });
    // A third sale: another commission, no second fixed reward.
    await paidCard(ctx.app, { key: r.liveKey }, 10_000, 1);
    assert.equal((await rewardsOf(r.id)).filter((x) => x.kind === 'FIXED').length, 1);

    // Released after the settlement: the referrer's available balance, withdrawable.
    await settleAll(ctx, 31);
    assert.ok((await releaseDueRewards(ctx.app.deps.referrals, new Date(Date.now() + 31 * DAY), 100)) >= 4);
    const released = await assertStatsMatchLedger(p);
    assert.equal(released.availableBalanceCents, released.totalRewardAmountCents);
    const w = await call(ctx.app, 'POST', '/api/withdraws', { key: p.liveKey!, body: { amountCents: 4000, pixKeyType: 'email', pixKey: 'loja@example.com' } });
    assert.equal(w.status, 201, w.raw);
    await processPayouts({ ...ctx.app.deps.withdrawals, connectors: payoutConnectors(ctx, { production: 'sandbox' }) }, new Date());
    const after = await assertStatsMatchLedger(p);
    assert.equal(after.totalWithdrawnCents, 4000);
    assert.equal(after.availableBalanceCents, released.availableBalanceCents - 4000);

    const list = await call(ctx.app, 'GET', '/api/referral/rewards?kind=FIXED&page=1&limit=10', { token: p.token });
    assert.equal(list.status, 200, list.raw);
    assert.deepEqual(list.body.meta, { page: 1, limit: 10, total: 1, totalPages: 1 });
    assert.equal(list.body.data[0].kind, 'FIXED');
    assert.equal(list.body.data[0].status, 'PAID');
    assert.deepEqual(list.body.data[0].referred, { id: r.id, name: 'Loja Indicada' });
    assert.equal((await call(ctx.app, 'GET', '/api/referral/rewards?limit=2', { token: p.token })).body.meta.total, 4);
    // Another account sees none of them.
    assert.equal((await call(ctx.app, 'GET', '/api/referral/rewards', { token: r.token })).body.meta.total, 0);
    assert.equal((await call(ctx.app, 'GET', '/api/referral/rewards?status=LOST', { token: p.token })).status, 400);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a refund before the release cancels the rewards of its sale; after it, claws them back; the fixed reward can be earned again', async () => {
    const p = await merchant(ctx.app, { live: true });
    const r = await referred(await codeOf(p));
    const big = await paidCard(ctx.app, { key: r.liveKey }, 120_000, 1);
    const before = await assertStatsMatchLedger(p);
    assert.equal(before.totalFixedRewards, 1);
    assert.equal(before.completedReferrals, 1);
    const feesBefore = await platformFees(r.id);
    await refund(r.liveKey, big.id);
    let rewards = await rewardsOf(r.id);
    assert.deepEqual(rewards.map((x) => [x.kind, x.status, x.reason]).sort(), [['COMMISSION', 'CANCELLED', 'REFUNDED'], ['FIXED', 'CANCELLED', 'REFUNDED']]);
    const cancelled = await assertStatsMatchLedger(p);
    assert.equal(cancelled.totalRewardAmountCents, 0);
    assert.equal(cancelled.completedReferrals, 0);
    assert.equal(cancelled.pendingReferrals, 1);
    // The platform fee account gets the rewards back (and returns the fee of the refunded sale).
    assert.equal(await platformFees(r.id), feesBefore + rewards.reduce((a, x) => a + x.amount_cents, 0) - (await feeOf(big.id)));

    // Sales again over the threshold: the fixed reward is earned again, on that sale.
    const again = await paidCard(ctx.app, { key: r.liveKey }, 100_000, 1);
    rewards = await rewardsOf(r.id);
    const fixed = rewards.filter((x) => x.kind === 'FIXED' && x.status !== 'CANCELLED');
    assert.deepEqual(fixed.map((x) => x.transaction_id), [again.id]);

    // Released, then refunded: clawed back from the referrer's available balance.
    await settleAll(ctx, 31);
    await releaseDueRewards(ctx.app.deps.referrals, new Date(Date.now() + 31 * DAY), 100);
    const released = await assertStatsMatchLedger(p);
    assert.ok(released.availableBalanceCents >= 5000);
    await refund(r.liveKey, again.id);
    rewards = await rewardsOf(r.id);
    assert.ok(rewards.filter((x) => x.transaction_id === again.id).every((x) => x.status === 'CANCELLED' && x.reason === 'REFUNDED_AFTER_RELEASE' && x.clawed_back_at));
    const clawed = await assertStatsMatchLedger(p);
    assert.equal(clawed.totalRewardAmountCents, 0);
    assert.equal(clawed.availableBalanceCents, 0);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('the commission stops REFERRAL_COMMISSION_MONTHS after the registration; the fixed reward has no window', async () => {
    const p = await merchant(ctx.app, { live: true });
    const r = await referred(await codeOf(p));
    const longAgo = new Date(Date.now() - 370 * DAY);
    await ctx.database.db.updateTable('users').set({ created_at: longAgo }).where('id', '=', r.id).execute();
    await paidCard(ctx.app, { key: r.liveKey }, 100_000, 1);
    assert.deepEqual((await rewardsOf(r.id)).map((x) => x.kind), ['FIXED']);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('an account without a referrer, and a referrer of nobody: no rewards, zero stats', async () => {
    const m = await merchant(ctx.app, { live: true });
    await paidCard(ctx.app, { key: m.liveKey! }, 150_000, 1);
    assert.equal(Number((await ctx.database.db.selectFrom('referral_rewards').select((eb) => eb.fn.countAll().as('n')).where('referred_id', '=', m.id).executeTakeFirstOrThrow()).n), 0);
    const s = await stats(m);
    assert.deepEqual(Object.keys(s).sort(), [
      'availableBalanceCents', 'completedReferrals', 'pendingReferrals', 'totalCommissionAmountCents', 'totalCommissions', 'totalFixedRewardAmountCents',
      'totalFixedRewards', 'totalReferrals', 'totalRewardAmountCents', 'totalRewards', 'totalWithdrawnCents',
    ]);
    assert.equal(s.totalReferrals, 0);
    assert.equal(s.totalRewardAmountCents, 0);
  });
});

async function platformFees(userId: string) {
  const row = await ctx.database.db.selectFrom('ledger_accounts').select('balance_cents').where('user_id', '=', userId).where('livemode', '=', true).where('kind', '=', 'fees').executeTakeFirst();
  return Number(row?.balance_cents ?? 0);
}

describe('reward math', () => {
  test('the commission is the fee share rounded down, never negative nor more than the fee', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 10_000 }), (fee, bp) => {
        const c = commissionOfFee(fee, bp);
        assert.ok(Number.isInteger(c) && c >= 0 && c <= fee);
        assert.ok(c * 10_000 <= fee * bp && (c + 1) * 10_000 > fee * bp);
      }),
    );
  });

  test('the commission window ends the same day N months later (the month end when shorter)', () => {
    assert.equal(commissionUntil(new Date('2026-01-15T10:00:00Z'), 12).toISOString(), '2027-01-15T10:00:00.000Z');
    assert.equal(commissionUntil(new Date('2026-01-31T10:00:00Z'), 1).toISOString(), '2026-02-28T10:00:00.000Z');
    fc.assert(
      fc.property(fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }), fc.integer({ min: 1, max: 120 }), (d, months) => {
        const end = commissionUntil(d, months);
        assert.ok(end > d);
        assert.equal((end.getUTCFullYear() - d.getUTCFullYear()) * 12 + end.getUTCMonth() - d.getUTCMonth(), months);
      }),
    );
  });
});

describe('concurrency (PostgreSQL)', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  test('payments racing over the threshold: exactly one fixed reward, one commission per sale', async () => {
    const p = await merchant(ctx.app, { live: true });
    const r = await referred(await codeOf(p));
    await paidCard(ctx.app, { key: r.liveKey }, 90_000, 1);
    // Eight payments of R$ 60,00 at once: none crosses R$ 1.000 with the first sale alone, any two
    // together do (a payment that did not see the others would leave the referrer without it), and
    // the later ones must not earn it again.
    const sales = await Promise.all(Array.from({ length: 8 }, () => paidCard(ctx.app, { key: r.liveKey }, 6_000, 1)));
    const rewards = await rewardsOf(r.id);
    assert.equal(rewards.filter((x) => x.kind === 'FIXED').length, 1);
    assert.equal(rewards.filter((x) => x.kind === 'COMMISSION').length, 9);
    assert.ok(sales.some((s) => s.id === rewards.find((x) => x.kind === 'FIXED')!.transaction_id));
    await assertStatsMatchLedger(p);
    await assertLedgerBalanced(ctx.database.db);
  });
});
