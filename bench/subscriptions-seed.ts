// Seeding for the subscription benchmarks (bench/subscriptions.ts), in SQL so that 100,000
// subscriptions and their cycles take seconds, not hours. Both functions take a pg client whose
// search_path is the benchmark's schema, and a merchant (users.id) that already exists.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { generateCpf } from '../src/payments/documents.ts';
import { PRICE_BACKFILL } from '../src/db/migrations/016_subscription_history.ts';

/** The plans of the seeded merchant: price, cadence, trial, and the share of subscribers each gets. */
const PLANS = [
  { amount: 2990, interval: 'MONTHLY', step: '1 month', trial: 0, share: 0.3 },
  { amount: 5990, interval: 'MONTHLY', step: '1 month', trial: 7, share: 0.2 },
  { amount: 9990, interval: 'MONTHLY', step: '1 month', trial: 0, share: 0.15 },
  { amount: 14990, interval: 'MONTHLY', step: '1 month', trial: 14, share: 0.1 },
  { amount: 24990, interval: 'QUARTERLY', step: '3 months', trial: 0, share: 0.08 },
  { amount: 49900, interval: 'SEMIANNUAL', step: '6 months', trial: 0, share: 0.05 },
  { amount: 89900, interval: 'ANNUAL', step: '1 year', trial: 0, share: 0.1 },
  { amount: 1490, interval: 'WEEKLY', step: '7 days', trial: 0, share: 0.02 },
];

const DUNNING = JSON.stringify({ retryDays: [1, 3, 5, 7], finalAction: 'CANCEL', pixDaysBefore: 3, boletoDaysBefore: 5 });

/** Clients of the merchant (`n`, documents unique per merchant), for the subscriptions to point at. */
async function seedClients(c: pg.Client, userId: string, n: number, tag: string) {
  await c.query(
    `INSERT INTO clients (id, user_id, livemode, name, email, document, created_at, updated_at)
     SELECT gen_random_uuid(), $1, false, 'Assinante ' || i, 'assinante' || i || '.${tag}@example.com', lpad(i::text, 11, '0'), now(), now()
     FROM generate_series(1, $2::int) i`,
    [userId, n],
  );
}

/** The merchant's PLANS, and the temporary table bench_plans: each plan's id and its band of the draw [lo, hi). */
async function seedPlans(c: pg.Client, userId: string) {
  await c.query(`CREATE TEMP TABLE bench_plans (k int, id uuid, amount int, step interval, trial int, lo float8, hi float8) ON COMMIT PRESERVE ROWS`);
  let lo = 0;
  for (const [k, p] of PLANS.entries()) {
    const hi = k === PLANS.length - 1 ? 1.01 : lo + p.share;
    const {
      rows: [plan],
    } = await c.query<{ id: string }>(
      `INSERT INTO subscription_plans (id, user_id, livemode, name, amount_cents, interval, interval_count, trial_days, payment_methods, dunning, status, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, false, $2, $3, $4, 1, $5, '["CARD","PIX","BOLETO"]', $6, 'ACTIVE', now() - interval '3 years', now() - interval '3 years') RETURNING id`,
      [userId, `Plano ${k + 1}`, p.amount, p.interval, p.trial, DUNNING],
    );
    await c.query(`INSERT INTO bench_plans VALUES ($1, $2, $3, $4::interval, $5, $6, $7)`, [k, plan.id, p.amount, p.step, p.trial, lo, hi]);
    lo = hi;
  }
}

/**
 * `n` subscriptions of one merchant (development) spread like a real book: created over the last
 * two years on 8 plans (monthly to annual, two with trials), 60% ACTIVE, 5% PAST_DUE, 5% PAUSED,
 * 22% CANCELLED, 3% EXPIRED, 3% TRIALING, 2% INCOMPLETE; one cycle per period from the anchor until
 * it ended, paused or now (paid, the price 10% lower more than a year ago; the last one of a
 * PAST_DUE subscription failed), pauses in the pause history (5% paused now, 3% paused once before).
 * Returns the number of cycles.
 */
