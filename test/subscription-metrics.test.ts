// Subscription metrics: the formulas as properties (fast-check) over random subscriptions, and the
// endpoint over real subscriptions moved by simulation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { PlanInterval, SubscriptionStatus } from '../src/db/types.ts';
import { instantOf, metricsOf, monthBounds, mrrAt, payingAt, subscriptionMetrics, type MetricsRow, type Place } from '../src/modules/subscriptions/metrics.ts';
import { call, cpf, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';

const { start, end } = monthBounds('2027-03');
const t = (min: string, max: string) => fc.date({ min: new Date(min), max: new Date(max), noInvalidDate: true });
const rowArb: fc.Arbitrary<MetricsRow> = fc
  .record({
    status: fc.constantFrom<SubscriptionStatus>('TRIALING', 'ACTIVE', 'PAST_DUE', 'PAUSED', 'CANCELLED', 'EXPIRED'),
    createdAt: t('2026-12-01T00:00:00Z', '2027-03-31T00:00:00Z'),
    activatedAt: fc.option(t('2026-12-01T00:00:00Z', '2027-04-30T00:00:00Z'), { nil: null }),
    trialEnd: fc.option(t('2026-12-01T00:00:00Z', '2027-05-01T00:00:00Z'), { nil: null }),
    endedAt: fc.option(t('2027-01-01T00:00:00Z', '2027-05-01T00:00:00Z'), { nil: null }),
    pausedAtStart: fc.boolean(),
    pausedAtEnd: fc.boolean(),
    interval: fc.constantFrom<PlanInterval>('DAILY', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'),
    intervalCount: fc.integer({ min: 1, max: 4 }),
    amountAtStart: fc.option(fc.integer({ min: 500, max: 1_000_000 }), { nil: null }),
    amountAtEnd: fc.option(fc.integer({ min: 500, max: 1_000_000 }), { nil: null }),
    planAmount: fc.integer({ min: 500, max: 1_000_000 }),
    pastDueAtEnd: fc.boolean(),
  })
  .map((r) => ({
    ...r,
    // Activated at or after its creation, ended after it was created.
    activatedAt: r.activatedAt && new Date(Math.max(r.activatedAt.getTime(), r.createdAt.getTime())),
    cancelled: r.status === 'CANCELLED',
    endedAt: (r.status === 'CANCELLED' || r.status === 'EXPIRED') && r.endedAt ? new Date(Math.max(r.endedAt.getTime(), r.createdAt.getTime())) : null,
  }));
const last = new Date(end.getTime() - 1);

/** Where an instant lies against the month: what the SQL sends instead of the instant (metrics.ts Place). */
const placeOf = (d: Date | null): Place | null => (d === null ? null : d < start ? 0 : d.getTime() === start.getTime() ? 1 : d <= last ? 2 : 3);
const placed = (r: MetricsRow): MetricsRow => {
  const at = (d: Date | null) => instantOf(placeOf(d), start, last);
  return { ...r, createdAt: at(r.createdAt)!, activatedAt: at(r.activatedAt), trialEnd: at(r.trialEnd), endedAt: at(r.endedAt) };
};

describe('metrics formulas (properties)', () => {
  test('MRR movements explain the change from the start of the month to its end, to the cent', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 60 }), (rows) => {
        const m = metricsOf('2027-03', rows, start, end);
        const mv = m.movements;
        assert.equal(mv.newCents + mv.expansionCents + mv.reactivationCents - mv.contractionCents - mv.churnCents, m.mrrCents - m.mrrAtStartCents);
        assert.equal(mv.netCents, m.mrrCents - m.mrrAtStartCents);
        for (const v of Object.values(mv).slice(0, 5)) assert.ok(v >= 0);
      }),
    );
  });

  test('MRR is the sum of each paying subscription\'s price over its months; counts agree with it', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 60 }), (rows) => {
        const m = metricsOf('2027-03', rows, start, end);
        assert.equal(m.mrrCents, rows.reduce((s, r) => s + mrrAt(r, last, r.pausedAtEnd, r.amountAtEnd), 0));
        assert.equal(m.mrr, m.mrrCents);
        assert.equal(m.totalActive, m.activeSubscribers);
        assert.equal(m.activeSubscribers, rows.filter((r) => payingAt(r, last, r.pausedAtEnd)).length);
        assert.equal(m.totalPaused, rows.filter((r) => r.pausedAtEnd && r.activatedAt && r.activatedAt <= last && !(r.endedAt && r.endedAt <= last)).length);
        assert.ok(m.activeSubscribers + m.totalPaused + m.trialing <= rows.length);
        assert.ok(m.pastDue <= m.activeSubscribers);
        assert.ok(m.churnRate >= 0 && m.churnRate <= 1, 'cancellations are counted among those active at the start');
        assert.equal(m.churnRate, m.activeAtStart ? Math.round((m.cancellations / m.activeAtStart) * 10000) / 10000 : 0);
        assert.ok(m.revenueChurnRate >= 0 && m.revenueChurnRate <= 1);
      }),
    );
  });

  test('a pause takes a subscription out of MRR only while the pause history has it paused', () => {
    fc.assert(
      fc.property(rowArb, (r) => {
        const running = { ...r, pausedAtStart: false, pausedAtEnd: false };
        const paused = { ...r, pausedAtStart: true, pausedAtEnd: true };
        assert.equal(metricsOf('2027-03', [paused], start, end).mrrCents, 0);
        assert.equal(metricsOf('2027-03', [paused], start, end).activeSubscribers, 0);
        // Paused at the start, running at the end: back from the pause is a reactivation (unless new this month).
        const back = metricsOf('2027-03', [{ ...running, pausedAtStart: true }], start, end);
        const plain = metricsOf('2027-03', [running], start, end);
        assert.equal(back.mrrCents, plain.mrrCents);
        assert.equal(back.movements.reactivationCents + back.movements.newCents, plain.mrrCents > 0 ? plain.mrrCents : 0);
      }),
    );
  });

  test('what the SQL sends is enough: instants replaced by their place in the month, and identical rows counted, give the same metrics', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 40, maxLength: 40 }), (rows, counts) => {
        const expanded = rows.flatMap((r, i) => Array.from({ length: counts[i] }, () => r));
        const grouped = rows.map((r, i) => ({ ...placed(r), count: counts[i] }));
        assert.deepEqual(metricsOf('2027-03', grouped, start, end), metricsOf('2027-03', expanded, start, end));
      }),
    );
  });

  test('normalisation: an annual R$ 1.200,00 is R$ 100,00 a month; a weekly R$ 10,00 is R$ 43,45', () => {
    const base = { status: 'ACTIVE' as const, createdAt: new Date('2027-01-01T00:00:00Z'), activatedAt: new Date('2027-01-01T00:00:00Z'), trialEnd: null, endedAt: null, cancelled: false, pausedAtStart: false, pausedAtEnd: false, amountAtStart: null, amountAtEnd: null, pastDueAtEnd: false };
    assert.equal(mrrAt({ ...base, interval: 'ANNUAL', intervalCount: 1, planAmount: 120000 }, end, false, null), 10000);
    assert.equal(mrrAt({ ...base, interval: 'WEEKLY', intervalCount: 1, planAmount: 1000 }, end, false, null), 4345);
    assert.equal(mrrAt({ ...base, interval: 'MONTHLY', intervalCount: 3, planAmount: 9000 }, end, false, null), 3000);
    assert.equal(mrrAt({ ...base, interval: 'MONTHLY', intervalCount: 1, planAmount: 9000 }, end, true, null), 0, 'paused');
  });
});

