import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Pix Automático (docs/subscriptions.md, docs/providers.md): a subscription may be paid by
// PIX_AUTOMATICO, the payer's authorisation (a "recorrência" at the PSP, idRec) kept on the
// subscription with its last known state. One idRec belongs to one subscription (a notification
// names the idRec: the unique index finds its subscription).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_payment_method_check;
    ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_payment_method_check CHECK (payment_method IN ('CARD','PIX','BOLETO','PIX_AUTOMATICO'));
    ALTER TABLE subscriptions ADD COLUMN pix_rec_id text;
    ALTER TABLE subscriptions ADD COLUMN pix_rec_status text CHECK (pix_rec_status IN ('CRIADA','APROVADA','REJEITADA','EXPIRADA','CANCELADA'));
    CREATE UNIQUE INDEX subscriptions_pix_rec ON subscriptions (pix_rec_id) WHERE pix_rec_id IS NOT NULL;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `DROP INDEX subscriptions_pix_rec; ALTER TABLE subscriptions DROP COLUMN pix_rec_status; ALTER TABLE subscriptions DROP COLUMN pix_rec_id;
     ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_payment_method_check;
     ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_payment_method_check CHECK (payment_method IN ('CARD','PIX','BOLETO'));`,
  );
}
