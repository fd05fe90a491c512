import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// sub_accounts.login_enabled_at: when the seller first set a password (through the invitation, or any
// reset link); until then its password is a random one nobody knows and the platform may e-mail the
// invitation again (modules/accounts, docs/accounts.md).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE sub_accounts ADD COLUMN login_enabled_at timestamptz;');
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE sub_accounts DROP COLUMN login_enabled_at;');
}
