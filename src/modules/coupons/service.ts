// Discount coupons: the evaluation used by public validation and by checkout, and the reserved uses
// (the merchant's CRUD is in crud.ts). Evaluation is enumeration-resistant: whatever makes a code
// unusable (unknown, inactive, not yet valid, expired, used up, over the per-customer limit, below
// the minimum, wrong products), the answer is the same, and the same database work is done on every
// path.
import type { Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import { inTx, type Db, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Coupon, Transaction } from '../../db/types.ts';
import { AppError, badRequest, validation } from '../../http/errors.ts';
import { owned, type Scope } from '../../http/scope.ts';
import { validateDocument } from '../../payments/documents.ts';
import { bumpExtras, chosenBumps, type OfferRow, type OrderExtra } from '../checkouts/offers.ts';
import { findBySlug, unavailableReason } from '../payment-links/public.ts';
import { getLink, linkTotal } from '../payment-links/service.ts';
import type { ValidateBody } from './schemas.ts';

export const INVALID_COUPON_MESSAGE = 'Invalid or unavailable coupon';

/** Stands in for "no such merchant / coupon" so that every path runs the same queries. */
const NOBODY = '00000000-0000-0000-0000-000000000000';

export interface Identity {
  document?: string | null;
  email?: string | null;
}

export type Evaluation = { ok: true; coupon: Coupon; discountCents: number; finalCents: number } | { ok: false };

/** Whole-percent discounts round half up to the cent; capped by maxDiscountCents; never above the amount. */
export function discountFor(c: Pick<Coupon, 'discount_type' | 'discount_value' | 'max_discount_cents'>, amountCents: number): number {
  let d = c.discount_type === 'PERCENTAGE' ? Math.floor((amountCents * c.discount_value + 50) / 100) : c.discount_value;
  if (c.discount_type === 'PERCENTAGE' && c.max_discount_cents !== null) d = Math.min(d, c.max_discount_cents);
  return Math.max(0, Math.min(d, amountCents));
}

function normalizeIdentity(id: Identity): { document: string; email: string; given: boolean } {
  const doc = id.document ? validateDocument(id.document) : null;
  const document = doc?.ok ? doc.normalized : '';
  const email = id.email ? id.email.trim().toLowerCase() : '';
  return { document, email, given: !!(document || email) };
}

/**
 * Decides whether `code` gives a discount on this order. `merchant` null (nothing resolved) runs
 * the same two queries against a merchant that does not exist. Never throws for an unusable code.
 */
export async function evaluateCoupon(
  db: Executor,
  merchant: Scope | null,
  order: { code: string; amountCents: number; productIds: string[]; extras?: OrderExtra[] },
  identity: Identity,
  now = new Date(),
): Promise<Evaluation> {
  const who = normalizeIdentity(identity);
  const coupon = await db
    .selectFrom('coupons')
    .selectAll()
    .where('user_id', '=', merchant?.userId ?? NOBODY)
    .where('livemode', '=', merchant?.livemode ?? false)
    .where('code_lower', '=', order.code.trim().toLowerCase().slice(0, 200))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  // Always asked, also when there is no coupon or no customer to ask about.
  const uses = await usesBy(db, merchant?.userId ?? NOBODY, coupon?.id ?? NOBODY, who.document || '-', who.email || '-');

  if (!coupon) return { ok: false };
  const extras = order.extras ?? [];
  const extrasCents = extras.reduce((n, x) => n + x.cents, 0);
  const named = (ids: (string | null)[]) => ids.some((id) => id !== null && coupon.product_ids.includes(id));
  const t = now.getTime();
  const usable =
    coupon.status === 'ACTIVE' &&
    (!coupon.valid_from || coupon.valid_from.getTime() <= t) &&
    (!coupon.valid_until || coupon.valid_until.getTime() >= t) &&
    (coupon.usage_limit === null || coupon.used_count < coupon.usage_limit) &&
    (coupon.per_user_limit === null || !who.given || Number(uses) < coupon.per_user_limit) &&
    (coupon.min_purchase_cents === null || order.amountCents + extrasCents >= coupon.min_purchase_cents) &&
    (coupon.product_ids.length === 0 || named(order.productIds) || extras.some((x) => named([x.productId])));
  if (!usable) return { ok: false };
  const base = (coupon.product_ids.length === 0 || named(order.productIds) ? order.amountCents : 0) + extras.filter((x) => named([x.productId])).reduce((n, x) => n + x.cents, 0);
  const discountCents = discountFor(coupon, base);
  return { ok: true, coupon, discountCents, finalCents: order.amountCents + extrasCents - discountCents };
}

/** A customer's uses of a coupon (reserved or used; released ones gave theirs back), by document or e-mail. */
async function usesBy(db: Executor, userId: string, couponId: string, document: string, email: string): Promise<number> {
  const { uses } = await db
    .selectFrom('coupon_redemptions')
    .select((eb) => eb.fn.countAll<string>().as('uses'))
    .where('user_id', '=', userId)
    .where('coupon_id', '=', couponId)
    .where('status', 'in', ['RESERVED', 'USED'])
    .where((eb) => eb.or([eb('document', '=', document), eb('email', '=', email)]))
    .executeTakeFirstOrThrow();
  return Number(uses);
}

/** How long a reservation may wait for its transaction before the sweep gives the use back. */
export const UNLINKED_RESERVATION_MS = 10 * 60_000;

/**
 * Reserves one use of a coupon for a checkout about to be created, or says there is none left: the
 * coupon row is locked, so reservations of one coupon are made one at a time and never pass
 * usageLimit (used_count counts reserved and used) nor the customer's perUserLimit. Returns the
 * reservation's id, to link to the transaction once created (or release if creating it fails).
 */
export function reserveCouponUse(db: Db, merchant: Scope, couponId: string, customer: { document: string; email: string }, now = new Date()): Promise<string | null> {
  return inTx(db, (trx) => reserveUse(trx, merchant, couponId, customer, now, null));
}

async function reserveUse(trx: Trx, merchant: Scope, couponId: string, customer: { document: string; email: string }, now: Date, subscriptionId: string | null): Promise<string | null> {
  const document = normalizeIdentity({ document: customer.document }).document;
  const email = customer.email.trim().toLowerCase();
  const coupon = await owned(trx, 'coupons', merchant).selectAll().where('id', '=', couponId).forUpdate().executeTakeFirst();
  if (coupon?.status !== 'ACTIVE') return null;
  if (coupon.usage_limit !== null && coupon.used_count >= coupon.usage_limit) return null;
  if (coupon.per_user_limit !== null && (await usesBy(trx, merchant.userId, couponId, document || '-', email || '-')) >= coupon.per_user_limit) return null;
  await trx.updateTable('coupons').set({ used_count: sql`used_count + 1` }).where('id', '=', couponId).execute();
  const id = uuidv7(now.getTime());
  await trx
    .insertInto('coupon_redemptions')
    .values({ id, user_id: merchant.userId, coupon_id: couponId, transaction_id: null, subscription_id: subscriptionId, status: 'RESERVED', document, email, created_at: now })
    .execute();
  return id;
}

/**
 * Reserves a use of a coupon for a subscription being created, inside its database transaction
 * (false: none left, within usageLimit and the customer's perUserLimit). The subscription holds it
 * until its first charge is paid (redeemSubscriptionCoupon) or it ends first (releaseSubscriptionCoupon).
 */
export async function reserveSubscriptionCoupon(trx: Trx, merchant: Scope, couponId: string, customer: { document: string; email: string }, subscriptionId: string, now: Date): Promise<boolean> {
  return (await reserveUse(trx, merchant, couponId, customer, now, subscriptionId)) !== null;
}

/**
 * The subscription's first charge was paid (`tx`), or the coupon left nothing to pay (null): its
 * reserved use becomes USED. A subscription made before uses were reserved counts it now, never
 * beyond the coupon's limits.
 */
export async function redeemSubscriptionCoupon(trx: Trx, sub: { id: string; user_id: string; coupon_id: string; client_document: string; client_email: string }, tx: Transaction | null, now: Date): Promise<void> {
  const used = await trx
    .updateTable('coupon_redemptions')
    .set({ status: 'USED', transaction_id: tx?.id ?? null })
    .where('user_id', '=', sub.user_id)
    .where('subscription_id', '=', sub.id)
    .where('status', '=', 'RESERVED')
    .returning('id')
    .executeTakeFirst();
  if (used) return;
  const held = await trx.selectFrom('coupon_redemptions').select('id').where('user_id', '=', sub.user_id).where('subscription_id', '=', sub.id).executeTakeFirst();
  if (!held) await countLegacyUse(trx, { userId: sub.user_id, couponId: sub.coupon_id, document: sub.client_document, email: sub.client_email, transactionId: tx?.id ?? null, subscriptionId: sub.id }, now);
}

/** The subscription ended before its first charge was paid: the use it held goes back. */
export async function releaseSubscriptionCoupon(trx: Trx, userId: string, subscriptionId: string): Promise<void> {
  const held = await trx
    .selectFrom('coupon_redemptions')
    .select(['id', 'coupon_id'])
    .where('user_id', '=', userId)
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'RESERVED')
    .forUpdate()
    .executeTakeFirst();
  if (held) await release(trx, userId, held);
}

