// Shared by the checkouts test files: a merchant's products, links and checkouts over the file's app.
import assert from 'node:assert/strict';
import { call, type Merchant, type TestContext } from './helpers.ts';

export const CK = '/api/v1/checkouts';

export function checkoutsApi(ctx: TestContext) {
  async function product(key: string, body: Record<string, unknown> = {}) {
    const res = await call(ctx.app, 'POST', '/api/v1/products', { key, body: { name: 'Ebook de receitas', price: 2990, ...body } });
    assert.equal(res.status, 201, res.raw);
    return res.body.product as { id: string; price: number; name: string };
  }
  async function link(key: string, body: Record<string, unknown> = {}) {
    const res = await call(ctx.app, 'POST', '/api/v1/payment-links', { key, body: { title: 'Curso de pão', amountCents: 10000, ...body } });
    assert.equal(res.status, 201, res.raw);
    return res.body.paymentLink as { id: string; slug: string };
  }
  async function checkout(key: string, body: Record<string, unknown> = {}) {
    const res = await call(ctx.app, 'POST', CK, { key, body: { name: 'Página do curso', ...body } });
    assert.equal(res.status, 201, res.raw);
    return res.body.checkout;
  }
  async function bump(key: string, checkoutId: string, body: Record<string, unknown>) {
    const res = await call(ctx.app, 'POST', `${CK}/${checkoutId}/order-bumps`, { key, body });
    assert.equal(res.status, 201, res.raw);
    return res.body.orderBump;
  }
  /** A link whose checkout offers `bumps` (product bodies with the bump's own fields under `offer`). */
  async function shop(m: Merchant, bumps: { product?: Record<string, unknown>; offer?: Record<string, unknown> }[], linkBody: Record<string, unknown> = {}, key = m.devKey) {
    const l = await link(key, linkBody);
    const c = await checkout(key, { paymentLinkId: l.id });
    const offers = [];
    for (const b of bumps) {
      const p = await product(key, b.product);
      offers.push({ product: p, bump: await bump(key, c.id, { productId: p.id, ...b.offer }) });
    }
    return { link: l, checkout: c, offers };
  }
  return { product, link, checkout, bump, shop };
}
