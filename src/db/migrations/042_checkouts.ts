import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Checkouts (modules/checkouts): a merchant's configuration of the hosted page of at most one payment
// link (payment_link_id, unique): settings that override the link's, branding, and its offers, one
// table for the three kinds (order bumps, at most 5, ticked on the page; one UPSELL and one DOWNSELL
// shown after the payment; discount_bp: a discountPercentage in hundredths of a percent).
// checkout_config: branding, on links and checkouts alike.
// transactions.items: what a hosted checkout sold (main product and ticked bumps), copied when sold;
// parent_transaction_id: the first payment an accepted upsell or downsell follows.
// affiliate_programs.commission_on_bumps: commissions on the whole order, not the main product alone.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE payment_links ADD COLUMN checkout_config jsonb;
    CREATE TABLE checkouts (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id),
      livemode boolean NOT NULL,
      name text NOT NULL,
      payment_link_id uuid REFERENCES payment_links (id),
      settings jsonb NOT NULL,
      customization jsonb NOT NULL,
      checkout_config jsonb,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX checkouts_link ON checkouts (payment_link_id) WHERE payment_link_id IS NOT NULL;
    CREATE INDEX checkouts_list ON checkouts (user_id, livemode, created_at DESC, id DESC);
    CREATE TABLE checkout_offers (
      id uuid PRIMARY KEY,
      checkout_id uuid NOT NULL REFERENCES checkouts (id) ON DELETE CASCADE,
      user_id uuid NOT NULL,
      kind text NOT NULL CHECK (kind IN ('BUMP', 'UPSELL', 'DOWNSELL')),
      product_id uuid NOT NULL REFERENCES products (id),
      title text,
      description text,
      discount_cents bigint,
      discount_bp integer,
      position integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX checkout_offers_checkout ON checkout_offers (checkout_id, kind, position);
    CREATE UNIQUE INDEX checkout_offers_one_each ON checkout_offers (checkout_id, kind) WHERE kind <> 'BUMP';
    ALTER TABLE transactions ADD COLUMN items jsonb, ADD COLUMN parent_transaction_id uuid;
    ALTER TABLE affiliate_programs ADD COLUMN commission_on_bumps boolean NOT NULL DEFAULT false;
    CREATE INDEX transactions_parent ON transactions (parent_transaction_id) WHERE parent_transaction_id IS NOT NULL;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX transactions_parent;
    ALTER TABLE transactions DROP COLUMN items, DROP COLUMN parent_transaction_id;
    ALTER TABLE affiliate_programs DROP COLUMN commission_on_bumps;
    DROP TABLE checkout_offers;
    DROP TABLE checkouts;
    ALTER TABLE payment_links DROP COLUMN checkout_config;
    `,
  );
}