export async function seedSubscriptionBook(c: pg.Client, userId: string, n: number): Promise<{ subscriptions: number; cycles: number; pauses: number }> {
  await c.query(`SELECT setseed(0.42)`);
  const tag = Math.random().toString(36).slice(2, 8);
  await seedClients(c, userId, 20_000, tag);
  await seedPlans(c, userId);
  // Each subscription's draws, then what they mean (a trial only on plans with one; TRIALING ones on those).
  await c.query(
    `CREATE TEMP TABLE bench_subs ON COMMIT PRESERVE ROWS AS
     WITH draws AS (
       SELECT i, random() AS r1, random() AS r2, random() AS r3, random() AS r4 FROM generate_series(1, $1::int) i
     ), typed AS (
       SELECT d.*, CASE WHEN r2 < 0.60 THEN 'ACTIVE' WHEN r2 < 0.65 THEN 'PAST_DUE' WHEN r2 < 0.70 THEN 'PAUSED'
                        WHEN r2 < 0.92 THEN 'CANCELLED' WHEN r2 < 0.95 THEN 'EXPIRED' WHEN r2 < 0.98 THEN 'TRIALING' ELSE 'INCOMPLETE' END AS status
       FROM draws d
     ), planned AS (
       SELECT t.*, p.id AS plan_id, p.amount, p.step, CASE WHEN t.status = 'TRIALING' THEN 7 ELSE p.trial END AS trial,
         CASE WHEN t.status = 'TRIALING' THEN now() - r3 * interval '6 days'
              WHEN t.status = 'INCOMPLETE' THEN now() - r3 * interval '20 hours'
              ELSE now() - interval '1 day' - r3 * interval '730 days' END AS created_at
       FROM typed t JOIN bench_plans p ON CASE WHEN t.status = 'TRIALING' THEN p.k = 1 ELSE t.r1 >= p.lo AND t.r1 < p.hi END
     ), timed AS (
       SELECT x.*, CASE WHEN x.trial > 0 AND x.status NOT IN ('EXPIRED','INCOMPLETE') THEN x.created_at + x.trial * interval '1 day' END AS trial_end FROM planned x
     )
     SELECT gen_random_uuid() AS id, t.*, coalesce(t.trial_end, t.created_at) AS anchor,
       CASE WHEN t.status = 'CANCELLED' THEN coalesce(t.trial_end, t.created_at) + t.r4 * (now() - coalesce(t.trial_end, t.created_at))
            WHEN t.status = 'EXPIRED' THEN t.created_at + interval '23 hours' END AS ended_at,
       CASE WHEN t.status = 'PAUSED' THEN coalesce(t.trial_end, t.created_at) + t.r4 * (now() - coalesce(t.trial_end, t.created_at)) END AS paused_at,
       CASE WHEN t.status IN ('EXPIRED','INCOMPLETE') THEN NULL WHEN t.trial_end IS NOT NULL THEN t.created_at ELSE t.created_at + interval '5 seconds' END AS activated_at
     FROM timed t`,
    [n],
  );
  await c.query(
    `INSERT INTO subscriptions (id, user_id, livemode, plan_id, client_id, client_name, client_email, client_document, status, payment_method,
       card_token, card_brand, card_last4, card_exp_month, card_exp_year, anchor_at, period_index, current_period_start, current_period_end,
       trial_end, trial_will_end_sent, cancel_reason, cancelled_at, paused_at, ended_at, activated_at, metadata, created_at, updated_at)
     SELECT s.id, $1, false, s.plan_id, cl.id, cl.name, cl.email, cl.document, s.status, 'CARD',
       'sbx_tok_' || substr(md5(s.id::text), 1, 24) || '_ok', 'VISA', '4242', 12, 2035, s.anchor, 0, s.anchor, s.anchor + s.step,
       s.trial_end, s.trial_end IS NOT NULL AND s.trial_end < now(), CASE WHEN s.status = 'CANCELLED' THEN 'bench' END,
       CASE WHEN s.status = 'CANCELLED' THEN s.ended_at END, s.paused_at, s.ended_at, s.activated_at, '{}', s.created_at, now()
     FROM bench_subs s JOIN clients cl ON cl.user_id = $1 AND cl.document = lpad((1 + s.i % 20000)::text, 11, '0')`,
    [userId],
  );
  // One cycle per period from the anchor until it ended, paused or now.
  const cycles = await c.query(
    `INSERT INTO subscription_cycles (id, subscription_id, user_id, livemode, number, kind, period_start, period_end, due_at, amount_cents,
       status, attempts, first_failed_at, paid_at, created_at, updated_at)
     SELECT gen_random_uuid(), s.id, $1::uuid, false, row_number() OVER (PARTITION BY s.id ORDER BY g.ps), 'PERIOD', g.ps, g.ps + s.step, g.ps,
       CASE WHEN g.ps < now() - interval '365 days' THEN round(s.amount * 0.9) ELSE s.amount END,
       CASE WHEN s.status = 'PAST_DUE' AND g.ps + s.step > now() THEN 'PAST_DUE' ELSE 'PAID' END, 1,
       CASE WHEN s.status = 'PAST_DUE' AND g.ps + s.step > now() THEN g.ps END,
       CASE WHEN s.status = 'PAST_DUE' AND g.ps + s.step > now() THEN NULL ELSE g.ps + interval '2 minutes' END,
       g.ps, g.ps
     FROM bench_subs s CROSS JOIN LATERAL generate_series(s.anchor, coalesce(s.ended_at, s.paused_at, now()), s.step) AS g(ps)
     WHERE s.status NOT IN ('EXPIRED','INCOMPLETE','TRIALING')`,
    [userId],
  );
  const pauses = await c.query(
    `INSERT INTO subscription_pauses (id, subscription_id, user_id, livemode, started_at, ended_at)
     SELECT gen_random_uuid(), s.id, $1::uuid, false, s.paused_at, NULL FROM bench_subs s WHERE s.status = 'PAUSED'
     UNION ALL
     SELECT gen_random_uuid(), s.id, $1::uuid, false, s.anchor + s.r3 * (now() - s.anchor - interval '40 days'), s.anchor + s.r3 * (now() - s.anchor - interval '40 days') + interval '30 days'
     FROM bench_subs s WHERE s.status = 'ACTIVE' AND s.anchor < now() - interval '90 days' AND s.r4 < 0.05`,
    [userId],
  );
  await c.query(PRICE_BACKFILL);
  await c.query(`UPDATE subscription_plans p SET subscriber_count = (SELECT count(*) FROM subscriptions s WHERE s.plan_id = p.id AND s.status NOT IN ('CANCELLED','EXPIRED')) WHERE p.user_id = $1`, [userId]);
  await c.query(`DROP TABLE bench_subs; DROP TABLE bench_plans`);
  await c.query(`ANALYZE subscriptions; ANALYZE subscription_cycles; ANALYZE subscription_pauses`);
  return { subscriptions: n, cycles: cycles.rowCount ?? 0, pauses: pauses.rowCount ?? 0 };
}

