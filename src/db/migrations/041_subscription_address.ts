import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// The payer's address of a subscription paid by boleto: a bank that registers boletos (payments/inter)
// needs it on every cycle's boleto, so it is given once when subscribing and copied to each charge
// (the transaction's address). Same shape as transactions.address; null for other methods.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE subscriptions ADD COLUMN client_address jsonb;');
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE subscriptions DROP COLUMN client_address;');
}
