import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Payouts without a person (modules/withdrawals/payouts.ts): a withdrawal goes to a Pix key or to
// an account's data (bank_account: exactly one of the two); payout_ref is our reference at the PSP,
// chosen once (external_id becomes the PSP's own id, the e2eId, when it gives one); a production
// withdrawal above the review threshold or past the daily limit is held until an operator approves
// it (hold, approved_*); one the platform could not fund at the PSP waits until next_attempt_at.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE withdrawals ALTER COLUMN pix_key_type DROP NOT NULL;
    ALTER TABLE withdrawals ALTER COLUMN pix_key DROP NOT NULL;
    ALTER TABLE withdrawals ADD COLUMN bank_account jsonb;
    ALTER TABLE withdrawals ADD COLUMN payout_ref text;
    ALTER TABLE withdrawals ADD COLUMN hold text;
    ALTER TABLE withdrawals ADD COLUMN approved_at timestamptz;
    ALTER TABLE withdrawals ADD COLUMN approved_by uuid REFERENCES users(id);
    ALTER TABLE withdrawals ADD COLUMN next_attempt_at timestamptz;
    ALTER TABLE withdrawals ADD COLUMN last_error text;
    ALTER TABLE withdrawals ADD CONSTRAINT withdrawals_one_destination CHECK ((pix_key IS NULL) <> (bank_account IS NULL));
    UPDATE withdrawals SET payout_ref = external_id WHERE provider IS NOT NULL AND provider <> 'manual';
    CREATE UNIQUE INDEX withdrawals_payout_ref ON withdrawals (provider, payout_ref) WHERE payout_ref IS NOT NULL;
    CREATE INDEX withdrawals_day ON withdrawals (user_id, livemode, created_at) WHERE status NOT IN ('CANCELLED', 'FAILED');
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX withdrawals_day;
    DROP INDEX withdrawals_payout_ref;
    ALTER TABLE withdrawals DROP CONSTRAINT withdrawals_one_destination;
    ALTER TABLE withdrawals DROP COLUMN bank_account, DROP COLUMN payout_ref, DROP COLUMN hold, DROP COLUMN approved_at, DROP COLUMN approved_by, DROP COLUMN next_attempt_at, DROP COLUMN last_error;
    ALTER TABLE withdrawals ALTER COLUMN pix_key_type SET NOT NULL;
    ALTER TABLE withdrawals ALTER COLUMN pix_key SET NOT NULL;
    `,
  );
}
