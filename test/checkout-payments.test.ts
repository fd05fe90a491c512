// Public checkout of payment links: the transaction it makes (environment, price, coupon,
// instalments with the link's interest) and stock decremented at payment (and the out-of-stock sale).
// PGlite by default, PostgreSQL with TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { priceTableInstallments } from '../src/payments/card.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assert400 } from './kit/assert.ts';
import { card, checkoutApi, order } from './checkout-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx, { live: true });
const other = useMerchant(ctx);
const { link, checkout, pay, getLink, getTx } = checkoutApi(ctx, m);

describe('the transaction a checkout makes', () => {
  test('PIX in the link\'s merchant and environment, linked to it; timesUsed counts checkouts', async () => {
    const l = await link();
    const res = await checkout(l.slug, order({ trackingParams: { utm_source: 'instagram' } }));
    assert.equal(res.status, 201, res.raw);
    const pub = res.body.transaction;
    assert.deepEqual(Object.keys(pub).sort(), ['amountCents', 'chargedCents', 'checkoutUrl', 'discountCents', 'failureReason', 'id', 'installmentCents', 'installments', 'paymentMethod', 'pix', 'redirectUrl', 'status']);
    assert.equal(pub.status, 'PENDING');
    assert.equal(pub.checkoutUrl, `${ctx.config.checkoutUrl}/checkout/${pub.id}`);
    assert.match(pub.pix.qrCodeImage, /\/pix\/[A-Za-z0-9]{25}\/qr\.png$/);
    const tx = await getTx(pub.id);
    assert.equal(tx.paymentLinkId, l.id);
    assert.equal(tx.amountCents, 10000);
    assert.equal(tx.product, l.title);
    assert.equal(tx.livemode, false);
    assert.deepEqual(tx.trackingParams, { utm_source: 'instagram' });
    assert.equal((await call(ctx.app, 'GET', `/api/v1/transactions/${pub.id}`, { key: other.devKey })).status, 404);
    const after = await getLink(l.id);
    assert.equal(after.timesUsed, 1);
    assert.equal(after.salesCount, 0);
  });

  test('a production link without a payment provider: 503 before anything is written', async () => {
    const l = await link({}, m.liveKey);
    const res = await checkout(l.slug, order());
    assert.equal(res.status, 503, res.raw);
  });

  test('card instalments use the link\'s interest settings, not the gateway defaults', async () => {
    const l = await link({ amountCents: 12000, settings: { interestFreeInstallments: 3, interestRate: 1.49, maxInstallments: 10 } });
    const free = await checkout(l.slug, order({ paymentMethod: 'CARD', card: card(), installments: 3 }));
    assert.equal(free.status, 201, free.raw);
    assert.equal(free.body.transaction.status, 'PAID');
    assert.equal(free.body.transaction.chargedCents, 12000);
    const six = await checkout(l.slug, order({ paymentMethod: 'CARD', card: card(), installments: 6 }));
    const plan = priceTableInstallments({ amountCents: 12000, installments: 6, interestFreeInstallments: 3, monthlyInterestRatePercent: 1.49 });
    assert.equal(six.body.transaction.chargedCents, plan.totalCents);
    assert.equal(six.body.transaction.installmentCents, plan.installmentCents);
    assert.ok(plan.totalCents > 12000);
    // interestFreeInstallments 0 still means a single payment carries no interest.
    const zero = await link({ amountCents: 5000, settings: { interestFreeInstallments: 0, interestRate: 2 } });
    assert.equal((await checkout(zero.slug, order({ paymentMethod: 'CARD', card: card(), installments: 1 }))).body.transaction.chargedCents, 5000);
    const linkAfter = await getLink(l.id);
    assert.equal(linkAfter.salesCount, 2);
  });

  test('a declined card: 201 with status FAILED and the reason; no sale', async () => {
    const l = await link({ stockEnabled: true, stockQuantity: 2 });
    const res = await checkout(l.slug, order({ paymentMethod: 'CARD', card: card('4000000000000002') }));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.status, 'FAILED');
    assert.equal(res.body.transaction.failureReason, 'CARD_DECLINED');
    const after = await getLink(l.id);
    assert.equal(after.stockQuantity, 2);
    assert.equal(after.salesCount, 0);
  });

  test('coupon by the link\'s products: discount taken off, recorded on the transaction', async () => {
    const p = await call(ctx.app, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Livro', price: 4000 } });
    const l = await link({ amountCents: undefined, products: [{ productId: p.body.product.id, quantity: 2 }] });
    const c = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: `LIVRO${randomBytes(3).toString('hex')}`, discountType: 'FIXED', discountValue: 1500, productIds: [p.body.product.id] } });
    const res = await checkout(l.slug, order({ couponCode: c.body.coupon.code.toLowerCase() }));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.amountCents, 6500);
    assert.equal(res.body.transaction.discountCents, 1500);
    const tx = await getTx(res.body.transaction.id);
    assert.equal(tx.couponId, c.body.coupon.id);
    assert.equal(tx.discountCents, 1500);
    // The coupon is restricted to that product: another link does not take it.
    assert400(await checkout((await link()).slug, order({ couponCode: c.body.coupon.code })), 'INVALID_COUPON');
  });
});

