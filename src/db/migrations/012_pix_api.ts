import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Production PIX through a PSP's API Pix: a PAID transaction keeps the payment's end-to-end id as
// provider_ref, and one payment id can pay one transaction only (a notification repeated, or
// replayed for another charge, is refused by the database too). The same index finds which
// notified e2eids are already known without asking the PSP again.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE UNIQUE INDEX transactions_provider_ref ON transactions (provider, provider_ref) WHERE provider_ref IS NOT NULL;
    CREATE INDEX transactions_pending_provider ON transactions (provider, expires_at) WHERE status = 'PENDING';
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `DROP INDEX transactions_pending_provider; DROP INDEX transactions_provider_ref;`);
}
