// Order bumps at the hosted checkout (issue 37): the order the shopper ticks is one payment with its
// lines; coupons take the main product only unless they name the bump's; stock per line at payment;
// the checkout's settings over the link's; affiliates paid on the main product unless the program
// says the whole order. PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assertFieldError } from './kit/assert.ts';
import { card, checkoutApi, order } from './checkout-kit.ts';
import { CK, checkoutsApi } from './checkouts-kit.ts';
import { commissionApi } from './affiliate-commissions-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx);
const aff = useMerchant(ctx);
const { checkout, pay, getTx } = checkoutApi(ctx, m);
const api = checkoutsApi(ctx);
const publicLink = async (slug: string) => (await call(ctx.app, 'GET', `/api/payment-links/public/slug/${slug}`)).body.paymentLink;

/** A R$ 100,00 link with a R$ 29,90 bump at R$ 5,00 off and a R$ 50,00 bump at 10% off. */
const twoBumps = () =>
  api.shop(m, [
    { product: { name: 'Ebook de receitas', price: 2990 }, offer: { discountCents: 500 } },
    { product: { name: 'Aula ao vivo', price: 5000 }, offer: { discountPercentage: 10, title: 'Aula ao vivo com desconto' } },
  ]);

describe('an order with bumps', () => {
  test('the page lists the bumps; the PIX covers the main product plus the ticked ones, and the transaction lists its lines', async () => {
    const s = await twoBumps();
    const [a, b] = s.offers;
    const pub = await publicLink(s.link.slug);
    assert.deepEqual(pub.orderBumps, [
      { id: a.bump.id, title: 'Ebook de receitas', description: null, priceCents: 2490, originalPriceCents: 2990 },
      { id: b.bump.id, title: 'Aula ao vivo com desconto', description: null, priceCents: 4500, originalPriceCents: 5000 },
    ]);
    const res = await checkout(s.link.slug, order({ orderBumps: [b.bump.id, a.bump.id] }));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.amountCents, 10000 + 2490 + 4500);
    assert.equal(res.body.transaction.chargedCents, 16990);
    const tx = await getTx(res.body.transaction.id);
    assert.deepEqual(tx.items, [
      { kind: 'MAIN', productId: null, name: 'Curso de pão', quantity: 1, unitPriceCents: 10000, discountCents: 0, totalCents: 10000 },
      { kind: 'BUMP', productId: a.product.id, name: 'Ebook de receitas', quantity: 1, unitPriceCents: 2990, discountCents: 500, totalCents: 2490 },
      { kind: 'BUMP', productId: b.product.id, name: 'Aula ao vivo com desconto', quantity: 1, unitPriceCents: 5000, discountCents: 500, totalCents: 4500 },
    ]);
    // Without bumps: the main product alone, still as a line.
    const plain = await checkout(s.link.slug, order());
    assert.equal(plain.body.transaction.amountCents, 10000);
    assert.equal((await getTx(plain.body.transaction.id)).items.length, 1);
  });

  test('by card in instalments: one charge for the whole order, interest on all of it', async () => {
    const s = await twoBumps();
    const res = await checkout(s.link.slug, order({ paymentMethod: 'CARD', card: card(), installments: 1, orderBumps: [s.offers[0].bump.id] }));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.status, 'PAID');
    assert.equal(res.body.transaction.chargedCents, 12490);
  });

  test("refused: an id that is not this page's bump, one named twice, bumps of a checkout that hides them", async () => {
    const s = await twoBumps();
    const elsewhere = await twoBumps();
    assertFieldError(await checkout(s.link.slug, order({ orderBumps: [elsewhere.offers[0].bump.id] })), 'orderBumps.0');
    assertFieldError(await checkout(s.link.slug, order({ orderBumps: [s.offers[0].bump.id, s.offers[0].bump.id] })), 'orderBumps.1');
    await call(ctx.app, 'PUT', `${CK}/${s.checkout.id}`, { key: m.devKey, body: { settings: { showOrderBumps: false } } });
    assert.deepEqual((await publicLink(s.link.slug)).orderBumps, []);
    assertFieldError(await checkout(s.link.slug, order({ orderBumps: [s.offers[0].bump.id] })), 'orderBumps.0');
    // An archived bump product leaves the page too.
    await call(ctx.app, 'PUT', `${CK}/${s.checkout.id}`, { key: m.devKey, body: { settings: { showOrderBumps: true } } });
    await call(ctx.app, 'DELETE', `/api/v1/products/${s.offers[0].product.id}`, { key: m.devKey });
    assert.deepEqual((await publicLink(s.link.slug)).orderBumps.map((o: { id: string }) => o.id), [s.offers[1].bump.id]);
  });

  test("the checkout's settings override the link's on its page and at checkout", async () => {
    const s = await twoBumps();
    await call(ctx.app, 'PUT', `${CK}/${s.checkout.id}`, { key: m.devKey, body: { settings: { pixEnabled: false, requirePhone: true, maxInstallments: 2 } } });
    const pub = await publicLink(s.link.slug);
    assert.equal(pub.settings.pixEnabled, false);
    assert.equal(pub.settings.requirePhone, true);
    assert.equal(pub.settings.maxInstallments, 2);
    assertFieldError(await checkout(s.link.slug, order()), 'paymentMethod');
    assertFieldError(await checkout(s.link.slug, order({ paymentMethod: 'BOLETO' })), 'clientPhone');
  });
});

