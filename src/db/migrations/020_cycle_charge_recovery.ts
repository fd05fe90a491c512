import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// A subscription cycle's charge in flight (docs/subscriptions.md#a-charge-interrupted-by-a-crash):
// - charge_tx_id: the id of the transaction this attempt pays with, chosen when the attempt is
//   counted (in the step's database transaction, before any provider call). It is the provider's
//   idempotency key (the charge's reference), so re-driving the attempt can never charge twice.
// - charge_until: until then the worker that counted the attempt is issuing it; after it, the
//   subscriptions sweep finishes the attempt with the same transaction id (a crash, a provider
//   that never answered). Both are cleared when the attempt's outcome is recorded.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE subscription_cycles ADD COLUMN charge_tx_id uuid;
    ALTER TABLE subscription_cycles ADD COLUMN charge_until timestamptz;
    ALTER TABLE subscription_cycles ADD CONSTRAINT subscription_cycles_charge_in_flight CHECK ((charge_tx_id IS NULL) = (charge_until IS NULL));
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `ALTER TABLE subscription_cycles DROP CONSTRAINT subscription_cycles_charge_in_flight; ALTER TABLE subscription_cycles DROP COLUMN charge_until; ALTER TABLE subscription_cycles DROP COLUMN charge_tx_id;`);
}