/** Links a reservation to the transaction created with it. */
export async function linkReservation(db: Executor, userId: string, reservationId: string, transactionId: string): Promise<void> {
  await db.updateTable('coupon_redemptions').set({ transaction_id: transactionId }).where('user_id', '=', userId).where('id', '=', reservationId).execute();
}

/** The one answer to a coupon that cannot be used (unknown, expired, used up, …): enumeration-resistant. */
export const invalidCoupon = () => badRequest('INVALID_COUPON', INVALID_COUPON_MESSAGE, [{ field: 'couponCode', message: INVALID_COUPON_MESSAGE }]);

/**
 * Creates a payment with a reserved coupon use following it: `create` gets the `recorded` callback
 * to pass on (it links the reservation to the transaction as soon as it is recorded, before a card is
 * charged); if nothing was created (a refusal, a failure) the use goes back.
 */
export async function withCouponReservation<T>(db: Db, userId: string, reservationId: string, create: (recorded: (tx: Transaction) => Promise<void>) => Promise<T>): Promise<T> {
  try {
    return await create((tx) => linkReservation(db, userId, reservationId, tx.id));
  } catch (err) {
    await releaseReservation(db, userId, reservationId).catch(() => {});
    throw err;
  }
}

/** Gives a reserved use back (its payment failed, expired, was cancelled, or was never created). */
async function release(trx: Trx, userId: string, redemption: { id: string; coupon_id: string }): Promise<void> {
  const released = await trx
    .updateTable('coupon_redemptions')
    .set({ status: 'RELEASED' })
    .where('user_id', '=', userId)
    .where('id', '=', redemption.id)
    .where('status', '=', 'RESERVED')
    .returning('id')
    .executeTakeFirst();
  if (released) await trx.updateTable('coupons').set({ used_count: sql`used_count - 1` }).where('id', '=', redemption.coupon_id).execute();
}

