// Discount coupons: merchant CRUD, and the evaluation used by public validation and by checkout.
// Evaluation is enumeration-resistant: whatever makes a code unusable (unknown, inactive, not yet
// valid, expired, used up, over the per-customer limit, below the minimum, wrong products), the
// answer is the same, and the same database work is done on every path.
import type { Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import { inTx, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Coupon, Transaction } from '../../db/types.ts';
import { badRequest, notFound, validation, type FieldError } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import { sanitizeOptional } from '../../http/sanitize.ts';
import { likePattern, owned, ownedUpdate, type Scope } from '../../http/scope.ts';
import { validateDocument } from '../../payments/documents.ts';
import { findBySlug, linkTotal, unavailableReason } from '../payment-links/service.ts';
import type { CreateCouponBody, ListCouponsQuery, UpdateCouponBody, ValidateBody } from './schemas.ts';

export const INVALID_COUPON_MESSAGE = 'Invalid or unavailable coupon';

/** Stands in for "no such merchant / coupon" so that every path runs the same queries. */
const NOBODY = '00000000-0000-0000-0000-000000000000';

export function couponView(c: Coupon) {
  return {
    id: c.id,
    code: c.code,
    discountType: c.discount_type,
    discountValue: c.discount_value,
    description: c.description,
    minPurchaseCents: c.min_purchase_cents,
    maxDiscountCents: c.max_discount_cents,
    usageLimit: c.usage_limit,
    perUserLimit: c.per_user_limit,
    validFrom: c.valid_from,
    validUntil: c.valid_until,
    productIds: c.product_ids,
    subscriptionCycles: c.subscription_cycles,
    status: c.status,
    usedCount: c.used_count,
    livemode: c.livemode,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
  };
}

const codeTaken = () => badRequest('COUPON_ALREADY_EXISTS', 'A coupon with this code already exists', [{ field: 'code', message: 'is already used by another coupon (codes are case-insensitive)' }]);
const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

interface CouponState {
  discount_type: 'PERCENTAGE' | 'FIXED';
  discount_value: number;
  valid_from: Date | null;
  valid_until: Date | null;
  min_purchase_cents: number | null;
  max_discount_cents: number | null;
}

function checkRules(c: CouponState) {
  const problems: FieldError[] = [];
  if (c.discount_type === 'PERCENTAGE' && c.discount_value > 100) problems.push({ field: 'discountValue', message: 'a PERCENTAGE discount is a whole percent from 0 to 100' });
  if (c.valid_from && c.valid_until && c.valid_from.getTime() >= c.valid_until.getTime()) problems.push({ field: 'validUntil', message: 'must be after validFrom' });
  if (problems.length) throw badRequest('VALIDATION_ERROR', 'Validation failed', problems);
}

async function checkProducts(db: Executor, scope: Scope, ids: string[]) {
  if (!ids.length) return;
  const found = await owned(db, 'products', scope)
    .select('id')
    .where('id', 'in', ids)
    .execute();
  const known = new Set(found.map((p) => p.id));
  const problems = ids.flatMap((id, i) => (known.has(id) ? [] : [{ field: `productIds.${i}`, message: 'is not a product of this merchant and environment' }]));
  if (problems.length) throw badRequest('VALIDATION_ERROR', 'Validation failed', problems);
}

const date = (s: string | null | undefined) => (s ? new Date(s) : null);

export async function createCoupon(db: Executor, scope: Scope, input: Static<typeof CreateCouponBody>): Promise<Coupon> {
  const state: CouponState = {
    discount_type: input.discountType,
    discount_value: input.discountValue,
    valid_from: date(input.validFrom),
    valid_until: date(input.validUntil),
    min_purchase_cents: input.minPurchaseCents ?? null,
    max_discount_cents: input.maxDiscountCents ?? null,
  };
  checkRules(state);
  const productIds = input.productIds ?? [];
  await checkProducts(db, scope, productIds);
  const now = new Date();
  try {
    return await db
      .insertInto('coupons')
      .values({
        id: uuidv7(now.getTime()),
        user_id: scope.userId,
        livemode: scope.livemode,
        code: input.code,
        code_lower: input.code.toLowerCase(),
        ...state,
        description: sanitizeOptional(input.description) ?? null,
        usage_limit: input.usageLimit ?? null,
        per_user_limit: input.perUserLimit ?? null,
        product_ids: JSON.stringify(productIds),
        subscription_cycles: input.subscriptionCycles ?? null,
        status: input.status ?? 'ACTIVE',
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err)) throw codeTaken();
    throw err;
  }
}

function findCoupon(db: Executor, scope: Scope, id: string) {
  return owned(db, 'coupons', scope)
    .selectAll()
    .where('id', '=', id);
}

export async function getCoupon(db: Executor, scope: Scope, id: string): Promise<Coupon> {
  const c = await findCoupon(db, scope, id).executeTakeFirst();
  if (!c) throw notFound('Coupon');
  return c;
}

export async function updateCoupon(db: Executor, scope: Scope, id: string, input: Static<typeof UpdateCouponBody>): Promise<Coupon> {
  return inTx(db, async (trx) => {
    const current = await findCoupon(trx, scope, id).forUpdate().executeTakeFirst();
    if (!current) throw notFound('Coupon');
    const state: CouponState = {
      discount_type: input.discountType ?? current.discount_type,
      discount_value: input.discountValue ?? current.discount_value,
      valid_from: input.validFrom !== undefined ? date(input.validFrom) : current.valid_from,
      valid_until: input.validUntil !== undefined ? date(input.validUntil) : current.valid_until,
      min_purchase_cents: input.minPurchaseCents !== undefined ? input.minPurchaseCents : current.min_purchase_cents,
      max_discount_cents: input.maxDiscountCents !== undefined ? input.maxDiscountCents : current.max_discount_cents,
    };
    checkRules(state);
    if (input.usageLimit != null && input.usageLimit < current.used_count) {
      throw validation('usageLimit', `cannot be below the ${current.used_count} uses already made`);
    }
    if (input.productIds) await checkProducts(trx, scope, input.productIds);
    try {
      return await ownedUpdate(trx, 'coupons', scope, id)
        .set({
          ...state,
          ...(input.code !== undefined && { code: input.code, code_lower: input.code.toLowerCase() }),
          ...(input.description !== undefined && { description: sanitizeOptional(input.description) ?? null }),
          ...(input.usageLimit !== undefined && { usage_limit: input.usageLimit }),
          ...(input.perUserLimit !== undefined && { per_user_limit: input.perUserLimit }),
          ...(input.productIds !== undefined && { product_ids: JSON.stringify(input.productIds) }),
          ...(input.subscriptionCycles !== undefined && { subscription_cycles: input.subscriptionCycles }),
          ...(input.status !== undefined && { status: input.status }),
          updated_at: new Date(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    } catch (err) {
      if (isUniqueViolation(err)) throw codeTaken();
      throw err;
    }
  });
}

/** Archives the coupon: it stops working at once and its code can be used again. */
export async function deleteCoupon(db: Executor, scope: Scope, id: string): Promise<void> {
  const now = new Date();
  const res = await ownedUpdate(db, 'coupons', scope, id)
    .set({ deleted_at: now, status: 'INACTIVE', updated_at: now })
    .executeTakeFirst();
  if (!res.numUpdatedRows) throw notFound('Coupon');
}

export async function listCoupons(db: Executor, scope: Scope, q: Static<typeof ListCouponsQuery>) {
  let base = owned(db, 'coupons', scope);
  if (q.status) base = base.where('status', '=', q.status);
  else if (!q.includeInactive) base = base.where('status', '=', 'ACTIVE');
  if (q.search) base = base.where('code_lower', 'like', likePattern(q.search.toLowerCase()));
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { rows, pagination: pageInfo(q.page, q.limit, Number(total)) };
}

// ---------------------------------------------------------------------------------------------
// Evaluation

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
  order: { code: string; amountCents: number; productIds: string[] },
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
  const { uses } = await db
    .selectFrom('coupon_redemptions')
    .select((eb) => eb.fn.countAll<string>().as('uses'))
    .where('user_id', '=', merchant?.userId ?? NOBODY)
    .where('coupon_id', '=', coupon?.id ?? NOBODY)
    .where((eb) => eb.or([eb('document', '=', who.document || '-'), eb('email', '=', who.email || '-')]))
    .executeTakeFirstOrThrow();

  if (!coupon) return { ok: false };
  const t = now.getTime();
  const usable =
    coupon.status === 'ACTIVE' &&
    (!coupon.valid_from || coupon.valid_from.getTime() <= t) &&
    (!coupon.valid_until || coupon.valid_until.getTime() >= t) &&
    (coupon.usage_limit === null || coupon.used_count < coupon.usage_limit) &&
    (coupon.per_user_limit === null || !who.given || Number(uses) < coupon.per_user_limit) &&
    (coupon.min_purchase_cents === null || order.amountCents >= coupon.min_purchase_cents) &&
    (coupon.product_ids.length === 0 || order.productIds.some((id) => coupon.product_ids.includes(id)));
  if (!usable) return { ok: false };
  const discountCents = discountFor(coupon, order.amountCents);
  return { ok: true, coupon, discountCents, finalCents: order.amountCents - discountCents };
}

/**
 * Counts a coupon use when its transaction is paid: a transaction hook (afterChange, wired by
 * deps.ts), inside the PAID transition's database transaction. The coupon row is locked, so concurrent payments count one at a time and
 * used_count never passes usageLimit (a CHECK constraint backs this up). A payment that finds the
 * coupon used up, or its customer at perUserLimit, still completes at the price it was offered:
 * the discount was granted at checkout; only the count stops.
 */
export async function countCouponUse(trx: Trx, before: Transaction, tx: Transaction, now: Date): Promise<boolean> {
  if (!tx.coupon_id || tx.status !== 'PAID' || before.status === 'PAID') return false;
  const coupon = await trx.selectFrom('coupons').selectAll().where('user_id', '=', tx.user_id).where('id', '=', tx.coupon_id).forUpdate().executeTakeFirst();
  if (!coupon) return false;
  if (coupon.per_user_limit !== null) {
    const { uses } = await trx
      .selectFrom('coupon_redemptions')
      .select((eb) => eb.fn.countAll<string>().as('uses'))
      .where('user_id', '=', tx.user_id)
      .where('coupon_id', '=', coupon.id)
      .where((eb) => eb.or([eb('document', '=', tx.client_document), eb('email', '=', tx.client_email)]))
      .executeTakeFirstOrThrow();
    if (Number(uses) >= coupon.per_user_limit) return false;
  }
  const counted = await trx
    .updateTable('coupons')
    .set({ used_count: sql`used_count + 1` })
    .where('id', '=', coupon.id)
    .where((eb) => eb.or([eb('usage_limit', 'is', null), eb('used_count', '<', eb.ref('usage_limit'))]))
    .returning('id')
    .executeTakeFirst();
  if (!counted) return false;
  await trx
    .insertInto('coupon_redemptions')
    .values({ id: uuidv7(now.getTime()), user_id: tx.user_id, coupon_id: coupon.id, transaction_id: tx.id, document: tx.client_document, email: tx.client_email, created_at: now })
    .execute();
  return true;
}

/**
 * Public validation: finds the merchant from the link slug or the products (one query either way),
 * then evaluates the code. Unknown slugs, foreign products and unusable codes all end the same way.
 */
export async function validatePublic(db: Executor, input: Static<typeof ValidateBody>, now = new Date()) {
  let amount = input.amountCents ?? input.amount;
  let productIds = input.productIds ?? [];
  let merchant: Scope | null = null;
  if (input.paymentLinkSlug !== undefined) {
    const pl = await findBySlug(db, input.paymentLinkSlug.toLowerCase());
    if (pl && unavailableReason(pl.link, now) === null) {
      merchant = { userId: pl.link.user_id, livemode: pl.link.livemode };
      amount ??= linkTotal(pl.link, pl.products);
      if (!input.productIds) productIds = pl.products.map((p) => p.product_id);
    }
    amount ??= 0;
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
  const result = await evaluateCoupon(db, merchant, { code: input.code, amountCents: amount, productIds }, { document: input.clientDocument, email: input.clientEmail }, now);
  if (!result.ok) return { valid: false as const, message: INVALID_COUPON_MESSAGE };
  const c = result.coupon;
  return {
    valid: true as const,
    discountAmount: result.discountCents,
    finalAmount: result.finalCents,
    coupon: { code: c.code, discountType: c.discount_type, discountValue: c.discount_value, description: c.description },
  };
}
