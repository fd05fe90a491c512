import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Subscriptions (docs/subscriptions.md): plans, subscriptions and one cycle (invoice) per period.
// A cycle's payment is an ordinary transaction that names its subscription and cycle, so the
// ledger, fees, settlement, refunds and webhooks apply to it unchanged.
// - subscriber_count on the plan is the seat counter: a guarded UPDATE (count < max) is the
//   race-safe maxSubscribers check; a subscription that ends gives its seat back.
// - (subscription_id, number) is unique for periods: a period is billed once however many workers race.
// - next_action_at is when the sweep must look at a subscription next (renewal, charge issue,
//   retry, trial end, expiry, resume); the partial index keeps that sweep's claim cheap.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE subscription_plans (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      name text NOT NULL,
      description text,
      amount_cents bigint NOT NULL CHECK (amount_cents >= 500),
      interval text NOT NULL CHECK (interval IN ('DAILY','WEEKLY','MONTHLY','QUARTERLY','SEMIANNUAL','ANNUAL')),
      interval_count integer NOT NULL CHECK (interval_count >= 1),
      trial_days integer NOT NULL CHECK (trial_days >= 0),
      max_subscribers integer CHECK (max_subscribers >= 1),
      subscriber_count integer NOT NULL DEFAULT 0 CHECK (subscriber_count >= 0 AND (max_subscribers IS NULL OR subscriber_count <= max_subscribers)),
      payment_methods jsonb NOT NULL,
      dunning jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('ACTIVE','INACTIVE')),
      deleted_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX subscription_plans_user ON subscription_plans (user_id, livemode, created_at, id);

    CREATE TABLE subscriptions (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      plan_id uuid NOT NULL REFERENCES subscription_plans(id),
      client_id uuid NOT NULL REFERENCES clients(id),
      client_name text NOT NULL,
      client_email text NOT NULL,
      client_document text NOT NULL,
      client_phone text,
      status text NOT NULL CHECK (status IN ('TRIALING','INCOMPLETE','ACTIVE','PAST_DUE','PAUSED','CANCELLED','EXPIRED')),
      payment_method text NOT NULL CHECK (payment_method IN ('CARD','PIX','BOLETO')),
      card_token text,
      card_brand text,
      card_last4 text,
      card_exp_month integer,
      card_exp_year integer,
      anchor_at timestamptz NOT NULL,
      period_index integer NOT NULL DEFAULT 0,
      current_period_start timestamptz NOT NULL,
      current_period_end timestamptz NOT NULL,
      trial_end timestamptz,
      trial_will_end_sent boolean NOT NULL DEFAULT false,
      cancel_at_period_end boolean NOT NULL DEFAULT false,
      cancel_reason text,
      cancelled_at timestamptz,
      paused_at timestamptz,
      resumes_at timestamptz,
      ended_at timestamptz,
      coupon_id uuid,
      pending_plan_id uuid REFERENCES subscription_plans(id),
      metadata jsonb NOT NULL DEFAULT '{}',
      next_action_at timestamptz,
      clock_offset_ms bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX subscriptions_user ON subscriptions (user_id, livemode, created_at, id);
    CREATE INDEX subscriptions_plan ON subscriptions (plan_id, status);
    CREATE INDEX subscriptions_due ON subscriptions (next_action_at) WHERE next_action_at IS NOT NULL;

    CREATE TABLE subscription_cycles (
      id uuid PRIMARY KEY,
      subscription_id uuid NOT NULL REFERENCES subscriptions(id),
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      number integer NOT NULL CHECK (number >= 1),
      kind text NOT NULL CHECK (kind IN ('PERIOD','PRORATION')),
      period_start timestamptz NOT NULL,
      period_end timestamptz NOT NULL,
      due_at timestamptz NOT NULL,
      amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
      discount_cents bigint NOT NULL DEFAULT 0,
      status text NOT NULL CHECK (status IN ('OPEN','PAID','PAST_DUE','VOID','UNCOLLECTIBLE')),
      attempts integer NOT NULL DEFAULT 0,
      next_retry_at timestamptz,
      transaction_id uuid,
      failure_reason text,
      hard_declined boolean NOT NULL DEFAULT false,
      first_failed_at timestamptz,
      last_attempt_at timestamptz,
      paid_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX subscription_cycles_period ON subscription_cycles (subscription_id, number) WHERE kind = 'PERIOD';
    CREATE INDEX subscription_cycles_subscription ON subscription_cycles (subscription_id, created_at);
    CREATE INDEX subscription_cycles_user ON subscription_cycles (user_id, livemode, created_at);

    ALTER TABLE coupons ADD COLUMN subscription_cycles integer CHECK (subscription_cycles >= 1);
    ALTER TABLE transactions ADD COLUMN subscription_id uuid;
    ALTER TABLE transactions ADD COLUMN subscription_cycle_id uuid;
    CREATE INDEX transactions_subscription ON transactions (subscription_id, created_at) WHERE subscription_id IS NOT NULL;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `ALTER TABLE coupons DROP COLUMN subscription_cycles; ALTER TABLE transactions DROP COLUMN subscription_cycle_id; ALTER TABLE transactions DROP COLUMN subscription_id;
     DROP TABLE subscription_cycles; DROP TABLE subscriptions; DROP TABLE subscription_plans;`,
  );
}
