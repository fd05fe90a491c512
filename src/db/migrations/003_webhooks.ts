import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Webhook subscriptions, their deliveries (the durable job queue, written in the same transaction
// as the event) and the attempt log; the per-merchant postback secret.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE users ADD COLUMN postback_secret text;

    CREATE TABLE webhook_subscriptions (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      url text NOT NULL,
      events jsonb NOT NULL,
      description text,
      secret text NOT NULL,
      status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE','DISABLED')),
      disabled_reason text,
      failing_since timestamptz,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX webhook_subscriptions_user ON webhook_subscriptions (user_id, livemode, created_at, id) WHERE deleted_at IS NULL;

    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      event_id uuid NOT NULL,
      event_type text NOT NULL,
      subscription_id uuid REFERENCES webhook_subscriptions(id),
      url text NOT NULL,
      body text NOT NULL,
      status text NOT NULL CHECK (status IN ('PENDING','SUCCEEDED','FAILED')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      first_attempt_at timestamptz,
      locked_until timestamptz,
      last_status integer,
      last_error text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING';
    CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (user_id, subscription_id, created_at, id);
    CREATE INDEX webhook_deliveries_user ON webhook_deliveries (user_id, livemode, created_at, id);
    CREATE INDEX webhook_deliveries_event ON webhook_deliveries (user_id, event_id);

    CREATE TABLE webhook_attempts (
      id uuid PRIMARY KEY,
      delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id),
      user_id uuid NOT NULL,
      attempt integer NOT NULL,
      status_code integer,
      duration_ms integer NOT NULL,
      error text,
      next_retry_at timestamptz,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX webhook_attempts_delivery ON webhook_attempts (user_id, delivery_id, attempt);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE webhook_attempts;\nDROP TABLE webhook_deliveries;\nDROP TABLE webhook_subscriptions;\nALTER TABLE users DROP COLUMN postback_secret;');
}
