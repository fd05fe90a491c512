// Merchant images (modules/media): fetched once from the merchant's address, served at /media/{id}.
import type { Selectable } from 'kysely';
import type { Timestamp } from './columns.ts';

export interface MediaImagesTable {
  id: string;
  user_id: string;
  /** The merchant's https address, normalised (URL.href): with user_id, what makes a second import reuse the row. */
  source_url: string;
  /** Read from the bytes' magic numbers: image/png, image/jpeg, image/webp or image/gif. */
  content_type: string;
  size_bytes: number;
  /** Lowercase hex SHA-256 of the bytes (the ETag). */
  sha256: string;
  content: Uint8Array;
  created_at: Timestamp;
}

export type MediaImage = Selectable<MediaImagesTable>;
