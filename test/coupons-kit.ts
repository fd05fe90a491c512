// Shared by the coupon test files (coupons-*.test.ts): codes, creation, the public validation as a
// checkout page sends it (its own IP and device unless told), and the shop the files sell from.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { App } from '../src/deps.ts';
import { call, type Res, type TestContext } from './helpers.ts';
import { specBody } from './envelope.ts';

export const C = '/api/v1/coupons';
export const V = '/api/coupons/validate';
export const INVALID = { valid: false, message: 'Invalid or unavailable coupon' };

let seq = 0;
export const code = (prefix = 'CUPOM') => `${prefix}${++seq}${randomBytes(2).toString('hex').toUpperCase()}`;

/** A product (R$ 50) and a payment link selling two of it: what the coupons are validated against. */
export async function shop(ctx: TestContext, key: string): Promise<{ slug: string; productId: string }> {
  const p = await call(ctx.app, 'POST', '/api/v1/products', { key, body: { name: 'Camiseta', price: 5000 } });
  const l = await call(ctx.app, 'POST', '/api/v1/payment-links', { key, body: { title: 'Camisetas', products: [{ productId: p.body.product.id, quantity: 2 }] } });
  return { slug: l.body.paymentLink.slug, productId: p.body.product.id };
}

export function couponApi(ctx: TestContext) {
  async function coupon(key: string, over: Record<string, unknown> = {}) {
    const res = await call(ctx.app, 'POST', C, { key, body: { code: code(), discountType: 'PERCENTAGE', discountValue: 10, ...over } });
    assert.equal(res.status, 201, res.raw);
    return res.body.coupon;
  }

  /** Each validation from its own IP and device, so these tests do not run into the rate limits. */
  let ipSeq = 0;
  function validate(body: Record<string, unknown>, opts: { ip?: string; device?: string; app?: App; cookie?: string } = {}): Promise<Res> {
    ipSeq++;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.device !== undefined) headers['x-device-id'] = opts.device;
    else headers['x-device-id'] = `device-${ipSeq}-${randomBytes(4).toString('hex')}`;
    if (opts.cookie) headers.cookie = opts.cookie;
    return (opts.app ?? ctx.app)
      .inject({ method: 'POST', url: V, headers, payload: JSON.stringify(body), remoteAddress: opts.ip ?? `10.1.${(ipSeq >> 8) & 255}.${ipSeq & 255}` })
      .then((r) => {
        let parsed: any = r.body;
        try {
          parsed = JSON.parse(r.body);
        } catch {
          /* text */
        }
        return { status: r.statusCode, body: specBody(V, r.statusCode, parsed), headers: r.headers as any, raw: r.body };
      });
  }
  return { coupon, validate };
}
