// Subscription metrics: the formulas as properties (fast-check) over random subscriptions, and the
// endpoint over real subscriptions moved by simulation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { PlanInterval, SubscriptionStatus } from '../src/db/types.ts';
import { subscriptionMetrics, subscriptionMetricsUncached } from '../src/modules/subscriptions/metrics.ts';
import { instantOf, metricsOf, monthBounds, mrrAt, payingAt, type MetricsRow, type Place } from '../src/modules/subscriptions/metrics-formulas.ts';
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
        assert.equal(back.movements.reactivationCents + back.movements.newCents, Math.max(plain.mrrCents, 0));
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
    // Months from 1900-01 to 9999-11: the last one ends in 9999 too.
    for (const month of ['9999-12', '1899-12', '10000-01']) assert.equal((await call(ctx.app, 'GET', `/api/subscriptions/metrics?month=${month}`, { key: m.devKey })).status, 400, month);
    assert.equal((await call(ctx.app, 'GET', '/api/subscriptions/metrics?month=9999-11', { key: m.devKey })).status, 200);
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

// ---------------------------------------------------------------------------------------------
// Stored rows (migration 024, docs/decisions.md): the figures must be exactly those of reading every
// subscription (subscriptionMetricsUncached, the statement the formulas above were checked against),
// on random books whose instants cluster around the month's start, before and after ordinary writes
// (which must not raise the history version) and backdated ones (which must).

const DAY = 86_400_000;
/** The start of the São Paulo day (UTC-3) of an instant. */
const dayStart = (t: number) => Math.floor((t - 3 * 3600_000) / DAY) * DAY + 3 * 3600_000;

