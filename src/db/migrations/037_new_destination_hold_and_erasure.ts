import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// A production withdrawal to a destination the merchant never received a payout at waits until
// hold_until (hold = 'NEW_DESTINATION', modules/withdrawals/review.ts); the index finds a completed
// payout to the same key. A client whose personal data was erased (LGPD, modules/clients/erasure.ts)
// keeps its row, anonymised, with erased_at.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE withdrawals ADD COLUMN hold_until timestamptz;
    CREATE INDEX withdrawals_completed_key ON withdrawals (user_id, pix_key) WHERE status = 'COMPLETED' AND livemode;
    ALTER TABLE clients ADD COLUMN erased_at timestamptz;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE clients DROP COLUMN erased_at;
    DROP INDEX withdrawals_completed_key;
    ALTER TABLE withdrawals DROP COLUMN hold_until;
    `,
  );
}