/**
 * `merchants` new merchants sharing `n` ACTIVE monthly card subscriptions (sandbox tokens that
 * approve) whose first month, paid (cycle 1), ended within the last hour; not yet due
 * (next_action_at NULL): the caller makes them due with one UPDATE. Returns the merchants' ids.
 * (Each paid renewal credits its merchant's ledger accounts, so one merchant's renewals queue on
 * those rows: a gateway's renewals spread over its merchants.)
 */
export async function seedDueCardSubscriptions(c: pg.Client, n: number, merchants: number): Promise<string[]> {
  const tag = randomBytes(4).toString('hex');
  const users = await c.query<{ id: string }>(
    `INSERT INTO users (id, name, email, password_hash, referral_code)
     SELECT gen_random_uuid(), 'Clube ' || i, 'bench.renewals.' || i || '.${tag}@example.com', 'x', upper('R${tag}' || i) FROM generate_series(1, $1::int) i RETURNING id`,
    [merchants],
  );
  const ids = users.rows.map((u) => u.id);
  await c.query(
    `INSERT INTO subscription_plans (id, user_id, livemode, name, amount_cents, interval, interval_count, trial_days, payment_methods, dunning, status, created_at, updated_at)
     SELECT gen_random_uuid(), u, false, 'Clube mensal', 4990, 'MONTHLY', 1, 0, '["CARD"]', '{"retryDays":[1,3,5,7],"finalAction":"CANCEL","pixDaysBefore":3,"boletoDaysBefore":5}', 'ACTIVE', now() - interval '2 months', now() - interval '2 months'
     FROM unnest($1::uuid[]) u`,
    [ids],
  );
  // Clients (valid CPFs: each renewal is an ordinary transaction, and those check the document),
  // then subscriptions whose first month (paid: cycle 1) ended within the last hour.
  let seed = 777;
  const rand = () => ((seed = (seed * 16807) % 2147483647), seed / 2147483647);
  const cpfs = new Set<string>();
  while (cpfs.size < n) cpfs.add(generateCpf(rand));
  await c.query(
    `INSERT INTO clients (id, user_id, livemode, name, email, document, created_at, updated_at)
     SELECT gen_random_uuid(), ($1::uuid[])[1 + i % cardinality($1::uuid[])], false, 'Assinante ' || i, 'renova' || i || '@example.com', d, now(), now()
     FROM unnest($2::text[]) WITH ORDINALITY AS x(d, i)`,
    [ids, [...cpfs]],
  );
  await c.query(
    `WITH cl AS (SELECT c.id, c.user_id, c.name, c.email, c.document, p.id AS plan_id, random() AS r FROM clients c JOIN subscription_plans p ON p.user_id = c.user_id WHERE c.user_id = ANY($1::uuid[])),
          ins AS (
       INSERT INTO subscriptions (id, user_id, livemode, plan_id, client_id, client_name, client_email, client_document, status, payment_method,
         card_token, card_brand, card_last4, card_exp_month, card_exp_year, anchor_at, period_index, current_period_start, current_period_end,
         activated_at, price_cents, price_since, metadata, created_at, updated_at)
       SELECT gen_random_uuid(), cl.user_id, false, cl.plan_id, cl.id, cl.name, cl.email, cl.document, 'ACTIVE', 'CARD',
         'sbx_tok_' || substr(md5(cl.id::text), 1, 24) || '_ok', 'VISA', '4242', 12, 2035,
         a.anchor, 0, a.anchor, a.anchor + interval '1 month', a.anchor, 4990, a.anchor, '{}', a.anchor, a.anchor
       FROM cl CROSS JOIN LATERAL (SELECT now() - interval '1 month' - interval '1 minute' - cl.r * interval '1 hour' AS anchor) a
       RETURNING id, user_id, anchor_at, current_period_end)
     INSERT INTO subscription_cycles (id, subscription_id, user_id, livemode, number, kind, period_start, period_end, due_at, amount_cents, status, attempts, paid_at, created_at, updated_at)
     SELECT gen_random_uuid(), id, user_id, false, 1, 'PERIOD', anchor_at, current_period_end, anchor_at, 4990, 'PAID', 1, anchor_at, anchor_at, anchor_at FROM ins`,
    [ids],
  );
  await c.query(`UPDATE subscription_plans p SET subscriber_count = (SELECT count(*) FROM subscriptions s WHERE s.plan_id = p.id) WHERE p.user_id = ANY($1::uuid[])`, [ids]);
  return ids;
}
