// Shared by the checkout test files (checkout-*.test.ts): payment links, orders and the public
// checkout as a payer sends them, over the file's app and its merchant.
import assert from 'node:assert/strict';
import type { Merchant } from './helpers.ts';
import { call, cpf, type TestContext } from './helpers.ts';

export const YEAR = new Date().getUTCFullYear();

let seq = 0;
/** A payer's order (PIX by default). */
export function order(over: Record<string, unknown> = {}) {
  seq++;
  return { clientName: 'Joana Lima', clientEmail: `joana.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', ...over };
}
export const card = (number = '4242424242424242') => ({ number, holderName: 'JOANA LIMA', expMonth: 12, expYear: YEAR + 2, cvv: '123' });

export function checkoutApi(ctx: TestContext, m: Merchant) {
  async function link(body: Record<string, unknown> = {}, key = m.devKey) {
    const res = await call(ctx.app, 'POST', '/api/v1/payment-links', { key, body: { title: 'Ingresso Show', amountCents: 10000, ...body } });
    assert.equal(res.status, 201, res.raw);
    return res.body.paymentLink;
  }
  const checkout = (slug: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(ctx.app, 'POST', `/api/payment-links/public/slug/${slug}/checkout`, { body, headers });
  const pay = (id: string, key = m.devKey) => call(ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key, body: { outcome: 'PAID' } });
  const getLink = async (id: string) => (await call(ctx.app, 'GET', `/api/v1/payment-links/${id}`, { key: m.devKey })).body.paymentLink;
  const getTx = async (id: string, key = m.devKey) => (await call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key })).body.transaction;
  return { link, checkout, pay, getLink, getTx };
}
