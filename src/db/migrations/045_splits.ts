import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Splits and sub-accounts (modules/splits, modules/accounts; docs/splits.md).
// users.wallet_id: the public id another merchant names to send a merchant a share of a sale.
// sub_accounts: a merchant created by a platform (platform_id) for one of its sellers; its profile.
// split_partners: a merchant (user_id) asked another (partner_id) to receive shares of its sales;
//   shares go only to ACCEPTED partners and to the merchant's own sub-accounts.
// *.split: the split rule ({basis, recipients}) of a link, a checkout, a plan; on a transaction, the
//   rule it was created with, each recipient's user resolved.
// receivables: a card sale's instalments are the seller's and each recipient's (unique per owner).
// transaction_splits: each recipient's share of a paid sale, as booked in its payment journal, and
//   what refunds and chargebacks took back of it.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE users ADD COLUMN wallet_id uuid NOT NULL DEFAULT gen_random_uuid();
    CREATE UNIQUE INDEX users_wallet_id ON users (wallet_id);

    CREATE TABLE sub_accounts (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      platform_id uuid NOT NULL REFERENCES users (id),
      document text NOT NULL,
      phone text NOT NULL,
      address jsonb NOT NULL,
      pix_key text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX sub_accounts_platform ON sub_accounts (platform_id, created_at DESC, user_id DESC);

    CREATE TABLE split_partners (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id),
      partner_id uuid NOT NULL REFERENCES users (id),
      status text NOT NULL CHECK (status IN ('PENDING', 'ACCEPTED', 'DECLINED', 'REVOKED')),
      message text,
      created_at timestamptz NOT NULL,
      decided_at timestamptz,
      updated_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX split_partners_open ON split_partners (user_id, partner_id) WHERE status IN ('PENDING', 'ACCEPTED');
    CREATE INDEX split_partners_partner ON split_partners (partner_id, created_at DESC);
    CREATE INDEX split_partners_user ON split_partners (user_id, created_at DESC);

    ALTER TABLE transactions ADD COLUMN split jsonb;
    ALTER TABLE payment_links ADD COLUMN split jsonb;
    ALTER TABLE checkouts ADD COLUMN split jsonb;
    ALTER TABLE subscription_plans ADD COLUMN split jsonb;

    CREATE TABLE transaction_splits (
      id uuid PRIMARY KEY,
      transaction_id uuid NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
      user_id uuid NOT NULL,
      recipient_id uuid NOT NULL,
      livemode boolean NOT NULL,
      basis text NOT NULL CHECK (basis IN ('NET', 'GROSS')),
      fixed_cents bigint,
      percentage_bp integer,
      charge_fees boolean NOT NULL,
      amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
      fee_cents bigint NOT NULL,
      reversed_cents bigint NOT NULL DEFAULT 0,
      status text NOT NULL CHECK (status IN ('PAID', 'PARTIALLY_REVERSED', 'REVERSED')),
      account text NOT NULL CHECK (account IN ('available', 'receivable')),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (transaction_id, recipient_id)
    );
    CREATE INDEX transaction_splits_recipient ON transaction_splits (recipient_id, livemode, created_at DESC, id DESC);
    CREATE INDEX transaction_splits_user ON transaction_splits (user_id, livemode, created_at DESC);

    ALTER TABLE receivables DROP CONSTRAINT receivables_transaction_id_installment_number_key;
    ALTER TABLE receivables ADD CONSTRAINT receivables_transaction_user_installment UNIQUE (transaction_id, user_id, installment_number);
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `ALTER TABLE receivables DROP CONSTRAINT receivables_transaction_user_installment;
     ALTER TABLE receivables ADD CONSTRAINT receivables_transaction_id_installment_number_key UNIQUE (transaction_id, installment_number);
     DROP TABLE transaction_splits;
     ALTER TABLE subscription_plans DROP COLUMN split; ALTER TABLE checkouts DROP COLUMN split;
     ALTER TABLE payment_links DROP COLUMN split; ALTER TABLE transactions DROP COLUMN split;
     DROP TABLE split_partners; DROP TABLE sub_accounts; ALTER TABLE users DROP COLUMN wallet_id;`,
  );
}
