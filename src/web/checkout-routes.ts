// Hosted checkout pages and their one script: /pay/{slug}, /checkout/{transactionId}, /assets/checkout.js.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { UUID } from '../db/ids.ts';
import type { HttpApp } from '../http/app-type.ts';
import type { Db } from '../db/index.ts';
import type { Config } from '../config.ts';
import type { PageCache } from '../http/page-cache.ts';
import type { AffiliateDeps } from '../modules/affiliates/service.ts';
import { addClick, AFF_COOKIE, formatClicks, isCode, normalizeCode, parseClicks } from '../modules/affiliates/attribution.ts';
import { cookie, ensureDeviceCookie } from '../modules/coupons/limits.ts';
import { findForCheckoutPage } from '../modules/transactions/queries.ts';
import { openOffer } from '../modules/checkout/upsell.ts';
import { brandingOfLink, findBySlug, linkBranding, pageBumps, unavailableReason, type PublicLink } from '../modules/payment-links/public.ts';
import { linkTotal } from '../modules/payment-links/service.ts';
import type { ConnectorRegistry } from '../payments/registry.ts';
import { checkoutPage, messagePage, payPage, UNAVAILABLE_PT, type AssetRef, type PayPageData, type Rendered } from './checkout-pages.ts';
import { pickEncoding, type CachedPage } from '../http/page-cache.ts';
import { CHECKOUT_SCRIPT, CHECKOUT_SCRIPT_URL } from './assets.ts';

/** The hosted pages' one script, with its content hash in the URL (cached for a year). */
export const ASSETS: AssetRef = { scriptUrl: CHECKOUT_SCRIPT_URL };
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

/** How long the click cookie lives: the longest window a program can have (unlimited: 10 years). */
const AFF_COOKIE_SECONDS = 10 * 365 * 86_400;

/** The options of checkoutPageRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface CheckoutPageRouteDeps {
  db: Db;
  config: Config;
  pages: PageCache;
  affiliates: AffiliateDeps;
  /** Whether a link's environment registers boletos with the payer's address. */
  connectors: ConnectorRegistry;
}

/** A payable link's page, as /pay/{slug} renders it on a cache miss (the benchmark times this). */
export function linkPage(pl: PublicLink, env: Pick<PayPageData, 'needsPayerAddress' | 'boletoDueDays'>, assets: AssetRef): Rendered {
  const { link, products } = pl;
  return payPage(
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
      ...env,
      branding: linkBranding(pl),
      bumps: pageBumps(pl),
      salesCount: link.sales_count,
    },
    assets,
  );
}

export default async function checkoutPageRoutes(app: HttpApp, deps: CheckoutPageRouteDeps) {
  const { db, config, pages, affiliates, connectors } = deps;
  app.addHook('onClose', () => affiliates.clicks.flush());

  /**
   * A promotion URL's click (?aff=CODE): noted for the batched counter and added to the buyer's
   * click cookie; no database work on the page's path. Which program's window and rule apply is
   * decided at the checkout (affiliates/attribution.ts).
   */
  function recordClick(req: FastifyRequest, reply: FastifyReply) {
    const aff = (req.query as Record<string, unknown> | undefined)?.aff;
    if (typeof aff !== 'string' || !isCode(aff)) return;
    const code = normalizeCode(aff);
    affiliates.clicks.add(code, req.ip);
    const clicks = addClick(parseClicks(cookie(req, AFF_COOKIE)), { code, at: Math.floor(Date.now() / 1000) });
    reply.header('Set-Cookie', `${AFF_COOKIE}=${formatClicks(clicks)}; Path=/; Max-Age=${AFF_COOKIE_SECONDS}; HttpOnly; SameSite=Lax${secureCookie ? '; Secure' : ''}`);
  }
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
        .send(CHECKOUT_SCRIPT),
  );

  app.get(
    '/pay/:slug',
    {
      schema: {
        tags: ['Public'],
        operationId: 'getPaymentLinkPage',
        summary: 'Payment link checkout page (HTML, pt-BR)',
        params: Type.Object({ slug: Type.String({ maxLength: 200 }) }),
        response: HTML,
      },
    },
    async (req, reply) => {
      const slug = req.params.slug.toLowerCase();
      recordClick(req, reply);
      const page = await pages.load(slug, async () => {
        const pl = /^[a-z0-9-]{1,80}$/.test(slug) ? await findBySlug(db, slug) : null;
        if (!pl) return null;
        const reason = unavailableReason(pl.link);
        if (reason) return { status: 200, cookie: false, ...messagePage(assets, UNAVAILABLE_PT[reason][0], UNAVAILABLE_PT[reason][1], pl.merchantName) };
        return { status: 200, cookie: true, ...linkPage(pl, { needsPayerAddress: connectors.needsPayerAddress(pl.link.livemode), boletoDueDays: config.boleto.defaultDueDays }, assets) };
      });
      if (!page) return send(reply, 404, messagePage(assets, 'Link não encontrado', 'Confira o endereço recebido do vendedor.'));
      if (page.cookie) ensureDeviceCookie(req, reply, secureCookie);
      return sendCached(req, reply, page);
    },
  );

  app.get(
    '/checkout/:id',
    {
      schema: {
        tags: ['Public'],
        operationId: 'getCheckoutPage',
        summary: 'Payment step page of a transaction (HTML, pt-BR): PIX QR, boleto, or card form',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: HTML,
      },
    },
    async (req, reply) => {
      const id = req.params.id;
      const data = UUID.test(id) ? await findForCheckoutPage(db, id) : null;
      if (!data) return send(reply, 404, messagePage(assets, 'Pagamento não encontrado', 'Confira o endereço recebido do vendedor.'));
      const linkId = data.tx.payment_link_id;
      const [offer, branding] = linkId ? await Promise.all([openOffer(db, data.tx, config.checkoutLimits.upsellMinutes), brandingOfLink(db, linkId)]) : [null, null];
      return send(reply, 200, checkoutPage(data, assets, offer, branding));
    },
  );
}
