// Merchant images (issue 37's branding): importImage fetches an image once from the merchant's
// address and keeps its bytes; the hosted pages show it from /media/{id} on our own host, so a
// shopper's browser never loads a merchant-chosen host and the pages keep img-src 'self'.
// docs/media.md says what is accepted and why.
import type { Config, WebhookConfig } from '../../config.ts';
import type { Db } from '../../db/index.ts';
import { UUID, uuidv7 } from '../../db/ids.ts';
import { validation } from '../../http/errors.ts';
import { parseTarget, TargetRefused, type Lookup } from '../../http/ssrf.ts';
import { createHash } from 'node:crypto';
import { fetchImage, ImageRefused } from './fetch.ts';

/** Whole fetch, from the name lookup to the last byte. */
export const IMPORT_TIMEOUT_MS = 5000;
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;
/** Longer addresses are refused before anything is fetched (the stored key stays small). */
export const MAX_SOURCE_URL_LENGTH = 2048;

/**
 * What importImage uses. The app's `Deps` is one (`importImage(deps, ...)`), or build it as
 * `{ db, config }` from the caller's own: `config.webhooks` gives the SSRF rules
 * (WEBHOOK_ALLOW_PRIVATE_TARGETS) and the extra CA (WEBHOOK_CA_FILE), as for webhooks.
 */
export interface MediaDeps {
  db: Db;
  config: Pick<Config, 'baseUrl' | 'checkoutUrl'> & { webhooks: Pick<WebhookConfig, 'allowPrivateTargets' | 'ca'> };
  /** Name resolution for the SSRF check; default DNS (tests inject one). */
  lookup?: Lookup;
}

export interface ImportedImage {
  id: string;
  /** Where the image is served on our own host: a path, so it works on BASE_URL and CHECKOUT_URL alike. */
  url: string;
}

export const mediaPath = (id: string) => `/media/${id}`;
const imported = (id: string): ImportedImage => ({ id, url: mediaPath(id) });

/**
 * The image at `sourceUrl` for merchant `merchantId`: fetched once (https only; http and private
 * addresses only with WEBHOOK_ALLOW_PRIVATE_TARGETS), at most 2 MiB within 5 s, no redirects, a PNG,
 * JPEG, WebP or GIF by its bytes, then stored; the same merchant and address again returns the
 * stored one without fetching. An address of one of the merchant's own images (`/media/{id}`, or
 * it under BASE_URL or CHECKOUT_URL: what a form read back sends again) is returned as it is.
 * Anything wrong throws the 400 VALIDATION_ERROR on `field`.
 *
 * Call it before opening the database transaction that saves the setting: it may wait up to 5 s on
 * the merchant's server, and it writes its row through `deps.db` (on PGlite a write on the root
 * handle inside a transaction deadlocks). A row whose setting is then not saved is simply reused
 * by the next save of that address.
 */
export async function importImage(deps: MediaDeps, merchantId: string, sourceUrl: string, field: string): Promise<ImportedImage> {
  const { db, config } = deps;
  const raw = sourceUrl.trim();
  const own = ownImageId(raw, config);
  if (own) {
    const row = await db.selectFrom('media_images').select('id').where('id', '=', own).where('user_id', '=', merchantId).executeTakeFirst();
    if (!row) throw validation(field, 'names an image on Cofre that this account did not import');
    return imported(row.id);
  }
  if (raw.length > MAX_SOURCE_URL_LENGTH) throw validation(field, `must be at most ${MAX_SOURCE_URL_LENGTH} characters`);
  let source: string;
  try {
    // The syntax rules first (https, no credentials), so a stored image is not returned for an
    // address the current settings refuse; the normalised form is the key of "fetched once".
    source = parseTarget(raw, config.webhooks.allowPrivateTargets).url.href;
  } catch (err) {
    if (err instanceof TargetRefused) throw validation(field, err.message);
    throw err;
  }
  const stored = await storedId(db, merchantId, source);
  if (stored) return imported(stored);

  let image: Awaited<ReturnType<typeof fetchImage>>;
  try {
    image = await fetchImage(source, { allowPrivate: config.webhooks.allowPrivateTargets, ca: config.webhooks.ca, lookup: deps.lookup, timeoutMs: IMPORT_TIMEOUT_MS, maxBytes: MAX_IMAGE_BYTES });
  } catch (err) {
    if (err instanceof ImageRefused) throw validation(field, err.message);
    throw err;
  }
  const row = await db
    .insertInto('media_images')
    .values({
      id: uuidv7(),
      user_id: merchantId,
      source_url: source,
      content_type: image.type,
      size_bytes: image.bytes.length,
      sha256: createHash('sha256').update(image.bytes).digest('hex'),
      content: image.bytes,
      created_at: new Date(),
    })
    .onConflict((oc) => oc.columns(['user_id', 'source_url']).doNothing())
    .returning('id')
    .executeTakeFirst();
  // A concurrent import of the same address stored it first: theirs is the one.
  return imported(row?.id ?? (await storedId(db, merchantId, source))!);
}

async function storedId(db: Db, merchantId: string, source: string): Promise<string | undefined> {
  const row = await db.selectFrom('media_images').select('id').where('user_id', '=', merchantId).where('source_url', '=', source).executeTakeFirst();
  return row?.id;
}

/** The id in `/media/{id}`, alone or under BASE_URL or CHECKOUT_URL; null for any other address. */
function ownImageId(raw: string, config: Pick<Config, 'baseUrl' | 'checkoutUrl'>): string | null {
  let path = raw;
  for (const origin of [config.baseUrl, config.checkoutUrl]) if (raw.startsWith(`${origin}/media/`)) path = raw.slice(origin.length);
  const id = /^\/media\/([^/?#]+)$/.exec(path)?.[1];
  return id && UUID.test(id) ? id.toLowerCase() : null;
}

export interface ServedImage {
  content: Buffer;
  contentType: string;
  sha256: string;
}

/** An image by id for /media/{id}; null for an unknown id (or not a UUID). */
export async function findImage(db: Db, id: string): Promise<ServedImage | null> {
  if (!UUID.test(id)) return null;
  const row = await db.selectFrom('media_images').select(['content', 'content_type', 'sha256']).where('id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) return null;
  // pg gives a Buffer, PGlite a Uint8Array: the same bytes either way, without a copy.
  const content = Buffer.isBuffer(row.content) ? row.content : Buffer.from(row.content.buffer, row.content.byteOffset, row.content.byteLength);
  return { content, contentType: row.content_type, sha256: row.sha256 };
}
