// Coupons: public validation (every rule, enumeration-resistant answers with the same database work).
// PGlite by default, PostgreSQL with TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { validatePublic } from '../src/modules/coupons/service.ts';
import { call, cpf } from './helpers.ts';
import { ready, useApp, useMerchant } from './kit/app.ts';
import { assertFieldError } from './kit/assert.ts';
import { C, couponApi, INVALID, shop } from './coupons-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx, { live: true });
const other = useMerchant(ctx);
let slug: string;
let linkProductId: string;
before(async () => {
  ({ slug, productId: linkProductId } = await shop(await ready(ctx), (await ready(m)).devKey));
});
const { coupon, validate } = couponApi(ctx);

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
    assertFieldError(await validate({ code: c.code, amountCents: 3000, amount: 5000, productIds: [linkProductId] }), 'amount', 'VALIDATION_ERROR');
    // No merchant to resolve, or no amount: not valid / malformed.
    assert.deepEqual((await validate({ code: c.code, amountCents: 3000, productIds: [] })).body, INVALID);
    assertFieldError(await validate({ code: c.code, productIds: [linkProductId] }), 'amountCents', 'VALIDATION_ERROR');
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
