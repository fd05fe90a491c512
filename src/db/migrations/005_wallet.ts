import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Wallet: withdrawals (PIX payouts), advances of card receivables and what each covered, KYC
// submissions with their documents (files kept in the database). Merchant-owned tables lead every
// index with user_id; KYC is account-level (no livemode).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE withdrawals (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      amount_cents bigint NOT NULL CHECK (amount_cents BETWEEN 100 AND 10000000),
      fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
      net_amount_cents bigint NOT NULL CHECK (net_amount_cents > 0 AND net_amount_cents = amount_cents - fee_cents),
      status text NOT NULL CHECK (status IN ('PENDING','PROCESSING','COMPLETED','FAILED','CANCELLED')),
      pix_key_type text NOT NULL CHECK (pix_key_type IN ('cpf','cnpj','email','phone','random')),
      pix_key text NOT NULL,
      description text,
      provider text,
      external_id text,
      failure_reason text,
      payout_attempts integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      processed_at timestamptz,
      completed_at timestamptz,
      failed_at timestamptz,
      cancelled_at timestamptz
    );
    CREATE INDEX withdrawals_user_created ON withdrawals (user_id, livemode, created_at DESC, id DESC);
    CREATE INDEX withdrawals_user_status ON withdrawals (user_id, livemode, status, created_at DESC, id DESC);
    CREATE INDEX withdrawals_queue ON withdrawals (created_at) WHERE status IN ('PENDING','PROCESSING');

    CREATE TABLE advances (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      amount_cents bigint NOT NULL CHECK (amount_cents > 0),
      fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
      net_amount_cents bigint NOT NULL CHECK (net_amount_cents > 0 AND net_amount_cents = amount_cents - fee_cents),
      status text NOT NULL CHECK (status IN ('PENDING','APPROVED','COMPLETED','REJECTED','CANCELLED')),
      reason text NOT NULL,
      decision_reason text,
      decided_by uuid REFERENCES users(id),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      approved_at timestamptz,
      completed_at timestamptz,
      rejected_at timestamptz,
      cancelled_at timestamptz
    );
    CREATE INDEX advances_user_created ON advances (user_id, livemode, created_at DESC, id DESC);
    CREATE INDEX advances_status ON advances (status, created_at) WHERE status IN ('PENDING','APPROVED');
    -- The spec's rule: one advance PENDING or APPROVED at a time (per merchant and environment).
    -- The index decides between concurrent requests.
    CREATE UNIQUE INDEX advances_one_active ON advances (user_id, livemode) WHERE status IN ('PENDING','APPROVED');

    CREATE TABLE advance_items (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      advance_id uuid NOT NULL REFERENCES advances(id),
      receivable_id uuid NOT NULL REFERENCES receivables(id),
      transaction_id uuid NOT NULL REFERENCES transactions(id),
      installment_number integer NOT NULL,
      amount_cents bigint NOT NULL CHECK (amount_cents > 0),
      fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
      days integer NOT NULL CHECK (days >= 1),
      settle_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX advance_items_advance ON advance_items (user_id, advance_id, settle_at);
    CREATE INDEX advance_items_receivable ON advance_items (user_id, receivable_id);

    CREATE TABLE kyc_submissions (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      status text NOT NULL CHECK (status IN ('SUBMITTED','APPROVED','REJECTED')),
      person_type text NOT NULL CHECK (person_type IN ('PF','PJ')),
      legal_name text NOT NULL,
      document text NOT NULL,
      birth_date date,
      founding_date date,
      address jsonb NOT NULL,
      review_reason text,
      reviewed_by uuid REFERENCES users(id),
      reviewed_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX kyc_submissions_user ON kyc_submissions (user_id, created_at DESC, id DESC);
    CREATE INDEX kyc_submissions_queue ON kyc_submissions (created_at) WHERE status = 'SUBMITTED';
    -- At most one submission under review or approved per account: concurrent submissions race here.
    CREATE UNIQUE INDEX kyc_submissions_one_open ON kyc_submissions (user_id) WHERE status IN ('SUBMITTED','APPROVED');

    CREATE TABLE kyc_documents (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      submission_id uuid NOT NULL REFERENCES kyc_submissions(id),
      position integer NOT NULL,
      type text NOT NULL,
      file_name text NOT NULL,
      content_type text NOT NULL,
      size_bytes integer NOT NULL,
      sha256 text NOT NULL,
      content bytea NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX kyc_documents_submission ON kyc_documents (user_id, submission_id, position);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, ['kyc_documents', 'kyc_submissions', 'advance_items', 'advances', 'withdrawals'].map((t) => `DROP TABLE ${t};`).join('\n'));
}
