import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { RateLimiter } from '../../http/ratelimit.ts';
import { errors, IdParams, Message } from '../../http/schemas.ts';
import { couponView, createCoupon, deleteCoupon, getCoupon, listCoupons, updateCoupon } from './crud.ts';
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
import { validatePublic } from './service.ts';
import type { ReadRouter } from '../../db/read-router.ts';

/** The options of couponRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface CouponRouteDeps {
  db: Db;
  reads: ReadRouter;
  limiter: RateLimiter;
}

export default async function couponRoutes(app: HttpApp, deps: CouponRouteDeps) {
  const { db, reads, limiter } = deps;
  const tags = ['Coupons'];

  app.post(
    '/api/v1/coupons',
    {
      config: { auth: { key: 'coupons:write' } },
      schema: {
        tags,
        operationId: 'createCoupon',
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
      schema: { tags, operationId: 'listCoupons', summary: 'List coupons (page style)', querystring: ListCouponsQuery, response: { 200: CouponListResponse, ...errors(400, 401, 403) } },
    },
    async (req) => {
      const { rows, pagination } = await listCoupons(await reads.for(req.auth), req.auth, req.query);
      return { message: 'OK', coupons: rows.map(couponView), pagination };
    },
  );

  app.get(
    '/api/v1/coupons/:id',
    {
      config: { auth: { key: 'coupons:read' } },
      schema: { tags, operationId: 'getCoupon', summary: 'Get a coupon', params: IdParams, response: { 200: CouponResponse, ...errors(401, 403, 404) } },
    },
    async (req) => ({ message: 'OK', coupon: couponView(await getCoupon(db, req.auth, req.params.id)) }),
  );

  app.patch(
    '/api/v1/coupons/:id',
    {
      config: { auth: { key: 'coupons:write' } },
      schema: { tags, operationId: 'updateCoupon', summary: 'Update a coupon', params: IdParams, body: UpdateCouponBody, response: { 200: CouponResponse, ...errors(400, 401, 403, 404) } },
    },
    async (req) => ({ message: 'Coupon updated', coupon: couponView(await updateCoupon(db, req.auth, req.params.id, req.body)) }),
  );

  app.delete(
    '/api/v1/coupons/:id',
    {
      config: { auth: { key: 'coupons:write' } },
      schema: {
        tags,
        operationId: 'archiveCoupon',
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
        operationId: 'validateCoupon',
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
