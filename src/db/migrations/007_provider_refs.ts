import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// The provider seam: a payment keeps the provider's own reference (a card charge id), and every
// refund is a row with its own id (the idempotency key a provider dedupes on) and its provider
// outcome, so a refund sent to a provider is never sent twice and is traceable afterwards.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE transactions ADD COLUMN provider_ref text;
    CREATE TABLE refunds (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      transaction_id uuid NOT NULL REFERENCES transactions(id),
      amount_cents bigint NOT NULL CHECK (amount_cents > 0),
      fee_returned_cents bigint NOT NULL CHECK (fee_returned_cents >= 0),
      status text NOT NULL CHECK (status IN ('PENDING','SUCCEEDED','FAILED')),
      provider text NOT NULL,
      provider_ref text,
      failure_reason text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX refunds_user_transaction ON refunds (user_id, livemode, transaction_id, created_at);
    CREATE INDEX refunds_pending ON refunds (updated_at) WHERE status = 'PENDING';
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `DROP TABLE refunds; ALTER TABLE transactions DROP COLUMN provider_ref;`);
}
