// Coupons: CRUD and its rules, public validation (every rule, enumeration-resistant answers with the
// same database work), the rate limits (memory, and Redis when TEST_REDIS_URL is set, shared between
// two instances), and use counting at payment. PGlite by default, PostgreSQL with TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import type { App } from '../src/deps.ts';
import { createLimiter } from '../src/http/ratelimit.ts';
import { validatePublic } from '../src/modules/coupons/service.ts';
import { appOver, call, cpf, dropSchema, merchant, openDatabase, REDIS_URL, startApp, testConfig, type Merchant, type Res, type TestContext } from './helpers.ts';
import { specBody } from './envelope.ts';

const C = '/api/v1/coupons';
const V = '/api/coupons/validate';
const INVALID = { valid: false, message: 'Invalid or unavailable coupon' };

let ctx: TestContext;
let m: Merchant;
let other: Merchant;
let slug: string;
let linkProductId: string;

before(async () => {
  ctx = await startApp();
  m = await merchant(ctx.app, { live: true });
  other = await merchant(ctx.app);
  const p = await call(ctx.app, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Camiseta', price: 5000 } });
  linkProductId = p.body.product.id;
  const l = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Camisetas', products: [{ productId: linkProductId, quantity: 2 }] } });
  slug = l.body.paymentLink.slug;
});
after(() => ctx.close());

function assert400(res: Res, code: string, field?: string) {
  assert.equal(res.status, 400, res.raw);
  assert.equal(res.body.code, code, res.raw);
  if (field) assert.ok(res.body.errors.some((e: { field: string }) => e.field === field), `expected an error on ${field}: ${res.raw}`);
}

let seq = 0;
const code = (prefix = 'CUPOM') => `${prefix}${++seq}${randomBytes(2).toString('hex').toUpperCase()}`;
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
      assert400(await call(ctx.app, 'POST', C, { key: m.devKey, body }), 'VALIDATION_ERROR', missing);
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
    for (const [over, field] of bad) assert400(await call(ctx.app, 'POST', C, { key: m.devKey, body: { ...base(), ...over } }), 'VALIDATION_ERROR', field);
    // A FIXED discount is in cents, so more than 100 is fine.
    const fixed = await coupon(m.devKey, { discountType: 'FIXED', discountValue: 2500 });
    assert.equal(fixed.discountValue, 2500);
  });

  test('productIds must be products of the same merchant and environment', async () => {
    const theirs = await call(ctx.app, 'POST', '/api/v1/products', { key: other.devKey, body: { name: 'Deles', price: 100 } });
    assert400(await call(ctx.app, 'POST', C, { key: m.devKey, body: { code: code(), discountType: 'FIXED', discountValue: 1, productIds: [linkProductId, theirs.body.product.id] } }), 'VALIDATION_ERROR', 'productIds.1');
    const ok = await coupon(m.devKey, { productIds: [linkProductId] });
    assert.deepEqual(ok.productIds, [linkProductId]);
  });

  test('codes are unique per merchant and environment, case-insensitively', async () => {
    const c = await coupon(m.devKey, { code: 'BLACKFRIDAY' });
    assert400(await call(ctx.app, 'POST', C, { key: m.devKey, body: { code: 'blackfriday', discountType: 'FIXED', discountValue: 1 } }), 'COUPON_ALREADY_EXISTS', 'code');
    // Another environment and another merchant may use it.
    assert.equal((await call(ctx.app, 'POST', C, { key: m.liveKey, body: { code: 'BlackFriday', discountType: 'FIXED', discountValue: 1 } })).status, 201);
    assert.equal((await call(ctx.app, 'POST', C, { key: other.devKey, body: { code: 'BLACKFRIDAY', discountType: 'FIXED', discountValue: 1 } })).status, 201);
    // Renaming onto a taken code is refused too; archiving frees the code.
    const d = await coupon(m.devKey);
    assert400(await call(ctx.app, 'PATCH', `${C}/${d.id}`, { key: m.devKey, body: { code: 'BlackFriday' } }), 'COUPON_ALREADY_EXISTS', 'code');
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
    assert400(await call(ctx.app, 'PATCH', `${C}/${c.id}`, { key: m.devKey, body: { discountValue: 150 } }), 'VALIDATION_ERROR', 'discountValue');
    assert.equal((await call(ctx.app, 'PATCH', `${C}/${c.id}`, { key: m.devKey, body: { discountType: 'FIXED', discountValue: 150 } })).status, 200);
    assert400(await call(ctx.app, 'PATCH', `${C}/${c.id}`, { key: m.devKey, body: {} }), 'VALIDATION_ERROR');
    await ctx.database.db.updateTable('coupons').set({ used_count: 4 }).where('id', '=', c.id).execute();
    assert400(await call(ctx.app, 'PATCH', `${C}/${c.id}`, { key: m.devKey, body: { usageLimit: 3 } }), 'VALIDATION_ERROR', 'usageLimit');
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

describe('POST /api/coupons/validate', () => {
  test('by payment link slug: amount and products default to the link', async () => {
    const c = await coupon(m.devKey, { discountValue: 15 });
    const res = await validate({ code: c.code.toLowerCase(), paymentLinkSlug: slug });
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual(res.body, { valid: true, discountAmount: 1500, finalAmount: 8500, coupon: { code: c.code, discountType: 'PERCENTAGE', discountValue: 15, description: null } });
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  test('by productIds with amountCents or amount', async () => {
    const c = await coupon(m.devKey, { discountType: 'FIXED', discountValue: 700 });
    const a = await validate({ code: c.code, amountCents: 3000, productIds: [linkProductId] });
    assert.deepEqual([a.status, a.body.discountAmount, a.body.finalAmount], [200, 700, 2300]);
    const b = await validate({ code: c.code, amount: 3000, productIds: [linkProductId] });
    assert.deepEqual([b.status, b.body.finalAmount], [200, 2300]);
    // Both, agreeing, is the same question; disagreeing is refused, not settled by one of them.
    assert.deepEqual((await validate({ code: c.code, amountCents: 3000, amount: 3000, productIds: [linkProductId] })).body.finalAmount, 2300);
    assert400(await validate({ code: c.code, amountCents: 3000, amount: 5000, productIds: [linkProductId] }), 'VALIDATION_ERROR', 'amount');
    // No merchant to resolve, or no amount: not valid / malformed.
    assert.deepEqual((await validate({ code: c.code, amountCents: 3000, productIds: [] })).body, INVALID);
    assert400(await validate({ code: c.code, productIds: [linkProductId] }), 'VALIDATION_ERROR', 'amountCents');
  });

  test('PERCENTAGE rounds to the cent and is capped by maxDiscountCents; FIXED is capped at the amount', async () => {
    const pct = await coupon(m.devKey, { discountValue: 33 });
    assert.equal((await validate({ code: pct.code, amountCents: 1001, productIds: [linkProductId] })).body.discountAmount, 330); // 330.33
    assert.equal((await validate({ code: pct.code, amountCents: 1005, productIds: [linkProductId] })).body.discountAmount, 332); // 331.65
    const capped = await coupon(m.devKey, { discountValue: 50, maxDiscountCents: 2000 });
    assert.equal((await validate({ code: capped.code, amountCents: 10000, productIds: [linkProductId] })).body.discountAmount, 2000);
    const fixed = await coupon(m.devKey, { discountType: 'FIXED', discountValue: 50000 });
    const r = await validate({ code: fixed.code, amountCents: 10000, productIds: [linkProductId] });
    assert.deepEqual([r.body.discountAmount, r.body.finalAmount], [10000, 0]);
  });

  test('every rule gives the same answer', async () => {
    const now = Date.now();
    const day = 86_400_000;
    const someoneElse = await call(ctx.app, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Outro', price: 100 } });
    const cases: Record<string, unknown>[] = [];
    const push = async (over: Record<string, unknown>, body: Record<string, unknown> = {}) => cases.push({ code: (await coupon(m.devKey, over)).code, paymentLinkSlug: slug, ...body });
    cases.push({ code: 'NAOEXISTE', paymentLinkSlug: slug });
    cases.push({ code: 'x', paymentLinkSlug: slug }); // not even a valid code shape
    await push({ status: 'INACTIVE' });
    await push({ validFrom: new Date(now + day).toISOString() });
    await push({ validUntil: new Date(now - 1000).toISOString(), validFrom: new Date(now - 2 * day).toISOString() });
    await push({ minPurchaseCents: 10001 });
    await push({ productIds: [someoneElse.body.product.id] });
    const usedUp = await coupon(m.devKey, { usageLimit: 2 });
    await ctx.database.db.updateTable('coupons').set({ used_count: 2 }).where('id', '=', usedUp.id).execute();
    cases.push({ code: usedUp.code, paymentLinkSlug: slug });
    const archived = await coupon(m.devKey);
    await call(ctx.app, 'DELETE', `${C}/${archived.id}`, { key: m.devKey });
    cases.push({ code: archived.code, paymentLinkSlug: slug });
    const live = await coupon(m.liveKey!);
    cases.push({ code: live.code, paymentLinkSlug: slug }); // production coupon on a development link
    const foreign = await coupon(other.devKey);
    cases.push({ code: foreign.code, paymentLinkSlug: slug }); // another merchant's coupon
    cases.push({ code: (await coupon(m.devKey)).code, paymentLinkSlug: 'no-such-link' });
    const raws = new Set<string>();
    for (const body of cases) {
      const res = await validate(body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.raw}`);
      assert.deepEqual(res.body, INVALID, JSON.stringify(body));
      raws.add(res.raw);
    }
    assert.equal(raws.size, 1, 'byte-identical answers');
  });

  test('perUserLimit counts uses reserved by pending checkouts and paid ones, by document or e-mail; a failed payment gives its use back', async () => {
    const c = await coupon(m.devKey, { perUserLimit: 1 });
    const doc = cpf();
    const co = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${slug}/checkout`, {
      body: { clientName: 'Bia', clientEmail: 'bia@example.com', clientDocument: doc, paymentMethod: 'PIX', couponCode: c.code },
    });
    assert.equal(co.status, 201, co.raw);
    // Pending: the use is reserved for it, so the same customer has none left.
    assert.deepEqual((await validate({ code: c.code, paymentLinkSlug: slug, clientDocument: doc })).body, INVALID);
    await call(ctx.app, 'POST', `/api/v1/transactions/${co.body.transaction.id}/simulate`, { key: m.devKey, body: { outcome: 'FAILED' } });
    assert.equal((await validate({ code: c.code, paymentLinkSlug: slug, clientDocument: doc })).status, 200, 'the failed payment gave it back');
    const again = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${slug}/checkout`, {
      body: { clientName: 'Bia', clientEmail: 'bia@example.com', clientDocument: doc, paymentMethod: 'PIX', couponCode: c.code },
    });
    await call(ctx.app, 'POST', `/api/v1/transactions/${again.body.transaction.id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
    assert.deepEqual((await validate({ code: c.code, paymentLinkSlug: slug, clientDocument: doc })).body, INVALID);
    assert.deepEqual((await validate({ code: c.code, paymentLinkSlug: slug, clientEmail: 'BIA@example.com' })).body, INVALID);
    assert.equal((await validate({ code: c.code, paymentLinkSlug: slug, clientDocument: cpf(), clientEmail: 'outra@example.com' })).status, 200);
  });

  test('the same database work on every path (valid, unknown, expired, used up, no merchant)', async () => {
    // Each statement as its kind and the tables it reads: the same sequence on every path is the
    // structural guarantee that an invalid code costs what a valid one does.
    let statements: string[] = [];
    const tablesOf = (node: unknown) => [...new Set([...JSON.stringify(node).matchAll(/"kind":"TableNode".*?"name":"(\w+)"/g)].map((m) => m[1]))].sort().join(',');
    const counter: KyselyPlugin = {
      transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => (statements.push(`${args.node.kind}(${tablesOf(args.node)})`), args.node),
      transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => args.result,
    };
    const db = ctx.database.db.withPlugin(counter);
    const valid = await coupon(m.devKey);
    const expired = await coupon(m.devKey, { validUntil: new Date(Date.now() - 1000).toISOString() });
    const usedUp = await coupon(m.devKey, { usageLimit: 1 });
    await ctx.database.db.updateTable('coupons').set({ used_count: 1 }).where('id', '=', usedUp.id).execute();
    const bodies = [
      { code: valid.code, paymentLinkSlug: slug, clientEmail: 'a@example.com' },
      { code: 'NOPE123', paymentLinkSlug: slug },
      { code: expired.code, paymentLinkSlug: slug },
      { code: usedUp.code, paymentLinkSlug: slug },
      { code: valid.code, paymentLinkSlug: 'unknown-slug' },
    ];
    const work: string[] = [];
    const times: number[][] = bodies.map(() => []);
    for (let round = 0; round < 30; round++) {
      for (const [i, body] of bodies.entries()) {
        statements = [];
        const t0 = performance.now();
        await validatePublic(db, body);
        times[i].push(performance.now() - t0);
        if (round === 0) work.push(statements.join(' > '));
      }
    }
    assert.equal(new Set(work).size, 1, `statements per path:\n${work.join('\n')}`);
    assert.match(work[0], /coupons/);
    // Similar timing: the fastest run of each path (the least disturbed by other load) within a few ms.
    const fastest = times.map((t) => Math.min(...t));
    const spread = Math.max(...fastest) - Math.min(...fastest);
    assert.ok(spread < Math.max(5, Math.min(...fastest)), `fastest times ${fastest.map((x) => x.toFixed(2)).join(', ')} ms`);
  });
});

describe('rate limits', () => {
  async function limits(app: App, label: string, slug: string, key: string) {
    // 10 per minute per IP, whatever the device.
    const ip = `10.200.0.${Math.floor(Math.random() * 200)}`;
    for (let i = 0; i < 10; i++) assert.equal((await validate({ code: 'NOPE', paymentLinkSlug: slug }, { ip, app })).status, 400, `${label}: attempt ${i + 1}`);
    const eleventh = await validate({ code: 'NOPE', paymentLinkSlug: slug }, { ip, app });
    assert.equal(eleventh.status, 429, `${label}: ${eleventh.raw}`);
    assert.deepEqual(Object.keys(eleventh.body), ['message']);
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
    assert400(await checkout(c.code), 'INVALID_COUPON', 'couponCode');
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
    assert400(await checkout(c.code), 'INVALID_COUPON', 'couponCode');
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