describe('coupons with bumps', () => {
  test("a coupon naming no product discounts the main product only; one naming a bump's product discounts that bump; the lines carry the shares", async () => {
    const s = await twoBumps();
    const [a, b] = s.offers;
    const all = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: `BUMPDEZ${Date.now() % 100000}`, discountType: 'PERCENTAGE', discountValue: 10 } });
    const res = await checkout(s.link.slug, order({ couponCode: all.body.coupon.code, orderBumps: [a.bump.id, b.bump.id] }));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.discountCents, 1000);
    assert.equal(res.body.transaction.amountCents, 10000 - 1000 + 2490 + 4500);
    const items = (await getTx(res.body.transaction.id)).items;
    assert.deepEqual(items.map((l: { discountCents: number }) => l.discountCents), [1000, 500, 500]);
    assert.equal(items.reduce((n: number, l: { totalCents: number }) => n + l.totalCents, 0), res.body.transaction.amountCents);

    const onBump = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: `SOAULA${Date.now() % 100000}`, discountType: 'FIXED', discountValue: 1000, productIds: [b.product.id] } });
    const validate = await call(ctx.app, 'POST', '/api/coupons/validate', { body: { code: onBump.body.coupon.code, paymentLinkSlug: s.link.slug, orderBumps: [b.bump.id] } });
    assert.equal(validate.body.valid, true, validate.raw);
    assert.equal(validate.body.discountAmount, 1000);
    assert.equal(validate.body.finalAmount, 10000 + 4500 - 1000);
    // Without the bump it names, the coupon has nothing to apply to.
    const without = await call(ctx.app, 'POST', '/api/coupons/validate', { body: { code: onBump.body.coupon.code, paymentLinkSlug: s.link.slug } });
    assert.equal(without.body.valid, false);
    const paid = await checkout(s.link.slug, order({ couponCode: onBump.body.coupon.code, orderBumps: [b.bump.id] }));
    assert.equal(paid.status, 201, paid.raw);
    assert.deepEqual((await getTx(paid.body.transaction.id)).items.map((l: { discountCents: number }) => l.discountCents), [0, 1500]);
  });
});

