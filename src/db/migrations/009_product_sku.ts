import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// A product's SKU (the merchant's own stock-keeping code, origin-compatible): optional, unique per
// merchant and environment among products not archived, compared case-insensitively (an archived
// product frees its SKU, as an archived coupon frees its code).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE products ADD COLUMN sku text CHECK (sku IS NULL OR char_length(sku) BETWEEN 1 AND 100);
    CREATE UNIQUE INDEX products_user_sku ON products (user_id, livemode, lower(sku)) WHERE sku IS NOT NULL AND deleted_at IS NULL;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX products_user_sku;
    ALTER TABLE products DROP COLUMN sku;
    `,
  );
}
