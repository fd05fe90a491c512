// Rendered payment-link pages, kept compressed for a short time: every visitor of a slug gets the
// same HTML, so under load one database query, one render and one compression per slug per TTL
// serve every request (the checkout API re-checks everything, so a page a second or two stale
// costs nothing but a clear refusal): the requests that miss together share one making of it.
// Changes made through this process's API drop the entry at once (a page being made meanwhile is
// neither joined nor kept after it); other instances see them within the TTL.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { SharedReads } from '../db/shared-reads.ts';

export interface CachedPage {
  status: number;
  csp: string;
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
  /** Whether the page needs the device cookie (a payable link page). */
  cookie: boolean;
  expiresAt: number;
}

/** A page as rendered, before it is compressed and kept. */
export interface PageInput {
  status: number;
  csp: string;
  html: string;
  cookie: boolean;
}

export class PageCache {
  private map = new Map<string, CachedPage>();
  /** Pages being made, shared by the requests that missed meanwhile; a forget ends their sharing. */
  private making = new SharedReads<CachedPage | null>();
  private ttlMs: number;
  private max: number;
  constructor(ttlMs = 2000, max = 5000) {
    this.ttlMs = ttlMs;
    this.max = max;
  }

  private get(key: string, now = Date.now()): CachedPage | null {
    const hit = this.map.get(key);
    if (!hit) return null;
    if (hit.expiresAt <= now) {
      this.map.delete(key);
      return null;
    }
    return hit;
  }

  /** The page kept for `key`, or the one `make` makes (null: none), made once for all who ask meanwhile. */
  async load(key: string, make: () => Promise<PageInput | null>): Promise<CachedPage | null> {
    const hit = this.get(key);
    if (hit) return hit;
    return this.making.run(key, async (current) => {
      const page = await make();
      if (!page) return null;
      return current() ? this.put(key, page) : compressed(page, Date.now());
    });
  }

  /** Compresses once (brotli and gzip) and keeps the page until the TTL ends. */
  put(key: string, page: PageInput, now = Date.now()): CachedPage {
    const entry = compressed(page, now + this.ttlMs);
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, entry);
    return entry;
  }

  forget(key: string) {
    this.making.changed();
    this.map.delete(key);
  }
}

function compressed(page: PageInput, expiresAt: number): CachedPage {
  const identity = Buffer.from(page.html);
  return {
    status: page.status,
    csp: page.csp,
    cookie: page.cookie,
    identity,
    br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
    gzip: gzipSync(identity, { level: 6 }),
    expiresAt,
  };
}

/** The best encoding the client accepts among br and gzip (q=0 refuses), or identity. */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | 'identity' {
  if (!acceptEncoding) return 'identity';
  let br = false;
  let gzip = false;
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    if (name === 'br') br = true;
    else if (name === 'gzip' || name === '*') gzip = true;
  }
  return br ? 'br' : gzip ? 'gzip' : 'identity';
}
