import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// A boleto a bank issues after the transaction is stored (payments/inter): the bank's id of the
// request (boleto_ref) is kept as soon as it answers, the numbers (boleto_barcode, boleto_line) and
// the hybrid boleto's Pix code (boleto_pix) once it has them; until then the boleto is ISSUING, and
// the index is the issuing sweep's queue. paid_with: how a boleto was paid (BOLETO or its PIX).
// boleto_issuing: the sweep's claims (payments/boleto-issuing.ts): one process works on a boleto
// until lease_until, and the next try waits until then too (backoff); tries counts the requests.
// A refund sent as a Pix to the payer (a boleto's: modules/transactions/pix-refund.ts) keeps the
// payer's key and the payout connector that sends it.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE transactions ADD COLUMN boleto_ref text, ADD COLUMN boleto_pix text, ADD COLUMN paid_with text;
    CREATE UNIQUE INDEX transactions_boleto_ref ON transactions (provider, boleto_ref) WHERE boleto_ref IS NOT NULL;
    CREATE INDEX transactions_boleto_issuing ON transactions (provider, created_at) WHERE payment_method = 'BOLETO' AND status = 'PENDING' AND boleto_barcode IS NULL;
    CREATE TABLE boleto_issuing (
      transaction_id uuid PRIMARY KEY REFERENCES transactions (id) ON DELETE CASCADE,
      lease_until timestamptz NOT NULL,
      tries integer NOT NULL DEFAULT 0,
      last_error text
    );
    ALTER TABLE refunds ADD COLUMN pix_key_type text, ADD COLUMN pix_key text, ADD COLUMN payout_provider text;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE refunds DROP COLUMN pix_key_type, DROP COLUMN pix_key, DROP COLUMN payout_provider;
    DROP TABLE boleto_issuing;
    DROP INDEX transactions_boleto_issuing;
    DROP INDEX transactions_boleto_ref;
    ALTER TABLE transactions DROP COLUMN boleto_ref, DROP COLUMN boleto_pix, DROP COLUMN paid_with;
    `,
  );
}