describe('GET /api/subscriptions/metrics', () => {
  let ctx: TestContext;
  let m: Merchant;
  before(async () => {
    ctx = await startApp();
    m = await merchant(ctx.app);
  });
  after(() => ctx.close());

  test('counts, MRR and churn of the current month over real subscriptions', async () => {
    const card = { number: '4242424242424242', holderName: 'Ana', expMonth: 12, expYear: 2035, cvv: '123' };
    const monthly = (await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'M', amountCents: 3000, interval: 'MONTHLY' } })).body.plan;
    const annual = (await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'A', amountCents: 120000, interval: 'ANNUAL' } })).body.plan;
    const trial = (await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'T', amountCents: 5000, interval: 'MONTHLY', trialDays: 30 } })).body.plan;
    const sub = async (planId: string, extra: Record<string, unknown> = {}) =>
      (await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId, paymentMethod: 'CARD', card, client: { name: 'C', email: `c${Math.random()}@example.com`, document: cpf() }, ...extra } })).body.subscription;
    await sub(monthly.id);
    await sub(annual.id);
    await sub(trial.id);
    const gone = await sub(monthly.id);
    await call(ctx.app, 'PATCH', `/api/subscriptions/${gone.id}/cancel`, { key: m.devKey });
    await sub(monthly.id, { card: { ...card, number: '4000000000009995' } }); // INCOMPLETE: not a subscriber
    const res = await call(ctx.app, 'GET', '/api/v1/subscriptions/metrics', { key: m.devKey });
    assert.equal(res.status, 200, res.raw);
    const x = res.body.metrics;
    assert.equal(x.mrrCents, 3000 + 10000);
    assert.equal(x.activeSubscribers, 2);
    assert.equal(x.trialing, 1);
    assert.equal(x.totalCancelled, 1);
    assert.equal(x.newSubscribers, 4, 'the INCOMPLETE one never started');
    assert.equal(x.movements.newCents, 13000);
    const past = await call(ctx.app, 'GET', '/api/subscriptions/metrics?month=2020-01', { key: m.devKey });
    assert.equal(past.body.metrics.mrrCents, 0);
    assert.equal((await call(ctx.app, 'GET', '/api/subscriptions/metrics?month=2020-13', { key: m.devKey })).status, 400);
    const other = await merchant(ctx.app);
    assert.equal((await call(ctx.app, 'GET', '/api/subscriptions/metrics', { key: other.devKey })).body.metrics.mrrCents, 0);
  });

  test('a month\'s figures stay what they were: a pause counts while it lasted, after the subscription resumed or was cancelled', async () => {
    const m2 = await merchant(ctx.app);
    const scope = { userId: m2.id, livemode: false };
    const card = { number: '4242424242424242', holderName: 'Ana', expMonth: 12, expYear: 2035, cvv: '123' };
    const plan = (await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m2.devKey, body: { name: 'M', amountCents: 3000, interval: 'MONTHLY' } })).body.plan;
    const sub = async () =>
      (await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m2.devKey, body: { planId: plan.id, paymentMethod: 'CARD', card, client: { name: 'C', email: `c${Math.random()}@example.com`, document: cpf() } } })).body.subscription;
    const a = await sub();
    const b = await sub();
    const bothPaying = new Date();
    const paused = await call(ctx.app, 'PATCH', `/api/subscriptions/${a.id}/pause`, { key: m2.devKey });
    assert.equal(paused.body.subscription.status, 'PAUSED');
    const whilePaused = new Date(new Date(paused.body.subscription.pausedAt).getTime() + 1);
    const asOf = (now: Date) => subscriptionMetrics(ctx.database.db, scope, undefined, now);
    const during = await asOf(whilePaused);
    assert.equal(during.totalPaused, 1);
    assert.equal(during.activeSubscribers, 1);
    assert.equal(during.mrrCents, 3000);

    assert.equal((await call(ctx.app, 'PATCH', `/api/subscriptions/${a.id}/resume`, { key: m2.devKey })).body.subscription.status, 'ACTIVE');
    await call(ctx.app, 'PATCH', `/api/subscriptions/${b.id}/cancel`, { key: m2.devKey });
    // Later changes leave the past as it was.
    assert.deepEqual(await asOf(whilePaused), during);
    const before = await asOf(bothPaying);
    assert.equal(before.activeSubscribers, 2);
    assert.equal(before.totalPaused, 0);
    assert.equal(before.mrrCents, 6000);
    // And now: A is back (its pause closed), B is gone.
    const nowRes = await call(ctx.app, 'GET', '/api/subscriptions/metrics', { key: m2.devKey });
    assert.equal(nowRes.body.metrics.totalPaused, 0);
    assert.equal(nowRes.body.metrics.activeSubscribers, 1);
    assert.equal(nowRes.body.metrics.totalCancelled, 1);
    assert.equal(nowRes.body.metrics.mrrCents, 3000);
    const pauses = await ctx.database.db.selectFrom('subscription_pauses').selectAll().where('subscription_id', '=', a.id).execute();
    assert.equal(pauses.length, 1);
    assert.ok(pauses[0].ended_at, 'the pause ended when the subscription resumed');
  });
});
