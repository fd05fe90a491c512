// The public checkout of a payment link: the customer's order becomes a transaction in the link's
// merchant and environment through the one creation path (createTransaction), with the link's
// price, its payment-method and instalment settings, and the coupon if one applies.
import type { Static } from '@sinclair/typebox';
import type { Config } from '../../config.ts';
import type { Transaction } from '../../db/types.ts';
import { validation } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { attributedLink, withBodyCode, type Click } from '../affiliates/attribution.ts';
import { evaluateCoupon, invalidCoupon, reserveCouponUse, withCouponReservation } from '../coupons/service.ts';
import { payableLink } from '../payment-links/abandonments.ts';
import { linkTotal } from '../payment-links/service.ts';
import { bumpExtras, chosenBumps } from '../checkouts/offers.ts';
import { resolveSplit } from '../splits/rule.ts';
import { orderLines, spreadDiscount } from './order.ts';
import { makeOffer, type KeptCard } from './upsell.ts';
import { normalizeAddress } from '../transactions/draft.ts';
import { boletoView } from '../transactions/view.ts';
import { createTransaction, type CardGuard, type TransactionDeps } from '../transactions/service.ts';
import type { CheckoutBody, PublicTransaction, StatusResponse } from './schemas.ts';

type Body = Static<typeof CheckoutBody>;

/** Rate-limit hooks around coupon attempts (see coupons/limits.ts): valid coupons cost nothing. */
export interface CouponGuard {
  /** Before evaluating: 429 when the caller has no attempts left. */
  before(): Promise<void>;
  /** After an unusable code: counts the attempt. */
  failed(): Promise<void>;
}

/** The customer's limits: coupon guessing and card testing (checkout/limits.ts). */
export interface CheckoutGuards {
  coupon: CouponGuard;
  card: CardGuard;
}

/** A transaction's largest amount (CreateTransactionBody amountCents). */
const MAX_ORDER_CENTS = 100000000;

const METHOD_SETTING = { PIX: 'pixEnabled', BOLETO: 'boletoEnabled', CARD: 'creditCardEnabled' } as const;

/**
 * `clicks`: the affiliate clicks of the buyer's browser (its cookie); the body's `affiliateCode`
 * counts as a click now.
 */
export async function checkoutLink(
  deps: TransactionDeps,
  slug: string,
  body: Body,
  guard: CheckoutGuards,
  clicks: Click[] = [],
): Promise<{ tx: Transaction; redirectUrl: string | null }> {
  const pl = await payableLink(deps.db, slug);
  const { link, products } = pl;
  const settings = link.settings;
  if (!settings[METHOD_SETTING[body.paymentMethod]]) throw validation('paymentMethod', 'is not accepted by this payment link');
  if (settings.requirePhone && !body.clientPhone) throw validation('clientPhone', 'is required by this payment link');
  if (settings.requireAddress && !body.address) throw validation('address', 'is required by this payment link');
  if (body.paymentMethod === 'CARD' && !body.card) throw validation('card', 'is required for card payments');

  const bumps = chosenBumps(pl, body.orderBumps);
  const extras = bumpExtras(bumps);
  let lines = orderLines(pl, bumps);
  const mainCents = linkTotal(link, products);
  let amount = mainCents + extras.reduce((n, x) => n + x.cents, 0);
  if (amount > MAX_ORDER_CENTS) throw validation('orderBumps', `the order must be at most ${MAX_ORDER_CENTS} cents`);
  let coupon: { id: string; discountCents: number; reservation: string; affiliateLinkId: string | null } | null = null;
  const merchant: Scope = { userId: link.user_id, livemode: link.livemode };
  if (body.couponCode !== undefined) {
    await guard.coupon.before();
    const mainIds = products.map((p) => p.product_id);
    const result = await evaluateCoupon(
      deps.db,
      merchant,
      { code: body.couponCode, amountCents: mainCents, productIds: mainIds, extras },
      { document: body.clientDocument, email: body.clientEmail },
    );
    if (!result.ok) {
      await guard.coupon.failed();
      throw invalidCoupon();
    }
    if (result.finalCents < 1) throw validation('couponCode', 'leaves nothing to pay: a payment must be at least 1 cent');
    // The discount is granted only with a use reserved for it: checkouts in flight count against the limits.
    const reservation = await reserveCouponUse(deps.db, merchant, result.coupon.id, { document: body.clientDocument, email: body.clientEmail });
    if (!reservation) throw invalidCoupon();
    coupon = { id: result.coupon.id, discountCents: result.discountCents, reservation, affiliateLinkId: result.coupon.affiliate_link_id };
    amount = result.finalCents;
    const named = result.coupon.product_ids;
    const mainCovered = !named.length || mainIds.some((id) => named.includes(id));
    lines = spreadDiscount(lines, result.discountCents, (l) => (l.kind === 'MAIN' ? mainCovered : named.includes(l.productId ?? '')));
  }

  const address = body.address ? normalizeAddress(body.address, 'address') : null;
  if (body.paymentMethod === 'BOLETO' && !address && deps.connectors.needsPayerAddress(link.livemode)) throw validation('address', "is required to pay by boleto: a registered boleto carries the payer's address");
  const input = {
    product: link.title,
    amountCents: amount,
    clientName: body.clientName,
    clientEmail: body.clientEmail,
    clientDocument: body.clientDocument,
    clientPhone: body.clientPhone,
    paymentMethod: body.paymentMethod,
    installments: body.installments,
    card: body.card,
    trackingParams: body.trackingParams,
  };
  const now = new Date();
  // An affiliate coupon's affiliate wins over the cookie's and the body's clicks.
  const affiliateLinkId = await attributedLink(deps.db, merchant, products.map((p) => p.product_id), withBodyCode(clicks, body.affiliateCode, now), now, coupon?.affiliateLinkId ?? null);
  // The checkout's split over the link's; a recipient no longer allowed is left out (its share stays with the merchant).
  const split = await resolveSplit(deps.db, link.user_id, pl.checkout?.split ?? link.split, false);
  const checkout = { link, couponId: coupon?.id, discountCents: coupon?.discountCents ?? 0, address, affiliateLinkId, items: lines, split };
  // A card paying for a checkout with an upsell is kept by its connector first: the offer's one click charges it again.
  const kept = pl.upsell && body.card ? await keepCard(deps, link.livemode, body.card, body.clientEmail) : null;
  const create = (recorded?: (tx: Transaction) => Promise<void>) => createTransaction(deps, merchant, input, checkout, { cardGuard: guard.card, recorded });
  const tx = coupon ? await withCouponReservation(deps.db, merchant.userId, coupon.reservation, create) : await create();
  // The payment stands without its upsell: an offer that could not be written is logged, not answered.
  if (pl.upsell && tx.status !== 'FAILED') await makeOffer(deps.db, tx, pl.upsell, kept).catch((err) => deps.log.error({ err, transactionId: tx.id }, 'upsell offer not written'));
  return { tx, redirectUrl: link.redirect_url };
}

