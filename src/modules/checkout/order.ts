// A hosted checkout's order: the link's main product (or its fixed price) and the order bumps the
// shopper ticked, as the transaction's lines. The lines add up to what the coupon leaves to pay; the
// coupon's discount is spread over the lines it was taken from (refunds of a line give back its share).
import type { TransactionItem } from '../../db/types.ts';
import { offerPrice, offerTitle, type OfferRow } from '../checkouts/offers.ts';
import type { PublicLink } from '../payment-links/public.ts';
import { linkTotal } from '../payment-links/service.ts';
import { lineCents } from '../transactions/view.ts';

/**
 * The order's lines before any coupon: the link's products, or one line at its fixed price (a link
 * priced by amountCents, with or without products describing it), then the ticked bumps.
 */
export function orderLines(pl: Pick<PublicLink, 'link' | 'products'>, bumps: OfferRow[]): TransactionItem[] {
  const { link, products } = pl;
  const main: TransactionItem[] =
    link.amount_cents === null
      ? products.map((p) => ({ kind: 'MAIN', productId: p.product_id, name: p.name, quantity: p.quantity, unitPriceCents: p.unit_price_cents, discountCents: 0 }))
      : [{ kind: 'MAIN', productId: products.length === 1 ? products[0].product_id : null, name: link.title, quantity: 1, unitPriceCents: linkTotal(link, products), discountCents: 0 }];
  const extra: TransactionItem[] = bumps.map((b) => ({ kind: 'BUMP', productId: b.product_id, name: offerTitle(b), quantity: 1, unitPriceCents: b.product_price, discountCents: b.product_price - offerPrice(b) }));
  return [...main, ...extra];
}

/**
 * Spreads a coupon's discount over the lines it applies to (`applies`), in proportion to their
 * amounts, the rounding left on the first of them; the lines then add up to the amount to pay.
 */
export function spreadDiscount(lines: TransactionItem[], discountCents: number, applies: (l: TransactionItem) => boolean): TransactionItem[] {
  const targets = lines.map((l, i) => ({ l, i })).filter(({ l }) => applies(l));
  const base = targets.reduce((n, { l }) => n + lineCents(l), 0);
  if (!discountCents || !base) return lines;
  const out = lines.map((l) => ({ ...l }));
  let left = discountCents;
  for (const { l, i } of targets.slice(1)) {
    const share = Math.floor((discountCents * lineCents(l)) / base);
    out[i].discountCents += share;
    left -= share;
  }
  out[targets[0].i].discountCents += left;
  return out;
}
