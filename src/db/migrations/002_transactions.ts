import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Transactions, the double-entry ledger, card receivables, events and idempotency keys.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE transactions (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      display_id text NOT NULL,
      product text NOT NULL,
      amount_cents bigint NOT NULL CHECK (amount_cents BETWEEN 1 AND 100000000),
      charged_cents bigint NOT NULL,
      fee_cents bigint NOT NULL DEFAULT 0,
      refunded_cents bigint NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0 AND refunded_cents <= charged_cents),
      status text NOT NULL CHECK (status IN ('PENDING','PAID','FAILED','EXPIRED','CANCELLED','REFUNDED','PARTIALLY_REFUNDED')),
      payment_method text NOT NULL CHECK (payment_method IN ('PIX','CARD','BOLETO')),
      client_id uuid NOT NULL REFERENCES clients(id),
      client_name text NOT NULL,
      client_email text NOT NULL,
      client_document text NOT NULL,
      client_phone text,
      installments integer NOT NULL DEFAULT 1 CHECK (installments BETWEEN 1 AND 12),
      installment_cents bigint,
      card_brand text,
      card_last4 text,
      pix_txid text UNIQUE,
      pix_qr_code text,
      boleto_barcode text,
      boleto_line text,
      due_date date,
      expires_at timestamptz,
      payment_link_id uuid,
      metadata jsonb NOT NULL DEFAULT '{}',
      tracking_params jsonb NOT NULL DEFAULT '{}',
      postback_url text,
      provider text NOT NULL,
      failure_reason text,
      paid_at timestamptz,
      failed_at timestamptz,
      expired_at timestamptz,
      refunded_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX transactions_user_display ON transactions (user_id, display_id);
    CREATE INDEX transactions_user_created ON transactions (user_id, livemode, created_at, id);
    CREATE INDEX transactions_user_amount ON transactions (user_id, livemode, amount_cents, id);
    CREATE INDEX transactions_user_status ON transactions (user_id, livemode, status, id);
    CREATE INDEX transactions_user_client ON transactions (user_id, livemode, client_id, created_at, id);
    CREATE INDEX transactions_pending_expiry ON transactions (expires_at) WHERE status = 'PENDING' AND expires_at IS NOT NULL;

    CREATE TABLE ledger_accounts (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      kind text NOT NULL CHECK (kind IN ('available','receivable','reserved','fees','external')),
      balance_cents bigint NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (user_id, livemode, kind)
    );

    CREATE TABLE ledger_journals (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      kind text NOT NULL,
      reference_type text NOT NULL,
      reference_id uuid NOT NULL,
      description text NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX ledger_journals_reference ON ledger_journals (user_id, reference_type, reference_id);

    CREATE TABLE ledger_entries (
      id uuid PRIMARY KEY,
      journal_id uuid NOT NULL REFERENCES ledger_journals(id),
      account_id uuid NOT NULL REFERENCES ledger_accounts(id),
      user_id uuid NOT NULL,
      livemode boolean NOT NULL,
      account_kind text NOT NULL,
      amount_cents bigint NOT NULL CHECK (amount_cents <> 0),
      balance_after_cents bigint NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX ledger_entries_account ON ledger_entries (account_id, created_at, id);
    CREATE INDEX ledger_entries_user ON ledger_entries (user_id, livemode, created_at, id);
    CREATE INDEX ledger_entries_journal ON ledger_entries (journal_id);

    CREATE TABLE receivables (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      transaction_id uuid NOT NULL REFERENCES transactions(id),
      installment_number integer NOT NULL,
      amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
      settle_at timestamptz NOT NULL,
      status text NOT NULL CHECK (status IN ('PENDING','SETTLED','ADVANCED','CANCELLED')),
      settled_at timestamptz,
      created_at timestamptz NOT NULL,
      UNIQUE (transaction_id, installment_number)
    );
    CREATE INDEX receivables_user_pending ON receivables (user_id, livemode, settle_at) WHERE status = 'PENDING';
    CREATE INDEX receivables_due ON receivables (settle_at) WHERE status = 'PENDING';

    CREATE TABLE events (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX events_user_created ON events (user_id, livemode, created_at, id);

    CREATE TABLE idempotency_keys (
      user_id uuid NOT NULL,
      livemode boolean NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      response_status integer,
      response_body text,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, livemode, key)
    );
    CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, ['idempotency_keys', 'events', 'receivables', 'ledger_entries', 'ledger_journals', 'ledger_accounts', 'transactions'].map((t) => `DROP TABLE ${t};`).join('\n'));
}
