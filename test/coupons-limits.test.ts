// Coupons: the validation's rate limits (memory, and Redis when TEST_REDIS_URL is set, shared between
// two instances), and use counting at payment.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { App } from '../src/deps.ts';
import { createLimiter } from '../src/http/ratelimit.ts';
import { appOver, call, cpf, dropSchema, merchant, openDatabase, REDIS_URL, testConfig } from './helpers.ts';
import { ready, useApp, useMerchant } from './kit/app.ts';
import { assert429, assertFieldError } from './kit/assert.ts';
import { C, code, couponApi, shop } from './coupons-kit.ts';

let seq = 0;
const ctx = useApp();
const m = useMerchant(ctx, { live: true });
let slug: string;
before(async () => {
  ({ slug } = await shop(await ready(ctx), (await ready(m)).devKey));
});
const { coupon, validate } = couponApi(ctx);

describe('rate limits', () => {
  async function limits(app: App, label: string, slug: string, key: string) {
    // 10 per minute per IP, whatever the device.
    const ip = `10.200.0.${Math.floor(Math.random() * 200)}`;
    for (let i = 0; i < 10; i++) assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: slug }, { ip, app })).status, 400, `${label}: attempt ${i + 1}`);
    const eleventh = await validate({ code: 'NOPE', paymentLinkSlug: slug }, { ip, app });
    assert429(eleventh);
    const retry = Number(eleventh.headers['retry-after']);
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);

    // 5 per 5 minutes per device, whatever the IP.
    const device = `dev-${randomBytes(6).toString('hex')}`;
    for (let i = 0; i < 5; i++) assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: slug }, { device, app })).status, 400);
    const sixth = await validate({ code: 'NOPE', paymentLinkSlug: slug }, { device, app });
    assert.equal(sixth.status, 429, `${label}: device limit`);
    const devRetry = Number(sixth.headers['retry-after']);
    assert.ok(devRetry > 60 && devRetry <= 300, `device Retry-After ${devRetry}`);
    // Valid answers count too (the limit is on attempts).
    const c = (await call(app, 'POST', C, { key, body: { code: code(), discountType: 'FIXED', discountValue: 100 } })).body.coupon;
    const device2 = `dev-${randomBytes(6).toString('hex')}`;
    for (let i = 0; i < 5; i++) assert.equal((await validate({ code: c.code, paymentLinkSlug: slug }, { device: device2, app })).status, 200);
    assert.equal((await validate({ code: c.code, paymentLinkSlug: slug }, { device: device2, app })).status, 429);

    // The checkout page's cookie is a device too; without cookie or header, the IP is the device.
    const cookie = `cofre_did=${randomBytes(12).toString('base64url')}`;
    for (let i = 0; i < 5; i++) assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: slug }, { device: '', cookie, app })).status, 400);
    assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: slug }, { device: '', cookie, app })).status, 429);
    const bare = `10.201.0.${Math.floor(Math.random() * 200)}`;
    for (let i = 0; i < 5; i++) assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: slug }, { device: '', ip: bare, app })).status, 400);
    assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: slug }, { device: '', ip: bare, app })).status, 429);
  }

  test('10 per minute per IP, 5 per 5 minutes per device (memory limiter)', async () => {
    await limits(ctx.app, 'memory', slug, m.devKey);
  });

  test('through Redis, shared by two instances', { skip: REDIS_URL ? false : 'needs Redis (TEST_REDIS_URL)' }, async () => {
    const { database, schema } = await openDatabase();
    const prefix = `cofre:test:${randomBytes(4).toString('hex')}:`;
    const config = testConfig({ LOG_LEVEL: 'silent' });
    const limiterA = createLimiter(REDIS_URL, prefix);
    const limiterB = createLimiter(REDIS_URL, prefix);
    const a = await appOver(config, database, { limiter: limiterA });
    const b = await appOver(config, database, { limiter: limiterB });
    try {
      await Promise.all([a.ready(), b.ready()]);
      const owner = await merchant(a);
      const l = await call(a, 'POST', '/api/v1/payment-links', { key: owner.devKey, body: { title: 'Redis', amountCents: 1000 } });
      const s = l.body.paymentLink.slug;
      // Alternate instances: the 11th attempt from one IP is refused wherever it lands.
      const ip = '10.250.0.1';
      for (let i = 0; i < 10; i++) assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: s }, { ip, app: i % 2 ? a : b })).status, 400);
      assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: s }, { ip, app: a })).status, 429);
      assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: s }, { ip, app: b })).status, 429);
      const device = `dev-${randomBytes(6).toString('hex')}`;
      for (let i = 0; i < 5; i++) assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: s }, { device, app: i % 2 ? a : b })).status, 400);
      assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: s }, { device, app: b })).status, 429);
      await limits(a, 'redis', s, owner.devKey);
    } finally {
      await a.close();
      await b.close();
      await limiterA.close();
      await limiterB.close();
      await database.close();
      await dropSchema(schema);
    }
  });
});

