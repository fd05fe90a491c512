import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// A PIX with a due date may carry late-payment terms (docs/providers.md, "Late payment"): how many
// days after the due date it stays payable, its fine and its interest. Kept on the transaction as
// the merchant set them: when the PSP settles more than the amount charged, the terms are what must
// explain the difference before the payment is booked.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, `ALTER TABLE transactions ADD COLUMN late_payment jsonb;`);
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `ALTER TABLE transactions DROP COLUMN late_payment;`);
}