describe('stock', () => {
  test('decremented when paid, not at checkout; sold out refuses checkouts', async () => {
    const l = await link({ stockEnabled: true, stockQuantity: 2 });
    const a = (await checkout(l.slug, order())).body.transaction.id;
    const b = (await checkout(l.slug, order())).body.transaction.id;
    assert.equal((await getLink(l.id)).stockQuantity, 2, 'nothing reserved at checkout');
    await pay(a);
    assert.equal((await getLink(l.id)).stockQuantity, 1);
    await pay(b);
    const after = await getLink(l.id);
    assert.equal(after.stockQuantity, 0);
    assert.equal(after.salesCount, 2);
    assert400(await checkout(l.slug, order()), 'INSUFFICIENT_STOCK');
    const pub = await call(ctx.app, 'GET', `/api/payment-links/public/slug/${l.slug}`);
    assert.equal(pub.body.paymentLink.unavailableReason, 'SOLD_OUT');
    // Restocking opens it again.
    await call(ctx.app, 'PATCH', `/api/v1/payment-links/${l.id}`, { key: m.devKey, body: { amountCents: 10000, stockQuantity: 1 } });
    assert.equal((await checkout(l.slug, order())).status, 201);
  });

  test('a payment that finds the stock gone fails OUT_OF_STOCK: no oversale, ledger balanced', async () => {
    const l = await link({ stockEnabled: true, stockQuantity: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await checkout(l.slug, order())).body.transaction.id);
    const outcomes = [];
    for (const id of ids) outcomes.push((await pay(id)).body.transaction);
    assert.deepEqual(outcomes.map((t) => t.status), ['PAID', 'FAILED', 'FAILED']);
    assert.deepEqual(outcomes.map((t) => t.failureReason), [null, 'OUT_OF_STOCK', 'OUT_OF_STOCK']);
    const after = await getLink(l.id);
    assert.equal(after.stockQuantity, 0);
    assert.equal(after.salesCount, 1);
    const failedEvents = await ctx.database.db.selectFrom('events').select('data').where('type', '=', 'transaction.failed').where('user_id', '=', m.id).execute();
    assert.ok(failedEvents.some((e) => (e.data as { id: string }).id === ids[1]));
    await assertLedgerBalanced(ctx.database.db);
  });

  test('links without stock count sales without limit', async () => {
    const l = await link();
    for (let i = 0; i < 3; i++) await pay((await checkout(l.slug, order())).body.transaction.id);
    const after = await getLink(l.id);
    assert.equal(after.salesCount, 3);
    assert.equal(after.stockQuantity, null);
  });
});
