// Affiliate programs (issue 14 items 1 and 2): commission math and codes, programs (fields, bounds,
// one per product, tenant and environment isolation, permissions).
// Runs on PGlite (default) and on PostgreSQL (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { affiliateCode, commissionCents, formatBRL } from '../src/modules/affiliates/service.ts';
import { call, merchant } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assert400, assert404 } from './kit/assert.ts';
import { affiliateApi, CODE, PR } from './affiliates-kit.ts';

const ctx = useApp();
const owner = useMerchant(ctx);
const aff = useMerchant(ctx);
const stranger = useMerchant(ctx);
const { product, program, join } = affiliateApi(ctx);

describe('commission math and codes (properties)', () => {
  test('a commission is never negative nor more than the amount paid; PERCENTAGE is floor(paid·bp/10000)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), fc.integer({ min: 1, max: 10_000 }), (paid, bp) => {
        const c = commissionCents('PERCENTAGE', bp, paid);
        assert.ok(Number.isSafeInteger(c) && c >= 0 && c <= paid);
        assert.equal(c, Math.floor((paid * bp) / 10_000));
        // Rounding is down, never by a whole cent or more.
        assert.ok(paid * bp - c * 10_000 < 10_000);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), fc.integer({ min: 1, max: 100_000_000 }), (paid, fixed) => {
        assert.equal(commissionCents('FIXED', fixed, paid), Math.min(fixed, paid));
      }),
    );
    assert.equal(commissionCents('PERCENTAGE', 10_000, 12345), 12345);
    assert.equal(commissionCents('PERCENTAGE', 3333, 100), 33);
  });

  test('codes are NAME-XXXXXX from the first word of the account name, without accents', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (name) => {
        assert.match(affiliateCode(name), CODE);
      }),
    );
    assert.match(affiliateCode('João da Silva'), /^JOAO-[A-HJ-NP-Z2-9]{6}$/);
    assert.match(affiliateCode('  ---  '), /^AFILIADO-/);
    assert.match(affiliateCode('Supercalifragilístico Ltda'), /^SUPERCALIFRA-/);
    assert.equal(formatBRL(123456), 'R$ 1.234,56');
  });
});