describe('coupon uses are reserved at checkout', () => {
  const checkout = (couponCode: string, over: Record<string, unknown> = {}) =>
    call(ctx.app, 'POST', `/api/payment-links/public/slug/${slug}/checkout`, {
      body: { clientName: 'Caio', clientEmail: `caio.${++seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', couponCode, ...over },
    });
  const pay = (id: string) => call(ctx.app, 'POST', `/api/v1/transactions/${id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
  const usedCount = async (id: string) => (await call(ctx.app, 'GET', `${C}/${id}`, { key: m.devKey })).body.coupon.usedCount;

  test('a checkout reserves a use and grants the discount; usageLimit caps checkouts in flight; a payment that fails or expires gives its use back', async () => {
    const c = await coupon(m.devKey, { discountValue: 10, usageLimit: 2 });
    const txs = [];
    for (let i = 0; i < 2; i++) {
      const res = await checkout(c.code);
      assert.equal(res.status, 201, res.raw);
      assert.equal(res.body.transaction.amountCents, 9000);
      assert.equal(res.body.transaction.discountCents, 1000);
      txs.push(res.body.transaction.id);
    }
    assert.equal(await usedCount(c.id), 2, 'pending checkouts hold their uses');
    assertFieldError(await checkout(c.code), 'couponCode', 'INVALID_COUPON');
    // One expires: its use is free again for the next customer.
    assert.equal((await call(ctx.app, 'POST', `/api/v1/transactions/${txs[1]}/simulate`, { key: m.devKey, body: { outcome: 'EXPIRED' } })).status, 200);
    assert.equal(await usedCount(c.id), 1);
    const third = await checkout(c.code);
    assert.equal(third.status, 201, third.raw);
    for (const id of [txs[0], third.body.transaction.id]) assert.equal((await pay(id)).body.transaction.status, 'PAID');
    assert.equal(await usedCount(c.id), 2);
    const paid = await call(ctx.app, 'GET', `/api/v1/transactions/${txs[0]}`, { key: m.devKey });
    assert.equal(paid.body.transaction.chargedCents, 9000);
    assert.equal(paid.body.transaction.couponId, c.id);
    const redemptions = await ctx.database.db.selectFrom('coupon_redemptions').select('status').where('coupon_id', '=', c.id).orderBy('created_at').execute();
    assert.deepEqual(redemptions.map((r) => r.status), ['USED', 'RELEASED', 'USED']);
    assertFieldError(await checkout(c.code), 'couponCode', 'INVALID_COUPON');
  });

  test('a declined card at checkout gives its use back at once', async () => {
    const c = await coupon(m.devKey, { discountValue: 10, usageLimit: 1 });
    const YEAR = new Date().getUTCFullYear();
    const declined = await checkout(c.code, { paymentMethod: 'CARD', card: { number: '4000000000000002', holderName: 'CAIO', expMonth: 12, expYear: YEAR + 2, cvv: '123' } });
    assert.equal(declined.status, 201, declined.raw);
    assert.equal(declined.body.transaction.status, 'FAILED');
    assert.equal(await usedCount(c.id), 0);
    assert.equal((await checkout(c.code)).status, 201);
  });

});
