import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// An upsell (or its downsell) offered to the shopper of one payment (modules/checkout/upsell.ts):
// what is offered at what price, copied when the checkout was made; OPEN until accepted (its own
// transaction, transaction_id) or declined. An upsell expires a while after its payment's paid_at,
// a downsell at expires_at. card_*: the card of a card payment kept by its connector for the one
// click, dropped once the offer is decided.
// refunds.items: the order lines (transactions.items positions) a refund gave back, when it named them.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE upsell_offers (
      id uuid PRIMARY KEY,
      parent_transaction_id uuid NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
      user_id uuid NOT NULL,
      livemode boolean NOT NULL,
      kind text NOT NULL CHECK (kind IN ('UPSELL', 'DOWNSELL')),
      product_id uuid NOT NULL,
      title text NOT NULL,
      description text,
      price_cents bigint NOT NULL,
      list_price_cents bigint NOT NULL,
      status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'ACCEPTED', 'DECLINED')),
      expires_at timestamptz,
      card_token text,
      card_brand text,
      card_last4 text,
      card_connector text,
      transaction_id uuid,
      decided_at timestamptz,
      created_at timestamptz NOT NULL,
      UNIQUE (parent_transaction_id, kind)
    );
    ALTER TABLE refunds ADD COLUMN items jsonb;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE refunds DROP COLUMN items; DROP TABLE upsell_offers;');
}