describe('programs', () => {
  test('created with the documented defaults; GET and list show it', async () => {
    const p = await product(owner.devKey);
    const res = await call(ctx.app, 'POST', PR, { key: owner.devKey, body: { productId: p.id, commissionType: 'PERCENTAGE', commissionValue: 5000 } });
    assert.equal(res.status, 201, res.raw);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message']);
    const d = res.body.data;
    assert.deepEqual(
      { ...d, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        productId: p.id,
        description: null,
        rules: null,
        affiliatePage: null,
        salesPage: null,
        cookieDays: 30,
        attribution: 'LAST_CLICK',
        extendedCommission: false,
        extendedCommissionMonths: null,
        commissionOnOrderBumps: false,
        commissionType: 'PERCENTAGE',
        commissionValue: 5000,
        approval: 'AUTO',
        guaranteeDays: 7,
        status: 'ACTIVE',
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    const got = await call(ctx.app, 'GET', `${PR}/${d.id}`, { key: owner.devKey });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.data, d);
    const list = await call(ctx.app, 'GET', `${PR}?limit=100`, { key: owner.devKey });
    assert.equal(list.status, 200);
    assert.ok(list.body.data.some((x: { id: string }) => x.id === d.id));
    assert.deepEqual(Object.keys(list.body.meta).sort(), ['limit', 'page', 'total', 'totalPages']);
  });

  test('every field set, cookieDays null = unlimited, with a dashboard token', async () => {
    const p = await product(owner.devKey, 50000);
    const body = {
      productId: p.id,
      description: 'Curso completo',
      rules: 'Sem anúncios na marca',
      affiliatePage: 'https://example.com/afiliados',
      salesPage: 'https://example.com/vendas',
      cookieDays: null,
      attribution: 'FIRST_CLICK',
      extendedCommission: true,
      extendedCommissionMonths: 12,
      commissionType: 'FIXED',
      commissionValue: 50000,
      approval: 'MANUAL',
      guaranteeDays: 30,
      status: 'INACTIVE',
    };
    const res = await call(ctx.app, 'POST', PR, { token: owner.token, body });
    assert.equal(res.status, 201, res.raw);
    const { productId, ...rest } = body;
    assert.equal(res.body.data.productId, productId);
    for (const [k, v] of Object.entries(rest)) assert.deepEqual(res.body.data[k], v, k);
  });

  test('bounds: each bad field is named, nothing is created', async () => {
    const p = await product(owner.devKey, 1000);
    const bad: [Record<string, unknown>, string][] = [
      [{ cookieDays: 0 }, 'cookieDays'],
      [{ cookieDays: 366 }, 'cookieDays'],
      [{ cookieDays: 1.5 }, 'cookieDays'],
      [{ guaranteeDays: -1 }, 'guaranteeDays'],
      [{ guaranteeDays: 366 }, 'guaranteeDays'],
      [{ attribution: 'ANY_CLICK' }, 'attribution'],
      [{ approval: 'MAYBE' }, 'approval'],
      [{ commissionValue: 0 }, 'commissionValue'],
      [{ commissionValue: 10001 }, 'commissionValue'],
      [{ commissionType: 'FIXED', commissionValue: 1001 }, 'commissionValue'],
      [{ commissionType: 'SHARE' }, 'commissionType'],
      [{ extendedCommissionMonths: 6 }, 'extendedCommissionMonths'],
      [{ extendedCommission: true, extendedCommissionMonths: 0 }, 'extendedCommissionMonths'],
      [{ salesPage: 'javascript:alert(1)' }, 'salesPage'],
      [{ status: 'OPEN' }, 'status'],
      [{ surprise: 1 }, 'surprise'],
    ];
    for (const [over, field] of bad) {
      const res = await call(ctx.app, 'POST', PR, { key: owner.devKey, body: { productId: p.id, commissionType: 'PERCENTAGE', commissionValue: 1000, ...over } });
      assert.equal(res.status, 400, `${JSON.stringify(over)}: ${res.raw}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(res.body.errors.some((e: { field: string }) => e.field === field || e.field === '' || e.field.startsWith(field)), `${JSON.stringify(over)}: ${res.raw}`);
    }
    // Nothing was created: the product is still free for a program.
    await program(owner.devKey, { productId: p.id, commissionType: 'FIXED', commissionValue: 1000 });
  });

  test("one program per product (also when two creations race); another merchant's product is refused", async () => {
    const p = await product(owner.devKey);
    const body = { productId: p.id, commissionType: 'PERCENTAGE', commissionValue: 1000 };
    const both = await Promise.all([call(ctx.app, 'POST', PR, { key: owner.devKey, body }), call(ctx.app, 'POST', PR, { key: owner.devKey, body })]);
    assert.deepEqual(both.map((r) => r.status).sort(), [201, 400], both.map((r) => r.raw).join('\n'));
    assert400(both.find((r) => r.status === 400)!, 'AFFILIATE_PROGRAM_EXISTS', ['productId']);
    assert400(await call(ctx.app, 'POST', PR, { key: owner.devKey, body }), 'AFFILIATE_PROGRAM_EXISTS', ['productId']);
    const theirs = await product(stranger.devKey);
    assert400(await call(ctx.app, 'POST', PR, { key: owner.devKey, body: { ...body, productId: theirs.id } }), 'VALIDATION_ERROR', ['productId']);
  });

  test('PATCH changes only what is sent and re-checks the merged terms; DELETE archives and frees the product', async () => {
    const p = await product(owner.devKey, 10000);
    const d = await program(owner.devKey, { productId: p.id });
    const patched = await call(ctx.app, 'PATCH', `${PR}/${d.id}`, { key: owner.devKey, body: { cookieDays: 90, approval: 'MANUAL' } });
    assert.equal(patched.status, 200, patched.raw);
    assert.equal(patched.body.data.cookieDays, 90);
    assert.equal(patched.body.data.approval, 'MANUAL');
    assert.equal(patched.body.data.commissionValue, 4000);
    assert.equal(patched.body.data.attribution, 'LAST_CLICK');
    // FIXED above the product price, PERCENTAGE above 100%: refused against the merged state.
    assert400(await call(ctx.app, 'PATCH', `${PR}/${d.id}`, { key: owner.devKey, body: { commissionType: 'FIXED', commissionValue: 10001 } }), 'VALIDATION_ERROR', ['commissionValue']);
    assert400(await call(ctx.app, 'PATCH', `${PR}/${d.id}`, { key: owner.devKey, body: { commissionValue: 10001 } }), 'VALIDATION_ERROR', ['commissionValue']);
    assert400(await call(ctx.app, 'PATCH', `${PR}/${d.id}`, { key: owner.devKey, body: {} }), 'VALIDATION_ERROR', ['body']);
    const fixed = await call(ctx.app, 'PATCH', `${PR}/${d.id}`, { key: owner.devKey, body: { commissionType: 'FIXED', commissionValue: 2500, cookieDays: null } });
    assert.equal(fixed.status, 200, fixed.raw);
    assert.equal(fixed.body.data.commissionType, 'FIXED');
    assert.equal(fixed.body.data.cookieDays, null);

    const del = await call(ctx.app, 'DELETE', `${PR}/${d.id}`, { key: owner.devKey });
    assert.equal(del.status, 200, del.raw);
    assert404(await call(ctx.app, 'GET', `${PR}/${d.id}`, { key: owner.devKey }));
    assert404(await call(ctx.app, 'DELETE', `${PR}/${d.id}`, { key: owner.devKey }));
    assert404(await join(aff.devKey, d.id));
    await program(owner.devKey, { productId: p.id });
  });

  test("another merchant's program is 404 everywhere; permissions are enforced", async () => {
    const d = await program(owner.devKey, { productId: (await product(owner.devKey)).id });
    assert404(await call(ctx.app, 'GET', `${PR}/${d.id}`, { key: stranger.devKey }));
    assert404(await call(ctx.app, 'PATCH', `${PR}/${d.id}`, { key: stranger.devKey, body: { cookieDays: 1 } }));
    assert404(await call(ctx.app, 'DELETE', `${PR}/${d.id}`, { key: stranger.devKey }));
    assert404(await call(ctx.app, 'GET', `${PR}/${d.id}/links`, { key: stranger.devKey }));
    const list = await call(ctx.app, 'GET', `${PR}?limit=100`, { key: stranger.devKey });
    assert.ok(!list.body.data.some((x: { id: string }) => x.id === d.id));

    const readOnly = await merchant(ctx.app, { permissions: ['affiliates:read'] });
    const none = await merchant(ctx.app, { permissions: ['products:read'] });
    assert.equal((await call(ctx.app, 'POST', PR, { key: readOnly.devKey, body: { productId: d.productId, commissionType: 'FIXED', commissionValue: 1 } })).status, 403);
    assert.equal((await join(readOnly.devKey, d.id)).status, 403);
    assert.equal((await call(ctx.app, 'GET', '/api/affiliate/marketplace', { key: readOnly.devKey })).status, 200);
    for (const url of [PR, '/api/affiliate/marketplace', '/api/affiliate/links', '/api/affiliate/stats']) {
      assert.equal((await call(ctx.app, 'GET', url, { key: none.devKey })).status, 403, url);
      assert.equal((await call(ctx.app, 'GET', url)).status, 401, url);
    }
  });
});
