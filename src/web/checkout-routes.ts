// Hosted checkout pages and their one script: /pay/{slug}, /checkout/{transactionId}, /assets/checkout.js.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../deps.ts';
import { ensureDeviceCookie } from '../modules/coupons/limits.ts';
import { findForCheckoutPage } from '../modules/transactions/queries.ts';
import { findBySlug, linkTotal, unavailableReason } from '../modules/payment-links/service.ts';
import { checkoutPage, messagePage, payPage, UNAVAILABLE_PT, type AssetRef, type Rendered } from './checkout-pages.ts';
import { pickEncoding, type CachedPage } from '../http/page-cache.ts';

const SCRIPT = readFileSync(new URL('./assets/checkout.js', import.meta.url));
const SCRIPT_VERSION = createHash('sha256').update(SCRIPT).digest('hex').slice(0, 12);
/** The hosted pages' one script, with its content hash in the URL (cached for a year). */
export const ASSETS: AssetRef = { scriptUrl: `/assets/checkout.js?v=${SCRIPT_VERSION}` };
export const HTML = { 200: Type.String({ description: 'HTML page' }), 404: Type.String({ description: 'HTML page' }) };

function pageHeaders(reply: FastifyReply, status: number, csp: string) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('Content-Security-Policy', csp)
    .header('Cache-Control', 'private, no-cache')
    .header('Referrer-Policy', 'strict-origin-when-cross-origin')
    .header('X-Content-Type-Options', 'nosniff');
}

export function send(reply: FastifyReply, status: number, r: Rendered) {
  return pageHeaders(reply, status, r.csp)
    .serializer((x: unknown) => x as string)
    .send(r.html);
}

/** A cached page, already compressed in the encoding the client takes best. */
function sendCached(req: FastifyRequest, reply: FastifyReply, page: CachedPage) {
  const encoding = pickEncoding(req.headers['accept-encoding']);
  pageHeaders(reply, page.status, page.csp).header('Vary', 'Accept-Encoding');
  if (encoding !== 'identity') reply.header('Content-Encoding', encoding);
  return reply.send(encoding === 'br' ? page.br : encoding === 'gzip' ? page.gzip : page.identity);
}

export default async function checkoutPageRoutes(app: App) {
  const { db, config, pages } = app.deps;
  const assets = ASSETS;
  const secureCookie = config.checkoutUrl.startsWith('https://');

  app.get(
    '/assets/checkout.js',
    { schema: { hide: true } },
    async (_req, reply) =>
      reply
        .type('text/javascript; charset=utf-8')
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .header('X-Content-Type-Options', 'nosniff')
        .send(SCRIPT),
  );

  app.get(
    '/pay/:slug',
    {
      schema: {
        tags: ['Public'],
        summary: 'Payment link checkout page (HTML, pt-BR)',
        params: Type.Object({ slug: Type.String({ maxLength: 200 }) }),
        response: HTML,
      },
    },
    async (req, reply) => {
      const slug = req.params.slug.toLowerCase();
      const cached = pages.get(slug);
      if (cached) {
        if (cached.cookie) ensureDeviceCookie(req, reply, secureCookie);
        return sendCached(req, reply, cached);
      }
      const pl = /^[a-z0-9-]{1,80}$/.test(slug) ? await findBySlug(db, slug) : null;
      if (!pl) return send(reply, 404, messagePage(assets, 'Link não encontrado', 'Confira o endereço recebido do vendedor.'));
      const reason = unavailableReason(pl.link);
      if (reason) {
        const r = messagePage(assets, UNAVAILABLE_PT[reason][0], UNAVAILABLE_PT[reason][1], pl.merchantName);
        return sendCached(req, reply, pages.put(slug, { status: 200, csp: r.csp, html: r.html, cookie: false }));
      }
      ensureDeviceCookie(req, reply, secureCookie);
      const { link, products } = pl;
      const r = payPage(
        {
          slug: link.slug,
          title: link.title,
          description: link.description,
          productDescription: link.product_description,
          products: products.map((p) => ({ name: p.name, quantity: p.quantity, unitPriceCents: p.unit_price_cents })),
          totalCents: linkTotal(link, products),
          settings: link.settings,
          merchantName: pl.merchantName,
          redirectUrl: link.redirect_url,
          pixelCode: link.meta_pixel_code,
          sandbox: !link.livemode,
        },
        assets,
      );
      return sendCached(req, reply, pages.put(slug, { status: 200, csp: r.csp, html: r.html, cookie: true }));
    },
  );

  app.get(
    '/checkout/:id',
    {
      schema: {
        tags: ['Public'],
        summary: 'Payment step page of a transaction (HTML, pt-BR): PIX QR, boleto, or card form',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: HTML,
      },
    },
    async (req, reply) => {
      const id = req.params.id;
      const data = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? await findForCheckoutPage(db, id) : null;
      if (!data) return send(reply, 404, messagePage(assets, 'Pagamento não encontrado', 'Confira o endereço recebido do vendedor.'));
      return send(reply, 200, checkoutPage(data, assets));
    },
  );
}
