import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// The sandbox's subscription clock (POST …/subscriptions/{id}/simulate) moves day by day towards a
// target; the target is kept with the Idempotency-Key of the request that set it, so a retry of a
// request interrupted half-way resumes towards the same day instead of moving the clock again.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE subscriptions ADD COLUMN clock_target_ms bigint, ADD COLUMN clock_target_key text;');
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE subscriptions DROP COLUMN clock_target_ms, DROP COLUMN clock_target_key;');
}