/** A random book of `n` subscriptions for the merchant, straight into the tables, in the current month's neighbourhood. */
async function randomBook(db: TestContext['database']['db'], userId: string, seed: number, n: number) {
  let s = seed || 1;
  const rnd = () => ((s = (s * 16807) % 2147483647), s / 2147483647);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const now = Date.now();
  const t0 = monthBounds(new Date(now - 3 * 3600_000).toISOString().slice(0, 7)).start.getTime();
  const d = dayStart(now);
  // Instants: anywhere from 70 days before the month to 20 days ahead (a simulation's clock), and
  // often exactly at the edges of the month and of the day (the stored snapshot's instant).
  const at = () => new Date(rnd() < 0.3 ? pick([t0 - 1, t0, t0 + 1, t0 - DAY, d - 1, d, d + 1, now - 1000]) : t0 - 70 * DAY + Math.floor(rnd() * (now - t0 + 90 * DAY)));
  const after = (d: Date) => new Date(Math.max(d.getTime(), at().getTime()));
  const plans: { id: string; amount: number }[] = [];
  for (const [interval, amount] of [['MONTHLY', 3000], ['ANNUAL', 120000], ['WEEKLY', 1490]] as const) {
    const id = randomUUID();
    await sql`INSERT INTO subscription_plans (id, user_id, livemode, name, amount_cents, interval, interval_count, trial_days, payment_methods, dunning, status, created_at, updated_at)
      VALUES (${id}, ${userId}, false, ${interval}, ${amount}, ${interval}, 1, 0, '["CARD"]', '{"retryDays":[1],"finalAction":"CANCEL","pixDaysBefore":3,"boletoDaysBefore":5}', 'ACTIVE', now() - interval '1 year', now() - interval '1 year')`.execute(db);
    plans.push({ id, amount });
  }
  const client = randomUUID();
  await sql`INSERT INTO clients (id, user_id, livemode, name, email, document, created_at, updated_at) VALUES (${client}, ${userId}, false, 'C', ${`c${seed}@example.com`}, ${cpf()}, now(), now())`.execute(db);
  const subs: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    const plan = pick(plans);
    const created = at();
    const trialEnd = rnd() < 0.3 ? after(created) : null;
    const activated = rnd() < 0.85 ? (trialEnd ? created : after(created)) : null;
    const ends = rnd() < 0.35;
    const status = ends ? pick(['CANCELLED', 'EXPIRED'] as const) : pick(['ACTIVE', 'PAST_DUE', 'PAUSED', 'TRIALING'] as const);
    const ended = ends ? after(created) : null;
    // Period cycles: the price changes now and then; price_cents / price_since as the code keeps them (migration 016's rule).
    const cycles: { start: Date; created: Date; amount: number }[] = [];
    if (activated && rnd() < 0.85) {
      let start = after(activated);
      for (let k = 0; k < 1 + Math.floor(rnd() * 3); k++) {
        cycles.push({ start, created: rnd() < 0.8 ? start : after(start), amount: rnd() < 0.3 ? plan.amount + 500 * Math.floor(1 + rnd() * 3) : plan.amount });
        start = new Date(start.getTime() + Math.floor(rnd() * 40) * DAY);
      }
    }
    const last = cycles.at(-1);
    const run = last ? cycles.slice(cycles.findLastIndex((c) => c.amount !== last.amount) + 1) : [];
    const priceSince = run.length ? new Date(Math.min(...run.map((c) => Math.max(c.start.getTime(), c.created.getTime())))) : null;
    await sql`INSERT INTO subscriptions (id, user_id, livemode, plan_id, client_id, client_name, client_email, client_document, status, payment_method,
        anchor_at, period_index, current_period_start, current_period_end, trial_end, ended_at, activated_at, price_cents, price_since, metadata, created_at, updated_at)
      VALUES (${id}, ${userId}, false, ${plan.id}, ${client}, 'C', 'c@example.com', '00000000000', ${status}, 'CARD', ${created}, 0, ${created}, ${created}, ${trialEnd}, ${ended}, ${activated},
        ${last?.amount ?? null}, ${priceSince}, '{}', ${created}, ${created})`.execute(db);
    for (const [k, c] of cycles.entries()) {
      const failed = rnd() < 0.3 ? after(c.start) : null;
      const paid = rnd() < 0.6 ? after(failed ?? c.start) : null;
      const voided = !paid && rnd() < 0.3 ? after(failed ?? c.start) : null;
      await sql`INSERT INTO subscription_cycles (id, subscription_id, user_id, livemode, number, kind, period_start, period_end, due_at, amount_cents, status, attempts, first_failed_at, paid_at, voided_at, created_at, updated_at)
        VALUES (${randomUUID()}, ${id}, ${userId}, false, ${k + 1}, 'PERIOD', ${c.start}, ${new Date(c.start.getTime() + 30 * DAY)}, ${c.start}, ${c.amount}, ${paid ? 'PAID' : voided ? 'VOID' : 'PAST_DUE'}, 1,
          ${failed}, ${paid}, ${voided}, ${c.created}, ${c.created})`.execute(db);
    }
    for (let k = 0; k < (rnd() < 0.3 ? 1 + Math.floor(rnd() * 2) : 0); k++) {
      const started = after(created);
      const open = k === 0 && rnd() < 0.4;
      await sql`INSERT INTO subscription_pauses (id, subscription_id, user_id, livemode, started_at, ended_at) VALUES (${randomUUID()}, ${id}, ${userId}, false, ${started}, ${open ? null : after(started)})`.execute(db);
    }
    subs.push(id);
  }
  return { subs, plans, rnd, pick };
}

