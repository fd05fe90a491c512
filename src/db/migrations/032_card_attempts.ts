import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Every try of a production card charge at one connector of the CARD_PROVIDER chain (failover): written
// PENDING before the call and finished after it, so a crash mid-call leaves a trace of who was asked.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE card_attempts (
      id uuid PRIMARY KEY,
      transaction_id uuid NOT NULL REFERENCES transactions(id),
      connector text NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('PENDING','APPROVED','DECLINED','UNAVAILABLE','SKIPPED')),
      return_code text,
      reason text,
      latency_ms integer,
      -- An UNAVAILABLE try at a connector the charge then left: asked again once the janitor's grace passed (late-sales.ts).
      checked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX card_attempts_transaction ON card_attempts (transaction_id, created_at);
    CREATE INDEX card_attempts_unchecked ON card_attempts (created_at) WHERE outcome = 'UNAVAILABLE' AND checked_at IS NULL;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `DROP TABLE card_attempts;`);
}
