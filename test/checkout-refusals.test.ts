// Public checkout of payment links: what it refuses (unknown, inactive, expired or sold-out links,
// methods and data the link rules out, coupons), and paymentLinkId on API transactions.
// PGlite by default, PostgreSQL with TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { call, cpf } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assert400, assertFieldError } from './kit/assert.ts';
import { card, checkoutApi, order } from './checkout-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx, { live: true });
const other = useMerchant(ctx);
const { link, checkout, pay, getLink, getTx } = checkoutApi(ctx, m);

describe('checkout refusals', () => {
  test('unknown and archived links are 404', async () => {
    assert.equal((await checkout('no-such-link', order())).status, 404);
    const l = await link();
    await call(ctx.app, 'DELETE', `/api/v1/payment-links/${l.id}`, { key: m.devKey });
    assert.equal((await checkout(l.slug, order())).status, 404);
  });

  test('inactive and expired links: 400 PAYMENT_LINK_UNAVAILABLE; sold out: 400 INSUFFICIENT_STOCK', async () => {
    assertFieldError(await checkout((await link({ status: 'INACTIVE' })).slug, order()), 'slug', 'PAYMENT_LINK_UNAVAILABLE');
    const expired = await link();
    await ctx.database.db.updateTable('payment_links').set({ expires_at: new Date(Date.now() - 1) }).where('id', '=', expired.id).execute();
    assertFieldError(await checkout(expired.slug, order()), 'slug', 'PAYMENT_LINK_UNAVAILABLE');
    assert400(await checkout((await link({ stockEnabled: true, stockQuantity: 0 })).slug, order()), 'INSUFFICIENT_STOCK');
  });

  test('methods the link disabled, missing phone or address, too many instalments, card data rules', async () => {
    const l = await link({ settings: { boletoEnabled: false, requirePhone: true, requireAddress: true, maxInstallments: 3 } });
    const address = { zipCode: '01310-100', street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' };
    const full = { clientPhone: '11987654321', address };
    assertFieldError(await checkout(l.slug, order({ ...full, paymentMethod: 'BOLETO' })), 'paymentMethod', 'VALIDATION_ERROR');
    assertFieldError(await checkout(l.slug, order({ address })), 'clientPhone', 'VALIDATION_ERROR');
    assertFieldError(await checkout(l.slug, order({ clientPhone: '11987654321' })), 'address', 'VALIDATION_ERROR');
    assertFieldError(await checkout(l.slug, order({ ...full, address: { ...address, zipCode: '123' } })), 'address.zipCode', 'VALIDATION_ERROR');
    assertFieldError(await checkout(l.slug, order({ ...full, paymentMethod: 'CARD', card: card(), installments: 4 })), 'installments', 'VALIDATION_ERROR');
    assertFieldError(await checkout(l.slug, order({ ...full, paymentMethod: 'CARD' })), 'card', 'VALIDATION_ERROR');
    assertFieldError(await checkout(l.slug, order({ ...full, card: card() })), 'card', 'VALIDATION_ERROR');
    assertFieldError(await checkout(l.slug, order({ ...full, installments: 2 })), 'installments', 'VALIDATION_ERROR');
    assertFieldError(await checkout(l.slug, order({ ...full, paymentMethod: 'CARD', card: card('4242424242424241') })), 'card.number', 'VALIDATION_ERROR');
    assertFieldError(await checkout(l.slug, order({ ...full, clientDocument: '12345678900' })), 'clientDocument', 'INVALID_DOCUMENT');
    assertFieldError(await checkout(l.slug, order({ ...full, clientEmail: 'not-an-email' })), 'clientEmail', 'VALIDATION_ERROR');
    assertFieldError(await checkout(l.slug, order({ ...full, amountCents: 1 })), 'amountCents', 'VALIDATION_ERROR');
    const ok = await checkout(l.slug, order(full));
    assert.equal(ok.status, 201, ok.raw);
    const tx = await getTx(ok.body.transaction.id);
    assert.deepEqual(tx.address, { zipCode: '01310100', street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' });
    assert.equal(tx.client.phone, '11987654321');
  });

  test('a coupon that does not apply: 400 INVALID_COUPON, and it counts against the coupon limits', async () => {
    const l = await link();
    const device = `dev-${randomBytes(6).toString('hex')}`;
    for (let i = 0; i < 5; i++) assertFieldError(await checkout(l.slug, order({ couponCode: 'NOPE' }), { 'x-device-id': device }), 'couponCode', 'INVALID_COUPON');
    const limited = await checkout(l.slug, order({ couponCode: 'NOPE' }), { 'x-device-id': device });
    assert.equal(limited.status, 429, limited.raw);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    // Checkouts without a coupon are not limited.
    assert.equal((await checkout(l.slug, order(), { 'x-device-id': device })).status, 201);
  });

  test('a coupon may not make the payment free', async () => {
    const l = await link({ amountCents: 500 });
    const c = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: `FREE${randomBytes(3).toString('hex')}`, discountType: 'PERCENTAGE', discountValue: 100 } });
    assertFieldError(await checkout(l.slug, order({ couponCode: c.body.coupon.code })), 'couponCode', 'VALIDATION_ERROR');
  });
});

describe('paymentLinkId on POST /api/v1/transactions', () => {
  const base = (over: Record<string, unknown>) => ({ product: 'Venda', amountCents: 2500, clientName: 'Rui', clientEmail: 'rui@example.com', clientDocument: cpf(), paymentMethod: 'PIX', ...over });
  test('a link of the same merchant and environment: the payment is the link\'s sale', async () => {
    const l = await link({ stockEnabled: true, stockQuantity: 1 });
    const res = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: base({ paymentLinkId: l.id }) });
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.paymentLinkId, l.id);
    await pay(res.body.transaction.id);
    const after = await getLink(l.id);
    assert.equal(after.salesCount, 1);
    assert.equal(after.stockQuantity, 0);
    assert400(await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: base({ paymentLinkId: l.id }) }), 'INSUFFICIENT_STOCK');
  });

  test('an inactive or expired link is refused as its checkout refuses it, and nothing is written', async () => {
    const inactive = await link({ status: 'INACTIVE' });
    const expired = await link();
    await ctx.database.db.updateTable('payment_links').set({ expires_at: new Date(Date.now() - 1) }).where('id', '=', expired.id).execute();
    const before = (await call(ctx.app, 'GET', '/api/v1/transactions?limit=100', { key: m.devKey })).body.transactions.length;
    for (const l of [inactive, expired]) {
      assertFieldError(await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: base({ paymentLinkId: l.id }) }), 'paymentLinkId', 'PAYMENT_LINK_UNAVAILABLE');
    }
    assert.equal((await call(ctx.app, 'GET', '/api/v1/transactions?limit=100', { key: m.devKey })).body.transactions.length, before);
  });

  test('anything else: 400 VALIDATION_ERROR on paymentLinkId', async () => {
    const foreign = await link({}, other.devKey);
    const live = await link({}, m.liveKey);
    const archived = await link();
    await call(ctx.app, 'DELETE', `/api/v1/payment-links/${archived.id}`, { key: m.devKey });
    for (const id of [foreign.id, live.id, archived.id, '01890000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      assertFieldError(await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: base({ paymentLinkId: id }) }), 'paymentLinkId', 'VALIDATION_ERROR');
    }
  });
});
