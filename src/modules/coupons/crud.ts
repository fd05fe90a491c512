// Discount coupons: the merchant's CRUD (create, read, update, archive, list). Evaluation and uses
// are in service.ts.
import type { Static } from '@sinclair/typebox';
import { inTx, type Executor } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Coupon } from '../../db/types.ts';
import { badRequest, notFound, validation, type FieldError } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import { sanitizeOptional } from '../../http/sanitize.ts';
import { likePattern, owned, ownedUpdate, type Scope } from '../../http/scope.ts';
import type { CreateCouponBody, ListCouponsQuery, UpdateCouponBody } from './schemas.ts';

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
    affiliateCode: c.affiliate_code,
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

/** An affiliate coupon's link: a code of an affiliate of one of the merchant's programs (null clears it). */
async function affiliateOf(db: Executor, scope: Scope, code: string | null) {
  if (code === null) return { affiliate_link_id: null, affiliate_code: null };
  // Read here rather than through the affiliates module, which depends on transactions (and they on coupons).
  const link = await db
    .selectFrom('affiliate_links as l')
    .innerJoin('affiliate_programs as ap', 'ap.id', 'l.program_id')
    .select(['l.id', 'l.code'])
    .where('l.code', '=', code.trim().toUpperCase())
    .where('ap.user_id', '=', scope.userId)
    .where('ap.livemode', '=', scope.livemode)
    .where('ap.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!link) throw validation('affiliateCode', 'is not the code of an affiliate of one of your programs');
  return { affiliate_link_id: link.id, affiliate_code: link.code };
}

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
  const affiliate = await affiliateOf(db, scope, input.affiliateCode ?? null);
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
        ...affiliate,
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
    const affiliate = input.affiliateCode !== undefined ? await affiliateOf(trx, scope, input.affiliateCode) : {};
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
          ...affiliate,
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