/** The card kept by the environment's card connector, or null when it keeps none (the upsell is then paid by PIX). */
async function keepCard(deps: TransactionDeps, livemode: boolean, card: NonNullable<Body['card']>, email: string): Promise<KeptCard | null> {
  const connector = deps.connectors.forNew(livemode, 'CARD');
  if (!connector.tokenizeCard) return null;
  try {
    const kept = await connector.tokenizeCard(card, { email });
    return { token: kept.token, brand: kept.brand, last4: kept.last4, connector: connector.name };
  } catch {
    return null;
  }
}

/** What the customer's browser may see of a transaction: no merchant or customer data. */
export function publicTransactionView(tx: Transaction, config: Config, redirectUrl: string | null): Static<typeof PublicTransaction> {
  const view: Static<typeof PublicTransaction> = {
    id: tx.id,
    status: tx.status,
    paymentMethod: tx.payment_method,
    amountCents: tx.amount_cents,
    discountCents: tx.discount_cents,
    chargedCents: tx.charged_cents,
    installments: tx.installments,
    installmentCents: tx.installment_cents,
    failureReason: tx.failure_reason,
    checkoutUrl: `${config.checkoutUrl}/checkout/${tx.id}`,
    redirectUrl,
  };
  if (tx.payment_method === 'PIX' && tx.pix_qr_code && tx.pix_txid) {
    view.pix = { qrCode: tx.pix_qr_code, qrCodeImage: `${config.baseUrl}/pix/${tx.pix_txid}/qr.png`, expiresAt: tx.expires_at ?? tx.created_at };
  }
  if (tx.payment_method === 'BOLETO') view.boleto = boletoView(tx, config);
  if (tx.paid_with) view.paidWith = tx.paid_with;
  if (tx.payment_method === 'CARD') view.card = { brand: tx.card_brand, last4: tx.card_last4 };
  return view;
}

/** The polled status; a boleto's tells whether its bank has issued it yet (its page waits for the numbers). */
export function statusView(row: Pick<Transaction, 'status' | 'payment_method' | 'boleto_barcode'>): Static<typeof StatusResponse> {
  if (row.payment_method !== 'BOLETO') return { status: row.status };
  return { status: row.status, boleto: row.boleto_barcode ? 'ISSUED' : 'ISSUING' };
}
