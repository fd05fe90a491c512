import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Merchant images (modules/media): a branding image (logo, background, banner) fetched once from the
// merchant's https address and served from our own host at /media/{id}, so a shopper's browser never
// loads a merchant-chosen host and the hosted pages keep img-src 'self'. One row per merchant and
// source address (the unique index: a second save of the same address reuses the row, fetching
// nothing); the bytes are kept with the type read from their magic bytes, never the server's word.
// No livemode: the image is the same public file in either environment, an account-level asset.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE media_images (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id),
      source_url text NOT NULL,
      content_type text NOT NULL,
      size_bytes integer NOT NULL,
      sha256 text NOT NULL,
      content bytea NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX media_images_source ON media_images (user_id, source_url);
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE media_images;');
}
