import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Affiliate programs (issue 14): a merchant opens one program per product; other merchant accounts
// join it and promote the product's payment links with a tracking code (NAME-XXXXXX).
// cookie_days NULL = the attribution never expires; extended_months NULL = no cap on renewals.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE affiliate_programs (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      product_id uuid NOT NULL REFERENCES products(id),
      description text,
      rules text,
      affiliate_page text,
      sales_page text,
      cookie_days integer CHECK (cookie_days BETWEEN 1 AND 365),
      attribution text NOT NULL CHECK (attribution IN ('LAST_CLICK','FIRST_CLICK')),
      extended_commission boolean NOT NULL,
      extended_months integer CHECK (extended_months BETWEEN 1 AND 120),
      commission_type text NOT NULL CHECK (commission_type IN ('PERCENTAGE','FIXED')),
      commission_value integer NOT NULL CHECK (commission_value > 0),
      approval text NOT NULL CHECK (approval IN ('AUTO','MANUAL')),
      guarantee_days integer NOT NULL CHECK (guarantee_days BETWEEN 0 AND 365),
      status text NOT NULL CHECK (status IN ('ACTIVE','INACTIVE')),
      deleted_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK (commission_type <> 'PERCENTAGE' OR commission_value <= 10000)
    );
    CREATE UNIQUE INDEX affiliate_programs_product ON affiliate_programs (product_id) WHERE deleted_at IS NULL;
    CREATE INDEX affiliate_programs_owner ON affiliate_programs (user_id, livemode, created_at DESC) WHERE deleted_at IS NULL;
    CREATE INDEX affiliate_programs_market ON affiliate_programs (livemode, created_at DESC) WHERE deleted_at IS NULL AND status = 'ACTIVE';

    CREATE TABLE affiliate_links (
      id uuid PRIMARY KEY,
      program_id uuid NOT NULL REFERENCES affiliate_programs(id),
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      code text NOT NULL UNIQUE,
      status text NOT NULL CHECK (status IN ('PENDING','ACTIVE','REFUSED','BLOCKED')),
      clicks integer NOT NULL DEFAULT 0,
      conversions integer NOT NULL DEFAULT 0,
      approved_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (program_id, user_id)
    );
    CREATE INDEX affiliate_links_affiliate ON affiliate_links (user_id, livemode, created_at DESC);

    -- One commission per sale (transaction_id UNIQUE): the program's terms at the time of the sale
    -- are copied onto it, so later changes to the program apply to later sales only.
    CREATE TABLE affiliate_commissions (
      id uuid PRIMARY KEY,
      program_id uuid NOT NULL REFERENCES affiliate_programs(id),
      link_id uuid NOT NULL REFERENCES affiliate_links(id),
      user_id uuid NOT NULL REFERENCES users(id),
      merchant_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      transaction_id uuid NOT NULL UNIQUE REFERENCES transactions(id),
      commission_type text NOT NULL CHECK (commission_type IN ('PERCENTAGE','FIXED')),
      commission_value integer NOT NULL,
      base_cents integer NOT NULL CHECK (base_cents >= 0),
      amount_cents integer NOT NULL CHECK (amount_cents >= 0),
      status text NOT NULL CHECK (status IN ('PENDING','PAID','CANCELLED')),
      reason text,
      release_at timestamptz NOT NULL,
      paid_at timestamptz,
      cancelled_at timestamptz,
      clawed_back_at timestamptz,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX affiliate_commissions_affiliate ON affiliate_commissions (user_id, livemode, created_at DESC);
    CREATE INDEX affiliate_commissions_link ON affiliate_commissions (link_id);
    CREATE INDEX affiliate_commissions_due ON affiliate_commissions (release_at) WHERE status = 'PENDING';

    -- Clicks counted once per link, IP (keyed hash) and hour; rows older than the hour are purged.
    CREATE TABLE affiliate_clicks (
      link_id uuid NOT NULL REFERENCES affiliate_links(id),
      ip_hash text NOT NULL,
      hour timestamptz NOT NULL,
      PRIMARY KEY (link_id, ip_hash, hour)
    );
    CREATE INDEX affiliate_clicks_hour ON affiliate_clicks (hour);

    -- The affiliate a checkout attributed the sale to (its link), read when the payment is confirmed.
    ALTER TABLE transactions ADD COLUMN affiliate_link_id uuid REFERENCES affiliate_links(id);

    -- Two more accounts per merchant: commission_pending (an affiliate's commissions not released
    -- yet) and transfers (money moved between merchants, so each one's accounts still sum to zero).
    ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
    ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
      CHECK (kind IN ('available','receivable','reserved','fees','external','commission_pending','transfers'));
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
    ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN ('available','receivable','reserved','fees','external'));
    ALTER TABLE transactions DROP COLUMN affiliate_link_id;
    DROP TABLE affiliate_clicks;
    DROP TABLE affiliate_commissions;
    DROP TABLE affiliate_links;
    DROP TABLE affiliate_programs;
    `,
  );
}
