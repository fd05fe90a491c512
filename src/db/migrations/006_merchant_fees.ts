import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// A merchant's negotiated fees: an operator's overrides of the platform's FEE_* settings, as a
// JSON object with only the overridden fields; NULL = the platform's fees.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, `ALTER TABLE users ADD COLUMN fees jsonb CHECK (fees IS NULL OR jsonb_typeof(fees) = 'object');`);
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `ALTER TABLE users DROP COLUMN fees;`);
}
