import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Chargebacks (modules/transactions/chargeback.ts): a card payment the acquirer debited back because
// the cardholder disputed it. The transaction moves PAID/PARTIALLY_REFUNDED -> CHARGEBACK (and back
// to its former status if the merchant wins); each case the acquirer reports is one row, unique by
// the connector and its case id, so a report delivered twice changes nothing. The evidence files a
// merchant contests with are forwarded to the acquirer, never kept here: only their names and types.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE transactions DROP CONSTRAINT transactions_status_check;
    ALTER TABLE transactions ADD CONSTRAINT transactions_status_check
      CHECK (status IN ('PENDING','AUTHORIZED','PAID','FAILED','EXPIRED','CANCELLED','REFUNDED','PARTIALLY_REFUNDED','CHARGEBACK'));
    CREATE TABLE chargebacks (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      transaction_id uuid NOT NULL REFERENCES transactions(id),
      provider text NOT NULL,
      case_id text NOT NULL,
      status text NOT NULL CHECK (status IN ('OPEN','CONTESTED','WON','LOST')),
      response text CHECK (response IN ('ACCEPTED','CONTESTED')),
      amount_cents bigint NOT NULL CHECK (amount_cents > 0),
      fee_returned_cents bigint NOT NULL CHECK (fee_returned_cents >= 0),
      reason_code text,
      reason text,
      evidence_text text,
      evidence_files jsonb,
      respond_by timestamptz,
      opened_at timestamptz NOT NULL,
      responded_at timestamptz,
      closed_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (provider, case_id)
    );
    CREATE INDEX chargebacks_user_transaction ON chargebacks (user_id, livemode, transaction_id, created_at);
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP TABLE chargebacks;
    ALTER TABLE transactions DROP CONSTRAINT transactions_status_check;
    ALTER TABLE transactions ADD CONSTRAINT transactions_status_check
      CHECK (status IN ('PENDING','AUTHORIZED','PAID','FAILED','EXPIRED','CANCELLED','REFUNDED','PARTIALLY_REFUNDED'));
    `,
  );
}
