import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// A subscription's coupon use is reserved when it subscribes, like a checkout's (013), and held by
// the subscription rather than by a transaction: through a trial, a first PIX or boleto not yet paid,
// a first charge the coupon leaves at zero (no transaction at all) and retries of a declined first
// card. USED when the first charge is paid (or found nothing to pay), RELEASED if the subscription
// ends before that. Before this, its use was only counted when the first charge was paid, so any
// number of subscriptions could take a coupon of usageLimit 1 meanwhile.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE coupon_redemptions ADD COLUMN subscription_id uuid REFERENCES subscriptions(id);
    CREATE INDEX coupon_redemptions_subscription ON coupon_redemptions (subscription_id) WHERE subscription_id IS NOT NULL;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `DROP INDEX coupon_redemptions_subscription; ALTER TABLE coupon_redemptions DROP COLUMN subscription_id;`);
}