describe('stored metrics rows agree with reading every subscription', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await startApp();
  });
  after(() => ctx.close());

  test('random books, the current month as of several instants, past and future months; after ordinary and backdated writes', async () => {
    const db = ctx.database.db;
    const version = async (userId: string) => Number((await sql<{ v: string | null }>`SELECT max(version) AS v FROM subscription_metrics_versions WHERE user_id = ${userId}`.execute(db)).rows[0].v ?? 0);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2_000_000_000 }), async (seed) => {
        const m = await merchant(ctx.app);
        const scope = { userId: m.id, livemode: false };
        const { subs, plans, rnd, pick } = await randomBook(db, m.id, seed, 40);
        const now = new Date();
        const month = new Date(now.getTime() - 3 * 3600_000).toISOString().slice(0, 7);
        const { start } = monthBounds(month);
        const prev = new Date(start.getTime() - DAY).toISOString().slice(0, 7);
        const check = async (label: string) => {
          const today = dayStart(Date.now());
          const instants = [new Date(), start, new Date(start.getTime() + 1), new Date(today), new Date(today + 1), new Date(start.getTime() + Math.floor(rnd() * (Date.now() - start.getTime())))];
          for (const asOf of instants) {
            assert.deepEqual(await subscriptionMetrics(db, scope, undefined, asOf), await subscriptionMetricsUncached(db, scope, undefined, asOf), `${label}: current month as of ${asOf.toISOString()} (seed ${seed})`);
          }
          for (const mm of [prev, '2020-01', '2099-01']) {
            assert.deepEqual(await subscriptionMetrics(db, scope, mm), await subscriptionMetricsUncached(db, scope, mm), `${label}: ${mm} (seed ${seed})`);
          }
        };
        await check('as seeded');
        // Stored now (opening and the closed month); ordinary writes at the wall clock's now: no version change, same figures.
        const v0 = await version(m.id);
        const firstWrite = new Date();
        for (let k = 0; k < 6; k++) {
          const id = pick(subs);
          const t = new Date();
          await pick([
            () => sql`UPDATE subscriptions SET status = 'CANCELLED', ended_at = ${t} WHERE id = ${id} AND ended_at IS NULL`.execute(db),
            () => sql`INSERT INTO subscription_pauses (id, subscription_id, user_id, livemode, started_at) SELECT ${randomUUID()}, ${id}, ${m.id}, false, ${t} WHERE NOT EXISTS (SELECT 1 FROM subscription_pauses WHERE subscription_id = ${id} AND ended_at IS NULL)`.execute(db),
            () => sql`UPDATE subscription_pauses SET ended_at = greatest(started_at, ${t}) WHERE subscription_id = ${id} AND ended_at IS NULL`.execute(db),
            () => sql`UPDATE subscription_cycles SET first_failed_at = ${t} WHERE subscription_id = ${id} AND first_failed_at IS NULL`.execute(db),
            () => sql`UPDATE subscription_cycles SET paid_at = ${t} WHERE subscription_id = ${id} AND paid_at IS NULL`.execute(db),
            () => sql`UPDATE subscriptions SET activated_at = ${t} WHERE id = ${id} AND activated_at IS NULL`.execute(db),
            async () => {
              // A new period at a new price (cycles.ts insertPeriodCycle).
              await sql`UPDATE subscriptions SET price_since = CASE WHEN price_cents = 9900 THEN price_since ELSE ${t} END, price_cents = 9900 WHERE id = ${id}`.execute(db);
              await sql`INSERT INTO subscription_cycles (id, subscription_id, user_id, livemode, number, kind, period_start, period_end, due_at, amount_cents, status, attempts, created_at, updated_at)
                VALUES (${randomUUID()}, ${id}, ${m.id}, false, (SELECT coalesce(max(number), 0) + 1 FROM subscription_cycles WHERE subscription_id = ${id}), 'PERIOD', ${t}, ${new Date(t.getTime() + 30 * DAY)}, ${t}, 9900, 'OPEN', 1, ${t}, ${t})`.execute(db);
            },
          ])();
        }
        // In the last minute before midnight in São Paulo the cutoff is already the next day's start
        // (subscription_metrics_cutoff, migration 024): writes made then are history and move the
        // version, as they must. Otherwise they leave it alone.
        const cutoff = (await sql<{ c: Date }>`SELECT subscription_metrics_cutoff() AS c`.execute(db)).rows[0].c;
        if (firstWrite > cutoff) assert.equal(await version(m.id), v0, 'ordinary writes leave the history version alone');
        await check('after ordinary writes');
        // Backdated writes (history before the month changed): the version moves, the figures follow.
        const id = pick(subs);
        const past = new Date(dayStart(Date.now()) - Math.floor(1 + rnd() * 40) * 3600_000);
        await pick([
          () => sql`UPDATE subscriptions SET status = 'CANCELLED', ended_at = ${past} WHERE id = ${id}`.execute(db),
          () => sql`INSERT INTO subscription_pauses (id, subscription_id, user_id, livemode, started_at, ended_at) VALUES (${randomUUID()}, ${id}, ${m.id}, false, ${past}, ${new Date(past.getTime() + DAY)})`.execute(db),
          () => sql`UPDATE subscription_cycles SET first_failed_at = ${past}, paid_at = NULL, voided_at = NULL WHERE subscription_id = ${id}`.execute(db),
          () => sql`UPDATE subscription_plans SET amount_cents = amount_cents + 100 WHERE id = ${plans[0].id}`.execute(db),
          () => sql`UPDATE subscriptions SET plan_id = ${plans[1].id} WHERE id = ${id}`.execute(db),
        ])();
        await check('after a backdated write');
      }),
      { numRuns: Number(process.env.METRICS_RUNS ?? 12) },
    );
  });
});
