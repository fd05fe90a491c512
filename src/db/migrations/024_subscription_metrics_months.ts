import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Stored rows for the subscription metrics (modules/subscriptions/metrics.ts, docs/decisions.md
// "Subscription metrics: a snapshot of the day's start stored, the day's movers read"):
// - subscription_metrics_months: per merchant, environment and month, the metrics rows (grouped, as
//   the metrics statement returns them) of the current month as of the start of a day (DAY, as_of
//   that instant) or of a CLOSED month; with the history version they were computed at.
// - subscription_metrics_versions: the merchant's history version, raised by the triggers below in
//   the same transaction as any write that changes what was recorded before the current day (an
//   instant before it, a plan's price or cadence, a subscription's plan). Stored rows of an older
//   version are not used. Ordinary writes (renewals, failures, pauses, cancellations: instants of
//   now) do not fire them: the WHEN clauses compare the row's instants with the day's start.
// - indexes to find a month's movers: subscriptions (with what the metrics read of them), pauses
//   and failed cycles, by their latest instant.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE subscription_metrics_months (
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      month text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('DAY', 'CLOSED')),
      as_of timestamptz NOT NULL,
      version bigint NOT NULL,
      rows jsonb NOT NULL,
      computed_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, livemode, month, kind)
    );
    CREATE TABLE subscription_metrics_versions (
      user_id uuid NOT NULL,
      livemode boolean NOT NULL,
      version bigint NOT NULL,
      PRIMARY KEY (user_id, livemode)
    );

    -- The first instant of the São Paulo day (UTC-3) that contains now() + 1 minute: stored rows
    -- never describe anything after it (the minute covers a clock skew between the gateway and the
    -- database, and a transaction that began just before midnight).
    CREATE FUNCTION subscription_metrics_cutoff() RETURNS timestamptz LANGUAGE sql STABLE AS $$
      SELECT (date_trunc('day', ((now() + interval '1 minute') AT TIME ZONE 'UTC') - interval '3 hours') + interval '3 hours') AT TIME ZONE 'UTC'
    $$;

    -- Raises the merchant's version, once per transaction (a bulk backdated insert raises it once).
    CREATE FUNCTION subscription_metrics_history_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      r record;
      k text;
      done text := coalesce(current_setting('cofre.metrics_bumped', true), '');
    BEGIN
      IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
      k := r.user_id::text || ':' || r.livemode::text || ' ';
      IF position(k IN done) = 0 THEN
        INSERT INTO subscription_metrics_versions AS v (user_id, livemode, version) VALUES (r.user_id, r.livemode, 1)
          ON CONFLICT (user_id, livemode) DO UPDATE SET version = v.version + 1;
        PERFORM set_config('cofre.metrics_bumped', done || k, true);
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER subscriptions_metrics_insert AFTER INSERT ON subscriptions FOR EACH ROW
      WHEN (NEW.created_at <= subscription_metrics_cutoff())
      EXECUTE FUNCTION subscription_metrics_history_changed();
    CREATE TRIGGER subscriptions_metrics_delete AFTER DELETE ON subscriptions FOR EACH ROW
      WHEN (OLD.created_at <= subscription_metrics_cutoff())
      EXECUTE FUNCTION subscription_metrics_history_changed();
    -- A price that starts a new run starts it now or later (price_since >= now): the earlier days
    -- read the price from the cycles, which keep it. So only a price_since in the past fires.
    CREATE TRIGGER subscriptions_metrics_update AFTER UPDATE ON subscriptions FOR EACH ROW
      WHEN ((OLD.plan_id IS DISTINCT FROM NEW.plan_id AND OLD.created_at <= subscription_metrics_cutoff())
        OR (OLD.created_at IS DISTINCT FROM NEW.created_at AND least(OLD.created_at, NEW.created_at) <= subscription_metrics_cutoff())
        OR (OLD.activated_at IS DISTINCT FROM NEW.activated_at AND least(OLD.activated_at, NEW.activated_at) <= subscription_metrics_cutoff())
        OR (OLD.trial_end IS DISTINCT FROM NEW.trial_end AND (OLD.trial_end IS NULL OR NEW.trial_end IS NULL OR least(OLD.trial_end, NEW.trial_end) <= subscription_metrics_cutoff()))
        OR (OLD.ended_at IS DISTINCT FROM NEW.ended_at AND least(OLD.ended_at, NEW.ended_at) <= subscription_metrics_cutoff())
        OR ((OLD.price_cents, OLD.price_since) IS DISTINCT FROM (NEW.price_cents, NEW.price_since) AND (NEW.price_since IS NULL OR NEW.price_since <= subscription_metrics_cutoff()))
        OR ((OLD.status = 'CANCELLED') IS DISTINCT FROM (NEW.status = 'CANCELLED') AND NEW.ended_at <= subscription_metrics_cutoff()))
      EXECUTE FUNCTION subscription_metrics_history_changed();

    CREATE TRIGGER subscription_pauses_metrics_insert AFTER INSERT ON subscription_pauses FOR EACH ROW
      WHEN (NEW.started_at <= subscription_metrics_cutoff())
      EXECUTE FUNCTION subscription_metrics_history_changed();
    CREATE TRIGGER subscription_pauses_metrics_delete AFTER DELETE ON subscription_pauses FOR EACH ROW
      WHEN (OLD.started_at <= subscription_metrics_cutoff())
      EXECUTE FUNCTION subscription_metrics_history_changed();
    CREATE TRIGGER subscription_pauses_metrics_update AFTER UPDATE ON subscription_pauses FOR EACH ROW
      WHEN ((OLD.started_at IS DISTINCT FROM NEW.started_at AND least(OLD.started_at, NEW.started_at) <= subscription_metrics_cutoff())
        OR (OLD.ended_at IS DISTINCT FROM NEW.ended_at AND least(OLD.ended_at, NEW.ended_at) <= subscription_metrics_cutoff()))
      EXECUTE FUNCTION subscription_metrics_history_changed();

    -- Cycles: a period's price (kind, period_start, amount, from created_at) and a charge's failure.
    CREATE TRIGGER subscription_cycles_metrics_insert AFTER INSERT ON subscription_cycles FOR EACH ROW
      WHEN (least(NEW.created_at, NEW.first_failed_at, NEW.paid_at, NEW.voided_at) <= subscription_metrics_cutoff())
      EXECUTE FUNCTION subscription_metrics_history_changed();
    CREATE TRIGGER subscription_cycles_metrics_delete AFTER DELETE ON subscription_cycles FOR EACH ROW
      WHEN (least(OLD.created_at, OLD.first_failed_at) <= subscription_metrics_cutoff())
      EXECUTE FUNCTION subscription_metrics_history_changed();
    CREATE TRIGGER subscription_cycles_metrics_update AFTER UPDATE ON subscription_cycles FOR EACH ROW
      WHEN (((OLD.kind, OLD.period_start, OLD.amount_cents, OLD.created_at) IS DISTINCT FROM (NEW.kind, NEW.period_start, NEW.amount_cents, NEW.created_at)
          AND least(OLD.created_at, NEW.created_at) <= subscription_metrics_cutoff())
        OR (OLD.first_failed_at IS DISTINCT FROM NEW.first_failed_at AND least(OLD.first_failed_at, NEW.first_failed_at) <= subscription_metrics_cutoff())
        OR (OLD.paid_at IS DISTINCT FROM NEW.paid_at AND NEW.first_failed_at IS NOT NULL AND least(OLD.paid_at, NEW.paid_at) <= subscription_metrics_cutoff())
        OR (OLD.voided_at IS DISTINCT FROM NEW.voided_at AND NEW.first_failed_at IS NOT NULL AND least(OLD.voided_at, NEW.voided_at) <= subscription_metrics_cutoff()))
      EXECUTE FUNCTION subscription_metrics_history_changed();

    CREATE TRIGGER subscription_plans_metrics_update AFTER UPDATE ON subscription_plans FOR EACH ROW
      WHEN ((OLD.amount_cents, OLD.interval, OLD.interval_count) IS DISTINCT FROM (NEW.amount_cents, NEW.interval, NEW.interval_count))
      EXECUTE FUNCTION subscription_metrics_history_changed();

    -- A day's movers: what has an instant at or after its start (metrics.ts movedSql).
    CREATE INDEX subscriptions_metrics_moved ON subscriptions (user_id, livemode, (greatest(created_at, activated_at, trial_end, ended_at, price_since)))
      INCLUDE (id, plan_id, status, created_at, activated_at, trial_end, ended_at, price_cents, price_since);
    CREATE INDEX subscription_pauses_metrics_moved ON subscription_pauses (user_id, livemode, (coalesce(ended_at, started_at))) INCLUDE (subscription_id);
    CREATE INDEX subscription_cycles_metrics_moved ON subscription_cycles (user_id, livemode, (greatest(first_failed_at, paid_at, voided_at))) INCLUDE (subscription_id)
      WHERE first_failed_at IS NOT NULL;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX subscription_cycles_metrics_moved;
    DROP INDEX subscription_pauses_metrics_moved;
    DROP INDEX subscriptions_metrics_moved;
    DROP TRIGGER subscription_plans_metrics_update ON subscription_plans;
    DROP TRIGGER subscription_cycles_metrics_update ON subscription_cycles;
    DROP TRIGGER subscription_cycles_metrics_delete ON subscription_cycles;
    DROP TRIGGER subscription_cycles_metrics_insert ON subscription_cycles;
    DROP TRIGGER subscription_pauses_metrics_update ON subscription_pauses;
    DROP TRIGGER subscription_pauses_metrics_delete ON subscription_pauses;
    DROP TRIGGER subscription_pauses_metrics_insert ON subscription_pauses;
    DROP TRIGGER subscriptions_metrics_update ON subscriptions;
    DROP TRIGGER subscriptions_metrics_delete ON subscriptions;
    DROP TRIGGER subscriptions_metrics_insert ON subscriptions;
    DROP FUNCTION subscription_metrics_history_changed();
    DROP FUNCTION subscription_metrics_cutoff();
    DROP TABLE subscription_metrics_versions;
    DROP TABLE subscription_metrics_months;
    `,
  );
}