/** Releases a reservation whose transaction could not be created. */
export function releaseReservation(db: Db, userId: string, reservationId: string): Promise<void> {
  return inTx(db, async (trx) => {
    const r = await trx.selectFrom('coupon_redemptions').select(['id', 'coupon_id']).where('user_id', '=', userId).where('id', '=', reservationId).forUpdate().executeTakeFirst();
    if (r) await release(trx, userId, r);
  });
}

/** Sweep: reservations never linked to a transaction (their process died while creating it) give their use back. */
export async function releaseUnlinkedReservations(db: Db, now = new Date(), batch = 100): Promise<number> {
  return inTx(db, async (trx) => {
    const stale = await trx
      .selectFrom('coupon_redemptions')
      .select(['id', 'user_id', 'coupon_id'])
      .where('status', '=', 'RESERVED')
      .where('transaction_id', 'is', null)
      .where('subscription_id', 'is', null)
      .where('created_at', '<', new Date(now.getTime() - UNLINKED_RESERVATION_MS))
      .orderBy('created_at')
      .limit(batch)
      .forUpdate()
      .skipLocked()
      .execute();
    for (const r of stale) await release(trx, r.user_id, r);
    return stale.length;
  });
}

const ENDED = new Set(['FAILED', 'EXPIRED', 'CANCELLED']);

/**
 * A coupon's side of a payment's status change: a transaction hook (afterChange, wired by deps.ts),
 * inside the change's database transaction. Paid: its reserved use becomes USED. Failed, expired or
 * cancelled: the reserved use is given back. A paid transaction without a reservation (made before
 * reservations existed) counts its use as it is paid, never beyond usageLimit.
 */
export async function couponUseOnChange(trx: Trx, before: Transaction, tx: Transaction, now: Date): Promise<void> {
  // A subscription's charge: the subscription holds the use (redeemSubscriptionCoupon).
  if (!tx.coupon_id || tx.subscription_id || (before.status !== 'PENDING' && before.status !== 'AUTHORIZED')) return;
  const reserved = await trx
    .selectFrom('coupon_redemptions')
    .select(['id', 'coupon_id'])
    .where('user_id', '=', tx.user_id)
    .where('transaction_id', '=', tx.id)
    .where('status', '=', 'RESERVED')
    .forUpdate()
    .executeTakeFirst();
  if (tx.status === 'PAID') {
    if (reserved) await trx.updateTable('coupon_redemptions').set({ status: 'USED' }).where('id', '=', reserved.id).execute();
    else await countLegacyUse(trx, { userId: tx.user_id, couponId: tx.coupon_id, document: tx.client_document, email: tx.client_email, transactionId: tx.id, subscriptionId: null }, now);
  } else if (ENDED.has(tx.status) && reserved) {
    await release(trx, tx.user_id, reserved);
  }
}

