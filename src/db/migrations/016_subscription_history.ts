import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// What the subscription metrics of a past month need, kept as history (docs/subscriptions.md#metrics),
// so that a month's figures do not move when a subscription changes later:
// - subscription_pauses: one row per pause, [started_at, ended_at) (ended_at NULL while it lasts;
//   set on resume, or when the subscription ends paused). A subscription may pause many times.
// - subscriptions.activated_at: when it first held a place (the trial's start, or its first paid
//   charge); NULL for one that never did (INCOMPLETE, EXPIRED).
// - subscription_cycles.voided_at: when a cycle was withdrawn (pause, cancel), so a cycle that was
//   unpaid at the end of a month still counts as past due for that month after it is voided.
// - subscriptions.price_cents / price_since: the price of its latest period cycle, and an instant from
//   which the period running at any later time was billed at that price (the metrics read a month's
//   price from here, and only look among the cycles for a subscription whose price changed since).
// - indexes for the metrics: what they read of a merchant's subscriptions (an index-only scan, a
//   fraction of the table's width), a period's price by subscription, a merchant's failed cycles.
// Backfilled from what the rows hold: pauses before this migration are only known for subscriptions
// still PAUSED; a voided cycle's voided_at is its updated_at.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE subscription_pauses (
      id uuid PRIMARY KEY,
      subscription_id uuid NOT NULL REFERENCES subscriptions(id),
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      started_at timestamptz NOT NULL,
      ended_at timestamptz,
      reason text,
      CHECK (ended_at IS NULL OR ended_at >= started_at)
    );
    CREATE INDEX subscription_pauses_user ON subscription_pauses (user_id, livemode, started_at);
    CREATE UNIQUE INDEX subscription_pauses_open ON subscription_pauses (subscription_id) WHERE ended_at IS NULL;
    INSERT INTO subscription_pauses (id, subscription_id, user_id, livemode, started_at)
      SELECT gen_random_uuid(), id, user_id, livemode, coalesce(paused_at, updated_at) FROM subscriptions WHERE status = 'PAUSED';

    ALTER TABLE subscriptions ADD COLUMN activated_at timestamptz;
    UPDATE subscriptions s SET activated_at = CASE WHEN s.trial_end IS NOT NULL THEN s.created_at
      ELSE (SELECT min(c.paid_at) FROM subscription_cycles c WHERE c.subscription_id = s.id AND c.status = 'PAID') END;

    ALTER TABLE subscription_cycles ADD COLUMN voided_at timestamptz;
    UPDATE subscription_cycles SET voided_at = updated_at WHERE status = 'VOID';

    ALTER TABLE subscriptions ADD COLUMN price_cents bigint, ADD COLUMN price_since timestamptz;
    ${PRICE_BACKFILL}
    CREATE INDEX subscription_cycles_price ON subscription_cycles (subscription_id, period_start DESC) INCLUDE (amount_cents, created_at) WHERE kind = 'PERIOD';
    CREATE INDEX subscriptions_metrics ON subscriptions (user_id, livemode, created_at) INCLUDE (id, plan_id, status, activated_at, trial_end, ended_at, price_cents, price_since);
    CREATE INDEX subscription_cycles_failed ON subscription_cycles (user_id, livemode, first_failed_at) INCLUDE (subscription_id, paid_at, voided_at) WHERE first_failed_at IS NOT NULL;
    `,
  );
}

/**
 * Sets price_cents / price_since from the cycles: the latest period cycle's price, and the earliest
 * instant at which a cycle of the last run of that price had started and existed. (Also used by the
 * benchmark's seeding.)
 */
export const PRICE_BACKFILL = `UPDATE subscriptions s SET price_cents = l.amount_cents,
      price_since = (SELECT min(greatest(c.period_start, c.created_at)) FROM subscription_cycles c
        WHERE c.subscription_id = s.id AND c.kind = 'PERIOD' AND c.period_start > coalesce((SELECT max(d.period_start) FROM subscription_cycles d
          WHERE d.subscription_id = s.id AND d.kind = 'PERIOD' AND d.amount_cents <> l.amount_cents), '-infinity'))
    FROM (SELECT DISTINCT ON (subscription_id) subscription_id, amount_cents FROM subscription_cycles WHERE kind = 'PERIOD'
          ORDER BY subscription_id, period_start DESC) l
    WHERE l.subscription_id = s.id;`;

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX subscription_cycles_failed;
    DROP INDEX subscriptions_metrics;
    DROP INDEX subscription_cycles_price;
    ALTER TABLE subscriptions DROP COLUMN price_cents, DROP COLUMN price_since, DROP COLUMN activated_at;
    ALTER TABLE subscription_cycles DROP COLUMN voided_at;
    DROP TABLE subscription_pauses;
    `,
  );
}
