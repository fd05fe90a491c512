// Coupons: CRUD and its rules (fields, unique codes, lists, permissions).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { call, merchant } from './helpers.ts';
import { ready, useApp, useMerchant } from './kit/app.ts';
import { assert400, assertFieldError } from './kit/assert.ts';
import { C, code, couponApi, shop } from './coupons-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx, { live: true });
const other = useMerchant(ctx);
let linkProductId: string;
before(async () => {
  ({ productId: linkProductId } = await shop(await ready(ctx), (await ready(m)).devKey));
});
const { coupon } = couponApi(ctx);

describe('coupon CRUD', () => {
  test('create: code, discountType and discountValue required; defaults', async () => {
    const c = await coupon(m.devKey, { description: 'Dez por cento' });
    assert.equal(c.status, 'ACTIVE');
    assert.equal(c.usedCount, 0);
    assert.equal(c.usageLimit, null);
    assert.deepEqual(c.productIds, []);
    assert.equal(c.livemode, false);
    for (const missing of ['code', 'discountType', 'discountValue']) {
      const body: Record<string, unknown> = { code: code(), discountType: 'FIXED', discountValue: 100 };
      delete body[missing];
      assertFieldError(await call(ctx.app, 'POST', C, { key: m.devKey, body }), missing, 'VALIDATION_ERROR');
    }
  });

  test('field rules', async () => {
    const base = () => ({ code: code(), discountType: 'PERCENTAGE', discountValue: 10 });
    const bad: [Record<string, unknown>, string][] = [
      [{ code: 'AB' }, 'code'],
      [{ code: 'A'.repeat(51) }, 'code'],
      [{ code: 'COM ESPAÇO' }, 'code'],
      [{ code: '<script>' }, 'code'],
      [{ discountType: 'BOGUS' }, 'discountType'],
      [{ discountValue: -1 }, 'discountValue'],
      [{ discountValue: 101 }, 'discountValue'],
      [{ discountValue: 1.5 }, 'discountValue'],
      [{ description: 'x'.repeat(501) }, 'description'],
      [{ minPurchaseCents: -1 }, 'minPurchaseCents'],
      [{ maxDiscountCents: -1 }, 'maxDiscountCents'],
      [{ usageLimit: 0 }, 'usageLimit'],
      [{ perUserLimit: 0 }, 'perUserLimit'],
      [{ validFrom: 'ontem' }, 'validFrom'],
      [{ validFrom: '2030-01-02T00:00:00Z', validUntil: '2030-01-01T00:00:00Z' }, 'validUntil'],
      [{ productIds: ['x'] }, 'productIds.0'],
      [{ status: 'DELETED' }, 'status'],
    ];
    for (const [over, field] of bad) assertFieldError(await call(ctx.app, 'POST', C, { key: m.devKey, body: { ...base(), ...over } }), field, 'VALIDATION_ERROR');
    // A FIXED discount is in cents, so more than 100 is fine.
    const fixed = await coupon(m.devKey, { discountType: 'FIXED', discountValue: 2500 });
    assert.equal(fixed.discountValue, 2500);
  });

  test('productIds must be products of the same merchant and environment', async () => {
    const theirs = await call(ctx.app, 'POST', '/api/v1/products', { key: other.devKey, body: { name: 'Deles', price: 100 } });
    assertFieldError(await call(ctx.app, 'POST', C, { key: m.devKey, body: { code: code(), discountType: 'FIXED', discountValue: 1, productIds: [linkProductId, theirs.body.product.id] } }), 'productIds.1', 'VALIDATION_ERROR');
    const ok = await coupon(m.devKey, { productIds: [linkProductId] });
    assert.deepEqual(ok.productIds, [linkProductId]);
  });

  test('codes are unique per merchant and environment, case-insensitively', async () => {
    const c = await coupon(m.devKey, { code: 'BLACKFRIDAY' });
    assertFieldError(await call(ctx.app, 'POST', C, { key: m.devKey, body: { code: 'blackfriday', discountType: 'FIXED', discountValue: 1 } }), 'code', 'COUPON_ALREADY_EXISTS');
    // Another environment and another merchant may use it.
    assert.equal((await call(ctx.app, 'POST', C, { key: m.liveKey, body: { code: 'BlackFriday', discountType: 'FIXED', discountValue: 1 } })).status, 201);
    assert.equal((await call(ctx.app, 'POST', C, { key: other.devKey, body: { code: 'BLACKFRIDAY', discountType: 'FIXED', discountValue: 1 } })).status, 201);
    // Renaming onto a taken code is refused too; archiving frees the code.
    const d = await coupon(m.devKey);
    assertFieldError(await call(ctx.app, 'PATCH', `${C}/${d.id}`, { key: m.devKey, body: { code: 'BlackFriday' } }), 'code', 'COUPON_ALREADY_EXISTS');
    assert.equal((await call(ctx.app, 'DELETE', `${C}/${c.id}`, { key: m.devKey })).status, 200);
    assert.equal((await call(ctx.app, 'POST', C, { key: m.devKey, body: { code: 'blackFRIDAY', discountType: 'FIXED', discountValue: 1 } })).status, 201);
  });

  test('get, patch (partial, merged rules), delete; isolation', async () => {
    const c = await coupon(m.devKey, { discountType: 'PERCENTAGE', discountValue: 20, usageLimit: 10 });
    assert.equal((await call(ctx.app, 'GET', `${C}/${c.id}`, { key: m.devKey })).body.coupon.id, c.id);
    assert.equal((await call(ctx.app, 'GET', `${C}/${c.id}`, { key: other.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'GET', `${C}/${c.id}`, { key: m.liveKey })).status, 404);
    const p = await call(ctx.app, 'PATCH', `${C}/${c.id}`, { key: m.devKey, body: { description: 'Vinte', maxDiscountCents: 1000 } });
    assert.equal(p.status, 200, p.raw);
    assert.equal(p.body.coupon.discountValue, 20);
    assert.equal(p.body.coupon.description, 'Vinte');
    assert.equal(p.body.coupon.maxDiscountCents, 1000);
    assertFieldError(await call(ctx.app, 'PATCH', `${C}/${c.id}`, { key: m.devKey, body: { discountValue: 150 } }), 'discountValue', 'VALIDATION_ERROR');
    assert.equal((await call(ctx.app, 'PATCH', `${C}/${c.id}`, { key: m.devKey, body: { discountType: 'FIXED', discountValue: 150 } })).status, 200);
    assert400(await call(ctx.app, 'PATCH', `${C}/${c.id}`, { key: m.devKey, body: {} }), 'VALIDATION_ERROR');
    await ctx.database.db.updateTable('coupons').set({ used_count: 4 }).where('id', '=', c.id).execute();
    assertFieldError(await call(ctx.app, 'PATCH', `${C}/${c.id}`, { key: m.devKey, body: { usageLimit: 3 } }), 'usageLimit', 'VALIDATION_ERROR');
    assert.equal((await call(ctx.app, 'DELETE', `${C}/${c.id}`, { key: other.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'DELETE', `${C}/${c.id}`, { key: m.devKey })).status, 200);
    assert.equal((await call(ctx.app, 'GET', `${C}/${c.id}`, { key: m.devKey })).status, 404);
  });

  test('list: page style, active only unless includeInactive or a status, search by code', async () => {
    const fresh = await merchant(ctx.app);
    for (let i = 0; i < 5; i++) await coupon(fresh.devKey, { code: `LISTA${i}`, status: i % 2 ? 'INACTIVE' : 'ACTIVE' });
    const active = await call(ctx.app, 'GET', `${C}?limit=2`, { key: fresh.devKey });
    assert.equal(active.status, 200);
    assert.deepEqual(active.body.pagination, { page: 1, limit: 2, total: 3, totalPages: 2 });
    assert.deepEqual(active.body.coupons.map((c: { code: string }) => c.code), ['LISTA4', 'LISTA2']);
    const all = await call(ctx.app, 'GET', `${C}?includeInactive=true&page=2&limit=2`, { key: fresh.devKey });
    assert.deepEqual(all.body.pagination, { page: 2, limit: 2, total: 5, totalPages: 3 });
    assert.deepEqual(all.body.coupons.map((c: { code: string }) => c.code), ['LISTA2', 'LISTA1']);
    const search = await call(ctx.app, 'GET', `${C}?search=lista3&includeInactive=true`, { key: fresh.devKey });
    assert.deepEqual(search.body.coupons.map((c: { code: string }) => c.code), ['LISTA3']);
    const inactive = await call(ctx.app, 'GET', `${C}?status=INACTIVE`, { key: fresh.devKey });
    assert.deepEqual(inactive.body.coupons.map((c: { code: string }) => c.code), ['LISTA3', 'LISTA1']);
    assert.equal(inactive.body.pagination.total, 2);
    const onlyActive = await call(ctx.app, 'GET', `${C}?status=ACTIVE&includeInactive=true`, { key: fresh.devKey });
    assert.deepEqual(onlyActive.body.coupons.map((c: { code: string }) => c.code), ['LISTA4', 'LISTA2', 'LISTA0']);
    assert400(await call(ctx.app, 'GET', `${C}?status=EXPIRED`, { key: fresh.devKey }), 'VALIDATION_ERROR');
    assert400(await call(ctx.app, 'GET', `${C}?limit=0`, { key: fresh.devKey }), 'VALIDATION_ERROR');
    assert400(await call(ctx.app, 'GET', `${C}?page=0`, { key: fresh.devKey }), 'VALIDATION_ERROR');
  });

  test('permissions: coupons:read / coupons:write', async () => {
    const reader = await merchant(ctx.app, { permissions: ['coupons:read'] });
    const writer = await merchant(ctx.app, { permissions: ['coupons:write'] });
    assert.equal((await call(ctx.app, 'POST', C, { key: reader.devKey, body: { code: 'ABCD', discountType: 'FIXED', discountValue: 1 } })).status, 403);
    assert.equal((await call(ctx.app, 'POST', C, { key: writer.devKey, body: { code: 'ABCD', discountType: 'FIXED', discountValue: 1 } })).status, 201);
    assert.equal((await call(ctx.app, 'GET', C, { key: reader.devKey })).status, 200);
    assert.equal((await call(ctx.app, 'GET', C, { key: writer.devKey })).status, 403);
    assert.equal((await call(ctx.app, 'GET', C)).status, 401);
  });
});