describe('refunds by line', () => {
  test('a bump refunded alone gives back its total; a line is refunded once; amountCents and items not both', async () => {
    const s = await twoBumps();
    const res = await checkout(s.link.slug, order({ orderBumps: [s.offers[0].bump.id, s.offers[1].bump.id] }));
    const id = res.body.transaction.id;
    await pay(id);
    const refund = (body: Record<string, unknown>) => call(ctx.app, 'POST', `/api/v1/transactions/${id}/refund`, { key: m.devKey, body });
    const first = await refund({ items: [2] });
    assert.equal(first.status, 200, first.raw);
    assert.equal(first.body.transaction.refundedCents, 4500);
    assert.equal(first.body.transaction.status, 'PARTIALLY_REFUNDED');
    assert.deepEqual(first.body.transaction.refunds.map((r: { amountCents: number; items: number[] }) => [r.amountCents, r.items]), [[4500, [2]]]);
    assertFieldError(await refund({ items: [2] }), 'items.0');
    assertFieldError(await refund({ items: [3] }), 'items.0');
    assertFieldError(await refund({ items: [1], amountCents: 100 }), 'items');
    const rest = await refund({ items: [0, 1] });
    assert.equal(rest.status, 200, rest.raw);
    assert.equal(rest.body.transaction.status, 'REFUNDED');
    assert.equal(rest.body.transaction.refundedCents, 16990);
    const noLines = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: { product: 'Avulso', amountCents: 1000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: '52998224725', paymentMethod: 'PIX' } });
    await pay(noLines.body.transaction.id);
    assertFieldError(await call(ctx.app, 'POST', `/api/v1/transactions/${noLines.body.transaction.id}/refund`, { key: m.devKey, body: { items: [0] } }), 'items');
    await assertLedgerBalanced(ctx.database.db);
  });
});

describe('stock per line', () => {
  test("a bump's product with stock goes down when paid; the order that finds it gone fails OUT_OF_STOCK and takes no stock", async () => {
    const s = await api.shop(m, [{ product: { name: 'Caneca', price: 3500, stockEnabled: true, stockQuantity: 1 } }], { stockEnabled: true, stockQuantity: 10 });
    const bump = s.offers[0].bump.id;
    const first = await checkout(s.link.slug, order({ orderBumps: [bump] }));
    const second = await checkout(s.link.slug, order({ orderBumps: [bump] }));
    assert.equal((await pay(first.body.transaction.id)).body.transaction.status, 'PAID');
    const late = await pay(second.body.transaction.id);
    assert.equal(late.body.transaction.status, 'FAILED');
    assert.equal(late.body.transaction.failureReason, 'OUT_OF_STOCK');
    const product = (await call(ctx.app, 'GET', `/api/v1/products/${s.offers[0].product.id}`, { key: m.devKey })).body.product;
    assert.equal(product.stockQuantity, 0);
    const link = (await call(ctx.app, 'GET', `/api/v1/payment-links/${s.link.id}`, { key: m.devKey })).body.paymentLink;
    assert.equal(link.stockQuantity, 9);
    assert.equal(link.salesCount, 1);
    await assertLedgerBalanced(ctx.database.db);
  });
});

describe('affiliates', () => {
  test('a commission is on the main product unless the program pays on the whole order', async () => {
    const { setup, buy, commissionOf } = commissionApi(ctx, m, aff);
    for (const [onBumps, base] of [[false, 12000], [true, 12000 + 2490]] as const) {
      const s = await setup(12000, { commissionOnOrderBumps: onBumps });
      const linkId = (await call(ctx.app, 'GET', `/api/v1/payment-links/slug/${s.slug}`, { key: m.devKey })).body.paymentLink.id;
      const c = await api.checkout(m.devKey, { paymentLinkId: linkId });
      const p = await api.product(m.devKey, { price: 2990 });
      const b = await api.bump(m.devKey, c.id, { productId: p.id, discountCents: 500 });
      const id = await buy(s.slug, { affiliateCode: s.code, orderBumps: [b.id] });
      await pay(id);
      const [commission] = await commissionOf(id);
      assert.equal(commission.base_cents, base);
      assert.equal(commission.amount_cents, Math.floor((base * 4000) / 10000));
    }
    await assertLedgerBalanced(ctx.database.db);
  });
});

