// Shared by the affiliate program test files (affiliate-programs, affiliate-links): the requests,
// over the file's app.
import assert from 'node:assert/strict';
import { call, type TestContext } from './helpers.ts';

export const PR = '/api/affiliate/programs';
export const CODE = /^[A-Z0-9]{1,12}-[A-HJ-NP-Z2-9]{6}$/;

export function affiliateApi(ctx: TestContext) {
  async function product(key: string, price = 19700, over: Record<string, unknown> = {}) {
    const res = await call(ctx.app, 'POST', '/api/v1/products', { key, body: { name: `Curso ${price}`, price, ...over } });
    assert.equal(res.status, 201, res.raw);
    return res.body.product;
  }
  async function paymentLink(key: string, productId: string, title = 'Curso de violão') {
    const res = await call(ctx.app, 'POST', '/api/v1/payment-links', { key, body: { title, products: [{ productId, quantity: 1 }] } });
    assert.equal(res.status, 201, res.raw);
    return res.body.paymentLink;
  }
  async function program(key: string, body: Record<string, unknown>) {
    const res = await call(ctx.app, 'POST', PR, { key, body: { commissionType: 'PERCENTAGE', commissionValue: 4000, ...body } });
    assert.equal(res.status, 201, res.raw);
    return res.body.data;
  }
  const join = (key: string, programId: string) => call(ctx.app, 'POST', `/api/affiliate/join/${programId}`, { key });
  const events = (userId: string, type: string) => ctx.database.db.selectFrom('events').selectAll().where('user_id', '=', userId).where('type', '=', type).execute();
  return { product, paymentLink, program, join, events };
}
