import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Coupon uses are reserved at checkout: a redemption is RESERVED while its payment is pending (its
// transaction linked once created), USED when paid, RELEASED when the payment fails, expires or is
// cancelled. coupons.used_count counts RESERVED and USED ones, so usageLimit caps discounts granted,
// not only discounts paid.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE coupon_redemptions ADD COLUMN status text NOT NULL DEFAULT 'USED' CHECK (status IN ('RESERVED','USED','RELEASED'));
    ALTER TABLE coupon_redemptions ALTER COLUMN transaction_id DROP NOT NULL;
    CREATE INDEX coupon_redemptions_unlinked ON coupon_redemptions (created_at) WHERE status = 'RESERVED' AND transaction_id IS NULL;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `DROP INDEX coupon_redemptions_unlinked; DELETE FROM coupon_redemptions WHERE transaction_id IS NULL; ALTER TABLE coupon_redemptions ALTER COLUMN transaction_id SET NOT NULL; ALTER TABLE coupon_redemptions DROP COLUMN status;`);
}
