import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Accounts, API keys, products and clients. Every merchant-owned table leads with user_id and
// carries livemode (false = development), and every index starts with user_id.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE users (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      email text NOT NULL,
      password_hash text NOT NULL,
      role text NOT NULL DEFAULT 'USER' CHECK (role IN ('USER', 'ADMIN')),
      referral_code text NOT NULL UNIQUE,
      referred_by uuid REFERENCES users(id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_email_lower ON users (lower(email));

    CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      name text NOT NULL,
      livemode boolean NOT NULL,
      permissions jsonb NOT NULL,
      prefix text NOT NULL,
      key_hash text NOT NULL UNIQUE,
      revoked_at timestamptz,
      last_used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX api_keys_user ON api_keys (user_id, created_at);

    CREATE TABLE products (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      name text NOT NULL,
      description text,
      price_cents bigint NOT NULL CHECK (price_cents >= 1),
      currency text NOT NULL DEFAULT 'BRL',
      stock_quantity integer CHECK (stock_quantity >= 0),
      stock_enabled boolean NOT NULL DEFAULT false,
      is_digital boolean NOT NULL DEFAULT false,
      image_url text,
      status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'INACTIVE')),
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX products_user_created ON products (user_id, livemode, created_at DESC, id DESC) WHERE deleted_at IS NULL;

    CREATE TABLE clients (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      name text NOT NULL,
      email text NOT NULL,
      document text NOT NULL,
      phone text,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX clients_user_document ON clients (user_id, livemode, document) WHERE deleted_at IS NULL;
    CREATE INDEX clients_user_created ON clients (user_id, livemode, created_at DESC, id DESC) WHERE deleted_at IS NULL;
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE clients;\nDROP TABLE products;\nDROP TABLE api_keys;\nDROP TABLE users;');
}
