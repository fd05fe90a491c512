import { Type, type Static } from '@sinclair/typebox';
import type { App } from '../../deps.ts';
import type { Executor } from '../../db/index.ts';
import { AppError, validation } from '../../http/errors.ts';
import { errors, IdParams, Message } from '../../http/schemas.ts';
import type { Scope } from '../../http/scope.ts';
import { findBySlug, getLink, linkTotal, unavailableReason } from '../payment-links/service.ts';
import { hitCouponLimits } from './limits.ts';
import {
  CouponListResponse,
  CouponResponse,
  CreateCouponBody,
  InvalidResponse,
  ListCouponsQuery,
  UpdateCouponBody,
  ValidateBody,
  ValidResponse,
} from './schemas.ts';
import { couponView, createCoupon, deleteCoupon, evaluateCoupon, getCoupon, INVALID_COUPON_MESSAGE, listCoupons, updateCoupon } from './service.ts';

const NOBODY = '00000000-0000-0000-0000-000000000000';

/** A 404 (a link not found for this caller) as null; other failures as they are. */
const unlessNotFound = (err: unknown) => {
  if (err instanceof AppError && err.status === 404) return null;
  throw err;
};

/**
 * Public validation: finds the merchant from the link slug or the products (one query either way),
 * then evaluates the code. Unknown slugs, foreign products and unusable codes all end the same way.
 */
export async function validatePublic(db: Executor, input: Static<typeof ValidateBody>, now = new Date(), caller: Scope | null = null) {
  let amount = input.amountCents ?? input.amount;
  let productIds = input.productIds ?? [];
  let merchant: Scope | null = null;
  if (input.paymentLinkId !== undefined && !caller) throw validation('paymentLinkId', 'needs an API key; without one, send paymentLinkSlug');
  if (input.paymentLinkSlug !== undefined || input.paymentLinkId !== undefined) {
    // With an API key (caller), only a link of the key's merchant and environment counts.
    const pl = input.paymentLinkId !== undefined ? await getLink(db, caller!, input.paymentLinkId).catch(unlessNotFound) : await findBySlug(db, input.paymentLinkSlug!.toLowerCase());
    const usable = pl && unavailableReason(pl.link, now) === null && (!caller || (pl.link.user_id === caller.userId && pl.link.livemode === caller.livemode));
    if (pl && usable) {
      merchant = { userId: pl.link.user_id, livemode: pl.link.livemode };
      amount ??= linkTotal(pl.link, pl.products);
      if (!input.productIds) productIds = pl.products.map((p) => p.product_id);
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

export default async function couponRoutes(app: App) {
  const { db, limiter } = app.deps;
  const tags = ['Coupons'];

  app.post(
    '/api/v1/coupons',
    {
      config: { auth: { key: 'coupons:write' } },
      schema: {
        tags,
        summary: 'Create a coupon',
        description: 'code, discountType and discountValue are required. Codes are unique per merchant and environment, compared case-insensitively.',
        body: CreateCouponBody,
        response: { 201: CouponResponse, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => reply.code(201).send({ message: 'Coupon created', coupon: couponView(await createCoupon(db, req.auth, req.body)) }),
  );

  app.get(
    '/api/v1/coupons',
    {
      config: { auth: { key: 'coupons:read' } },
      schema: { tags, summary: 'List coupons (page style)', querystring: ListCouponsQuery, response: { 200: CouponListResponse, ...errors(400, 401, 403) } },
    },
    async (req) => {
      const { rows, pagination } = await listCoupons(db, req.auth, req.query);
      return { message: 'OK', coupons: rows.map(couponView), pagination };
    },
  );

  app.get(
    '/api/v1/coupons/:id',
    {
      config: { auth: { key: 'coupons:read' } },
      schema: { tags, summary: 'Get a coupon', params: IdParams, response: { 200: CouponResponse, ...errors(401, 403, 404) } },
    },
    async (req) => ({ message: 'OK', coupon: couponView(await getCoupon(db, req.auth, req.params.id)) }),
  );

  app.patch(
    '/api/v1/coupons/:id',
    {
      config: { auth: { key: 'coupons:write' } },
      schema: { tags, summary: 'Update a coupon', params: IdParams, body: UpdateCouponBody, response: { 200: CouponResponse, ...errors(400, 401, 403, 404) } },
    },
    async (req) => ({ message: 'Coupon updated', coupon: couponView(await updateCoupon(db, req.auth, req.params.id, req.body)) }),
  );

  app.delete(
    '/api/v1/coupons/:id',
    {
      config: { auth: { key: 'coupons:write' } },
      schema: {
        tags,
        summary: 'Archive a coupon',
        description: 'The coupon stops working at once and disappears from lists; its code can be used again. Transactions keep their reference.',
        params: IdParams,
        response: { 200: Message, ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      await deleteCoupon(db, req.auth, req.params.id);
      return { message: 'Coupon deleted' };
    },
  );

  app.post(
    '/api/coupons/validate',
    {
      // Public; an API key, when sent, makes its merchant the scope (and the per-merchant limit applies instead).
      config: { auth: { key: 'coupons:read', optional: true } },
      schema: {
        tags: ['Public'],
        summary: 'Validate a coupon for an order (public, rate limited)',
        description:
          'Rate limited: 10 requests per minute per IP and 5 per 5 minutes per device (the checkout cookie or an X-Device-Id header; per IP without one); 429 with Retry-After. ' +
          'Every unusable code gets the same 400 { valid: false, message }.',
        body: ValidateBody,
        response: { 200: ValidResponse, 400: Type.Union([InvalidResponse, Type.Ref('ValidationError')]), ...errors(429) },
      },
      // Counted before the body is looked at: malformed requests are attempts too.
      onRequest: async (req) => {
        if (!req.auth) await hitCouponLimits(limiter, req);
      },
    },
    async (req, reply) => {
      const result = await validatePublic(db, req.body, new Date(), req.auth);
      reply.header('Cache-Control', 'no-store');
      return reply.code(result.valid ? 200 : 400).send(result);
    },
  );
}
