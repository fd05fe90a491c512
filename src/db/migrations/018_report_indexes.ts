import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// The reports (modules/reports) read only indexes: sales by the day they were paid, the payment
// funnel by the day payments were created, refunds by the day they were made, each for one merchant
// and environment, with the columns the aggregates need carried in the index (index-only scans).
// The creation-time index of the transactions list gains the funnel's columns rather than a twin.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE INDEX transactions_user_paid ON transactions (user_id, livemode, paid_at) INCLUDE (payment_method, amount_cents, fee_cents) WHERE paid_at IS NOT NULL;
    DROP INDEX transactions_user_created;
    CREATE INDEX transactions_user_created ON transactions (user_id, livemode, created_at, id) INCLUDE (payment_method, paid_at, authorized_at, card_last4);
    CREATE INDEX refunds_user_created ON refunds (user_id, livemode, created_at) INCLUDE (amount_cents, status);
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX refunds_user_created;
    DROP INDEX transactions_user_created;
    CREATE INDEX transactions_user_created ON transactions (user_id, livemode, created_at, id);
    DROP INDEX transactions_user_paid;
    `,
  );
}
