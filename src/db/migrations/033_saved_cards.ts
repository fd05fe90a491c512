import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Cards a merchant's client saved for one-click purchases (modules/cards): what the card connector
// gave back when it kept the card (its token, per connector: a token means nothing to another) and
// what may be shown (brand, last 4, expiry, holder). No PAN, no CVV: the connector holds those.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE saved_cards (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      client_id uuid NOT NULL REFERENCES clients(id),
      connector text NOT NULL,
      token text NOT NULL,
      brand text NOT NULL,
      last4 text NOT NULL,
      exp_month integer NOT NULL,
      exp_year integer NOT NULL,
      holder_name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX saved_cards_user_client ON saved_cards (user_id, livemode, client_id, created_at DESC, id DESC);
    CREATE INDEX saved_cards_user_created ON saved_cards (user_id, livemode, created_at DESC, id DESC);
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `DROP TABLE saved_cards;`);
}
