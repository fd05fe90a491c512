import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Payment links (hosted checkout), their products, coupons and their redemptions, cart
// abandonments; transactions learn which link and coupon they came through. Every index leads with
// user_id, except the global unique slug (a public URL is looked up by slug alone).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE payment_links (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      slug text NOT NULL,
      title text NOT NULL,
      description text,
      product_description text,
      amount_cents bigint CHECK (amount_cents BETWEEN 1 AND 100000000),
      currency text NOT NULL DEFAULT 'BRL',
      status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE','INACTIVE')),
      expires_at timestamptz,
      redirect_url text,
      settings jsonb NOT NULL,
      stock_enabled boolean NOT NULL DEFAULT false,
      stock_quantity integer CHECK (stock_quantity >= 0),
      meta_pixel_code text CHECK (meta_pixel_code ~ '^[0-9]{5,20}$'),
      sales_count integer NOT NULL DEFAULT 0,
      times_used integer NOT NULL DEFAULT 0,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX payment_links_slug ON payment_links (slug);
    CREATE INDEX payment_links_user_created ON payment_links (user_id, livemode, created_at, id) WHERE deleted_at IS NULL;

    CREATE TABLE payment_link_products (
      user_id uuid NOT NULL REFERENCES users(id),
      link_id uuid NOT NULL REFERENCES payment_links(id),
      product_id uuid NOT NULL REFERENCES products(id),
      position integer NOT NULL,
      name text NOT NULL,
      quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 1000),
      unit_price_cents bigint NOT NULL CHECK (unit_price_cents >= 1),
      PRIMARY KEY (user_id, link_id, product_id)
    );

    CREATE TABLE coupons (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      code text NOT NULL,
      code_lower text NOT NULL,
      discount_type text NOT NULL CHECK (discount_type IN ('PERCENTAGE','FIXED')),
      discount_value bigint NOT NULL CHECK (discount_value >= 0),
      description text,
      min_purchase_cents bigint CHECK (min_purchase_cents >= 0),
      max_discount_cents bigint CHECK (max_discount_cents >= 0),
      usage_limit integer CHECK (usage_limit >= 1),
      per_user_limit integer CHECK (per_user_limit >= 1),
      valid_from timestamptz,
      valid_until timestamptz,
      product_ids jsonb NOT NULL DEFAULT '[]',
      status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE','INACTIVE')),
      used_count integer NOT NULL DEFAULT 0,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK (usage_limit IS NULL OR used_count <= usage_limit)
    );
    CREATE UNIQUE INDEX coupons_user_code ON coupons (user_id, livemode, code_lower) WHERE deleted_at IS NULL;
    CREATE INDEX coupons_user_created ON coupons (user_id, livemode, created_at DESC, id DESC) WHERE deleted_at IS NULL;

    CREATE TABLE coupon_redemptions (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      coupon_id uuid NOT NULL REFERENCES coupons(id),
      transaction_id uuid NOT NULL REFERENCES transactions(id),
      document text NOT NULL,
      email text NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX coupon_redemptions_user_tx ON coupon_redemptions (user_id, transaction_id);
    CREATE INDEX coupon_redemptions_user_document ON coupon_redemptions (user_id, coupon_id, document);
    CREATE INDEX coupon_redemptions_user_email ON coupon_redemptions (user_id, coupon_id, email);

    CREATE TABLE cart_abandonments (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      link_id uuid NOT NULL REFERENCES payment_links(id),
      client_email text NOT NULL,
      client_name text,
      client_document text,
      client_phone text,
      recovered_at timestamptz,
      transaction_id uuid REFERENCES transactions(id),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX cart_abandonments_user_open ON cart_abandonments (user_id, link_id, client_email) WHERE recovered_at IS NULL;
    CREATE INDEX cart_abandonments_user_created ON cart_abandonments (user_id, livemode, created_at, id);

    ALTER TABLE transactions ADD COLUMN coupon_id uuid REFERENCES coupons(id);
    ALTER TABLE transactions ADD COLUMN discount_cents bigint NOT NULL DEFAULT 0 CHECK (discount_cents >= 0);
    ALTER TABLE transactions ADD COLUMN address jsonb;
    ALTER TABLE transactions ADD CONSTRAINT transactions_payment_link_fk FOREIGN KEY (payment_link_id) REFERENCES payment_links(id);
    CREATE INDEX transactions_user_link ON transactions (user_id, payment_link_id, created_at, id) WHERE payment_link_id IS NOT NULL;
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX transactions_user_link;
    ALTER TABLE transactions DROP CONSTRAINT transactions_payment_link_fk;
    ALTER TABLE transactions DROP COLUMN address;
    ALTER TABLE transactions DROP COLUMN discount_cents;
    ALTER TABLE transactions DROP COLUMN coupon_id;
    DROP TABLE cart_abandonments;
    DROP TABLE coupon_redemptions;
    DROP TABLE coupons;
    DROP TABLE payment_link_products;
    DROP TABLE payment_links;
  `,
  );
}