/** The count at PAID of a use made without a reservation: the coupon row locked, never past its limits. */
async function countLegacyUse(
  trx: Trx,
  use: { userId: string; couponId: string; document: string; email: string; transactionId: string | null; subscriptionId: string | null },
  now: Date,
): Promise<void> {
  const coupon = await trx.selectFrom('coupons').selectAll().where('user_id', '=', use.userId).where('id', '=', use.couponId).forUpdate().executeTakeFirst();
  if (!coupon) return;
  if (coupon.per_user_limit !== null && (await usesBy(trx, use.userId, coupon.id, use.document, use.email)) >= coupon.per_user_limit) return;
  const counted = await trx
    .updateTable('coupons')
    .set({ used_count: sql`used_count + 1` })
    .where('id', '=', coupon.id)
    .where((eb) => eb.or([eb('usage_limit', 'is', null), eb('used_count', '<', eb.ref('usage_limit'))]))
    .returning('id')
    .executeTakeFirst();
  if (!counted) return;
  await trx
    .insertInto('coupon_redemptions')
    .values({ id: uuidv7(now.getTime()), user_id: use.userId, coupon_id: coupon.id, transaction_id: use.transactionId, subscription_id: use.subscriptionId, document: use.document, email: use.email, created_at: now })
    .execute();
}

/** A 404 (a link not found for this caller) as null; other failures as they are. */
const unlessNotFound = (err: unknown) => {
  if (err instanceof AppError && err.status === 404) return null;
  throw err;
};

/**
 * Public validation: finds the merchant from the link slug or the products (one query either way),
 * then evaluates the code. Unknown slugs, foreign products and unusable codes all end the same way.
 * With an API key (`caller`, origin compatibility) the key's merchant and environment is the scope:
 * no productIds are needed, and `paymentLinkId` (a link of that scope) works like the slug.
 */
export async function validatePublic(db: Executor, input: Static<typeof ValidateBody>, now = new Date(), caller: Scope | null = null) {
  if (input.amountCents !== undefined && input.amount !== undefined && input.amountCents !== input.amount) {
    throw validation('amount', `is an alias of amountCents and disagrees with it (${input.amount} against ${input.amountCents}): send one`);
  }
  let amount = input.amountCents ?? input.amount;
  let productIds = input.productIds ?? [];
  let extras: OrderExtra[] = [];
  let merchant: Scope | null = null;
  if (input.paymentLinkId !== undefined && !caller) throw validation('paymentLinkId', 'needs an API key; without one, send paymentLinkSlug');
  if (input.paymentLinkSlug !== undefined || input.paymentLinkId !== undefined) {
    const pl = input.paymentLinkId !== undefined ? await getLink(db, caller!, input.paymentLinkId).catch(unlessNotFound) : await findBySlug(db, input.paymentLinkSlug!.toLowerCase());
    const usable = pl && unavailableReason(pl.link, now) === null && (!caller || (pl.link.user_id === caller.userId && pl.link.livemode === caller.livemode));
    if (pl && usable) {
      merchant = { userId: pl.link.user_id, livemode: pl.link.livemode };
      amount ??= linkTotal(pl.link, pl.products);
      if (!input.productIds) productIds = pl.products.map((p) => p.product_id);
      if ('bumps' in pl) extras = bumpExtras(chosenBumps(pl as { bumps: OfferRow[] }, input.orderBumps));
    }
    amount ??= 0;
  } else if (caller) {
    if (amount === undefined) throw validation('amountCents', 'is required (or send paymentLinkSlug or paymentLinkId)');
    merchant = caller;
  } else {
    if (amount === undefined) throw validation('amountCents', 'is required (or send paymentLinkSlug)');
    const owners = await db
      .selectFrom('products')
      .select(['user_id', 'livemode'])
      .distinct()
      .where('id', 'in', productIds.length ? productIds : [NOBODY])
      .where('deleted_at', 'is', null)
      .execute();
    if (owners.length === 1) merchant = { userId: owners[0].user_id, livemode: owners[0].livemode };
  }
  const result = await evaluateCoupon(db, merchant, { code: input.code, amountCents: amount, productIds, extras }, { document: input.clientDocument, email: input.clientEmail }, now);
  if (!result.ok) return { valid: false as const, message: INVALID_COUPON_MESSAGE };
  const c = result.coupon;
  return {
    valid: true as const,
    discountAmount: result.discountCents,
    finalAmount: result.finalCents,
    coupon: { code: c.code, discountType: c.discount_type, discountValue: c.discount_value, description: c.description },
  };
}
