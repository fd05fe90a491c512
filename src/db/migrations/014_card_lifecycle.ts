import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Card authorisations captured later (issue "drop-in for the origin API"): a card payment can stop at
// AUTHORIZED (the money held on the customer's card, nothing credited) until it is captured (PAID),
// voided (CANCELLED) or left to expire (EXPIRED, its expires_at being the authorisation's end).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE transactions DROP CONSTRAINT transactions_status_check;
    ALTER TABLE transactions ADD CONSTRAINT transactions_status_check
      CHECK (status IN ('PENDING','AUTHORIZED','PAID','FAILED','EXPIRED','CANCELLED','REFUNDED','PARTIALLY_REFUNDED'));
    ALTER TABLE transactions ADD COLUMN authorized_at timestamptz, ADD COLUMN captured_at timestamptz, ADD COLUMN cancelled_at timestamptz;
    CREATE INDEX transactions_authorized_expiry ON transactions (expires_at) WHERE status = 'AUTHORIZED';
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX transactions_authorized_expiry;
    ALTER TABLE transactions DROP COLUMN authorized_at, DROP COLUMN captured_at, DROP COLUMN cancelled_at;
    ALTER TABLE transactions DROP CONSTRAINT transactions_status_check;
    ALTER TABLE transactions ADD CONSTRAINT transactions_status_check
      CHECK (status IN ('PENDING','PAID','FAILED','EXPIRED','CANCELLED','REFUNDED','PARTIALLY_REFUNDED'));
    `,
  );
}
