// GET /media/{id}: a merchant's imported image, public (the hosted pages show it to shoppers), from
// our own host. An id's bytes never change, so browsers keep it for a year and this process keeps
// the most recently served ones in memory.
import { Type } from '@sinclair/typebox';
import type { Db } from '../../db/index.ts';
import type { HttpApp } from '../../http/app-type.ts';
import { findImage, type ServedImage } from './service.ts';

/** The options of mediaRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface MediaRouteDeps {
  db: Db;
}

/** Served images kept in memory, least recently served dropped first, up to a total size. */
export class ImageCache {
  private map = new Map<string, ServedImage>();
  private bytes = 0;
  private maxBytes: number;
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }
  get(id: string): ServedImage | undefined {
    const hit = this.map.get(id);
    if (hit) {
      this.map.delete(id);
      this.map.set(id, hit); // most recently served goes last
    }
    return hit;
  }
  put(id: string, image: ServedImage) {
    if (image.content.length > this.maxBytes || this.map.has(id)) return;
    this.map.set(id, image);
    this.bytes += image.content.length;
    for (const [key, old] of this.map) {
      if (this.bytes <= this.maxBytes) break;
      this.map.delete(key);
      this.bytes -= old.content.length;
    }
  }
}

/** Enough for the logos and banners of the pages being visited at a time; each image is at most 2 MiB. */
const CACHE_BYTES = 32 * 1024 * 1024;

const IMAGE = Type.Unsafe({ type: 'string', contentMediaType: 'image/*', description: 'The image (PNG, JPEG, WebP or GIF)' });

export default async function mediaRoutes(app: HttpApp, deps: MediaRouteDeps) {
  const { db } = deps;
  const cache = new ImageCache(CACHE_BYTES);

  app.get(
    '/media/:id',
    {
      schema: {
        tags: ['Public'],
        operationId: 'getMediaImage',
        summary: "A merchant's image (logo, background, banner) shown on the hosted pages",
        description:
          'Public, no credentials. The bytes Cofre fetched once from the address the merchant gave, with the type read from them; ' +
          'they never change, so the answer may be cached for a year. 304 when If-None-Match names its ETag; 404 for an unknown id.',
        // Any text: an id that is not a UUID is an image that does not exist (404), not a malformed request.
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 200: IMAGE, 304: Type.Null({ description: 'Not modified' }), 404: Type.Ref('Error') },
      },
    },
    async (req, reply) => {
      const id = req.params.id.toLowerCase();
      let image = cache.get(id);
      if (!image) {
        image = (await findImage(db, id)) ?? undefined;
        if (!image) return reply.code(404).send({ message: 'Image not found' });
        cache.put(id, image);
      }
      const etag = `"${image.sha256}"`;
      reply
        .header('ETag', etag)
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .header('X-Content-Type-Options', 'nosniff')
        // A browser opening the image by itself runs nothing: the bytes are an image, never a document.
        .header('Content-Security-Policy', "default-src 'none'");
      const match = req.headers['if-none-match'];
      if (match?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) return reply.code(304).send(null);
      return reply.type(image.contentType).send(image.content);
    },
  );
}
