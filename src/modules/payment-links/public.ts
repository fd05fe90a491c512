// The public side of payment links: the link behind a slug as its page and checkout see it, with
// its checkout's settings applied over its own, its branding and its order bumps.
import { sql } from 'kysely';
import type { Executor } from '../../db/index.ts';
import type { Checkout, PaymentLink, PaymentLinkProduct } from '../../db/types.ts';
import { badRequest } from '../../http/errors.ts';
import { configView, pageBranding, type StoredConfig, type StoredCustomization } from '../branding/service.ts';
import { offerPrice, offerTitle, type OfferRow } from '../checkouts/offers.ts';
import { linkTotal, type LinkWithProducts } from './service.ts';

export type Unavailable = 'INACTIVE' | 'EXPIRED' | 'SOLD_OUT';

export interface PublicLink extends LinkWithProducts {
  merchantName: string;
  /** The link's checkout, if it has one; its settings are already applied to link.settings. */
  checkout: Checkout | null;
  /** The order bumps the page offers (none when the checkout hides them): active products at a price of at least 1 cent. */
  bumps: OfferRow[];
  /** The upsell offered after a payment, by the same rule. */
  upsell: OfferRow | null;
}

/** Why a link cannot be paid now, or null when it can. */
export function unavailableReason(link: PaymentLink, now = new Date()): Unavailable | null {
  if (link.status !== 'ACTIVE') return 'INACTIVE';
  if (link.expires_at && link.expires_at.getTime() <= now.getTime()) return 'EXPIRED';
  if (link.stock_enabled && (link.stock_quantity ?? 0) <= 0) return 'SOLD_OUT';
  return null;
}

/** Refuses a link that cannot be paid now: 400 INSUFFICIENT_STOCK (sold out) or PAYMENT_LINK_UNAVAILABLE (inactive, expired), on `field`. */
export function assertPayable(link: PaymentLink, field: string, now = new Date()): void {
  const reason = unavailableReason(link, now);
  if (reason === 'SOLD_OUT') throw badRequest('INSUFFICIENT_STOCK', 'This payment link is sold out', [{ field, message: 'no stock left' }]);
  if (reason) {
    const what = reason === 'EXPIRED' ? 'has expired' : 'is not active';
    throw badRequest('PAYMENT_LINK_UNAVAILABLE', `This payment link ${what}`, [{ field, message: what }]);
  }
}

type CheckoutJson = Omit<Checkout, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string };
type OfferJson = Omit<OfferRow, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string };

/** The link behind a public slug with its products and the merchant's name, in one query; null if unknown or archived. */
export async function findBySlug(db: Executor, slug: string): Promise<PublicLink | null> {
  const row = await db
    .selectFrom('payment_links as l')
    .innerJoin('users as u', 'u.id', 'l.user_id')
    .selectAll('l')
    .select([
      'u.name as merchant_name',
      sql<PaymentLinkProduct[] | null>`(SELECT json_agg(p ORDER BY p.position) FROM payment_link_products p WHERE p.user_id = l.user_id AND p.link_id = l.id)`.as('products_json'),
      sql<CheckoutJson | null>`(SELECT row_to_json(c) FROM checkouts c WHERE c.payment_link_id = l.id)`.as('checkout_json'),
      sql<OfferJson[] | null>`(SELECT json_agg(o ORDER BY o.position, o.id) FROM (
        SELECT o.*, p.name AS product_name, p.price_cents AS product_price FROM checkouts c
        JOIN checkout_offers o ON o.checkout_id = c.id
        JOIN products p ON p.id = o.product_id AND p.status = 'ACTIVE' AND p.deleted_at IS NULL
        WHERE c.payment_link_id = l.id) o)`.as('offers_json'),
    ])
    .where('l.slug', '=', slug)
    .where('l.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  const { merchant_name, products_json, checkout_json, offers_json, ...link } = row;
  // json_agg gives bigint columns as JSON numbers already; dates are not involved.
  const products = (products_json ?? []).map((p) => ({ ...p, unit_price_cents: Number(p.unit_price_cents) }));
  const checkout = checkout_json ? { ...checkout_json, created_at: new Date(checkout_json.created_at), updated_at: new Date(checkout_json.updated_at) } : null;
  if (checkout) {
    const { showOrderBumps: _shown, ...override } = checkout.settings;
    link.settings = { ...link.settings, ...override };
  }
  const offers = (offers_json ?? []).map((o) => ({ ...o, created_at: new Date(o.created_at), updated_at: new Date(o.updated_at) })).filter((o) => offerPrice(o) >= 1);
  const bumps = checkout?.settings.showOrderBumps ? offers.filter((o) => o.kind === 'BUMP') : [];
  return { link: link as PaymentLink, products, merchantName: merchant_name, checkout, bumps, upsell: offers.find((o) => o.kind === 'UPSELL') ?? null };
}

export function publicView(pl: PublicLink, now = new Date()) {
  const reason = unavailableReason(pl.link, now);
  const { link, products } = pl;
  return {
    slug: link.slug,
    title: link.title,
    description: link.description,
    productDescription: link.product_description,
    amount: link.amount_cents,
    totalCents: linkTotal(link, products),
    currency: link.currency,
    products: products.map((p) => ({ name: p.name, quantity: p.quantity, unitPriceCents: p.unit_price_cents })),
    settings: link.settings,
    expiresAt: link.expires_at,
    redirectUrl: link.redirect_url,
    metaPixelCode: link.meta_pixel_code,
    merchantName: pl.merchantName,
    checkoutConfig: configView((pl.checkout?.checkout_config ?? link.checkout_config) as StoredConfig | null),
    orderBumps: pageBumps(pl),
    available: reason === null,
    unavailableReason: reason,
    sandbox: !link.livemode,
  };
}

/** The order bumps as the page and the public view show them. */
export const pageBumps = (pl: PublicLink) =>
  pl.bumps.map((o) => ({ id: o.id, title: offerTitle(o), description: o.description, priceCents: offerPrice(o), originalPriceCents: o.product_price }));

/** What a link's pages draw of its brand, from the stored columns: the link's checkoutConfig under its checkout's. */
function brandOf(linkConfig: PaymentLink['checkout_config'], checkout: Pick<Checkout, 'customization' | 'checkout_config'> | null) {
  return pageBranding(linkConfig as StoredConfig | null, checkout ? { customization: checkout.customization as StoredCustomization, config: checkout.checkout_config as StoredConfig | null } : undefined);
}

export const linkBranding = (pl: PublicLink) => brandOf(pl.link.checkout_config, pl.checkout);

/** The brand of a link's pages by the link's id (its payment step and offers), or null for an unknown link. */
export async function brandingOfLink(db: Executor, linkId: string) {
  const row = await db
    .selectFrom('payment_links as l')
    .leftJoin('checkouts as c', 'c.payment_link_id', 'l.id')
    .select(['l.checkout_config as link_config', 'c.customization', 'c.checkout_config'])
    .where('l.id', '=', linkId)
    .executeTakeFirst();
  if (!row) return null;
  return brandOf(row.link_config, row.customization ? { customization: row.customization, checkout_config: row.checkout_config } : null);
}
