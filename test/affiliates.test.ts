// Affiliate programs (issue 14 items 1 and 2): programs (fields, bounds, one per product, tenant and
// environment isolation, permissions), the marketplace, joining (code, URLs, idempotent, own program
// refused, MANUAL approval), the owner's decisions, the affiliate's links and stats, the events.
// Runs on PGlite (default) and on PostgreSQL (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { affiliateCode, commissionCents, formatBRL } from '../src/modules/affiliates/service.ts';
import { call, merchant, startApp, uniqueEmail, type Merchant, type Res, type TestContext } from './helpers.ts';

const PR = '/api/affiliate/programs';
const CODE = /^[A-Z0-9]{1,12}-[A-HJ-NP-Z2-9]{6}$/;

let ctx: TestContext;
let owner: Merchant;
let aff: Merchant;
let stranger: Merchant;
before(async () => {
  ctx = await startApp();
  [owner, aff, stranger] = await Promise.all([merchant(ctx.app), merchant(ctx.app), merchant(ctx.app)]);
});
after(() => ctx.close());

function assert400(res: Res, code: string, fields: string[]) {
  assert.equal(res.status, 400, res.raw);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'errors', 'message', 'path', 'timestamp']);
  assert.equal(res.body.code, code, res.raw);
  assert.deepEqual([...new Set(res.body.errors.map((e: { field: string }) => e.field))].sort(), [...fields].sort(), res.raw);
}
function assert404(res: Res) {
  assert.equal(res.status, 404, res.raw);
  assert.deepEqual(Object.keys(res.body), ['message']);
}

async function product(key: string, price = 19700, over: Record<string, unknown> = {}) {
  const res = await call(ctx.app, 'POST', '/api/v1/products', { key, body: { name: `Curso ${price}`, price, ...over } });
  assert.equal(res.status, 201, res.raw);
  return res.body.product;
}
async function paymentLink(key: string, productId: string, title = 'Curso de violão') {
  const res = await call(ctx.app, 'POST', '/api/v1/payment-links', { key, body: { title, products: [{ productId, quantity: 1 }] } });
  assert.equal(res.status, 201, res.raw);
  return res.body.paymentLink;
}
async function program(key: string, body: Record<string, unknown>) {
  const res = await call(ctx.app, 'POST', PR, { key, body: { commissionType: 'PERCENTAGE', commissionValue: 4000, ...body } });
  assert.equal(res.status, 201, res.raw);
  return res.body.data;
}
const join = (key: string, programId: string) => call(ctx.app, 'POST', `/api/affiliate/join/${programId}`, { key });
const events = (userId: string, type: string) => ctx.database.db.selectFrom('events').selectAll().where('user_id', '=', userId).where('type', '=', type).execute();

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

describe('affiliates', () => {
  test('join: a NAME-XXXXXX code and one URL per active payment link of the product; idempotent; own program refused', async () => {
    const email = uniqueEmail('afiliada');
    const reg = await call(ctx.app, 'POST', '/api/auth/register', { body: { name: 'Márcia Souza', email, password: 'correct horse battery' } });
    assert.equal(reg.status, 201, reg.raw);
    const marcia = reg.body.token as string;

    const p = await product(owner.devKey);
    const l1 = await paymentLink(owner.devKey, p.id, 'Oferta A');
    const l2 = await paymentLink(owner.devKey, p.id, 'Oferta B');
    await paymentLink(owner.devKey, (await product(owner.devKey)).id, 'Outro produto');
    const d = await program(owner.devKey, { productId: p.id });

    const res = await join(marcia, d.id);
    assert.equal(res.status, 201, res.raw);
    const link = res.body.data;
    assert.match(link.code, /^MARCIA-[A-HJ-NP-Z2-9]{6}$/);
    assert.equal(link.status, 'ACTIVE');
    assert.equal(link.programId, d.id);
    assert.deepEqual(link.product, { id: p.id, name: p.name });
    assert.deepEqual(
      link.urls.map((u: { slug: string; url: string }) => u.url).sort(),
      [l1, l2].map((l) => `${ctx.config.checkoutUrl}/pay/${l.slug}?aff=${link.code}`).sort(),
    );
    assert.ok(link.approvedAt);

    const again = await join(marcia, d.id);
    assert.equal(again.status, 200, again.raw);
    assert.deepEqual(again.body.data, link);

    assert400(await join(owner.devKey, d.id), 'VALIDATION_ERROR', ['programId']);
    assert404(await join(marcia, '00000000-0000-4000-8000-000000000000'));

    // Both sides hear of it.
    for (const who of [owner.id, reg.body.user.id]) {
      const joined = await events(who, 'affiliate.joined');
      assert.ok(joined.some((e) => (e.data as { linkId: string }).linkId === link.id), who);
      const approved = await events(who, 'affiliate.approved');
      assert.ok(approved.some((e) => (e.data as { linkId: string }).linkId === link.id), who);
    }
  });

  test('two joins at once make one link', async () => {
    const d = await program(owner.devKey, { productId: (await product(owner.devKey)).id });
    const both = await Promise.all([join(aff.devKey, d.id), join(aff.devKey, d.id)]);
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 201], both.map((r) => r.raw).join('\n'));
    assert.equal(both[0]!.body.data.id, both[1]!.body.data.id);
    const rows = await ctx.database.db.selectFrom('affiliate_links').select('id').where('program_id', '=', d.id).execute();
    assert.equal(rows.length, 1);
  });

  test("MANUAL approval: PENDING without URLs until the owner approves; refuse and block follow the rules", async () => {
    const p = await product(owner.devKey);
    await paymentLink(owner.devKey, p.id);
    const d = await program(owner.devKey, { productId: p.id, approval: 'MANUAL' });
    const a = await merchant(ctx.app);
    const b = await merchant(ctx.app);
    const la = (await join(a.devKey, d.id)).body.data;
    const lb = (await join(b.devKey, d.id)).body.data;
    assert.equal(la.status, 'PENDING');
    assert.deepEqual(la.urls, []);
    assert.equal((await events(a.id, 'affiliate.approved')).length, 0);

    const listed = await call(ctx.app, 'GET', `${PR}/${d.id}/links`, { key: owner.devKey });
    assert.equal(listed.status, 200, listed.raw);
    assert.equal(listed.body.meta.total, 2);
    const row = listed.body.data.find((x: { id: string }) => x.id === la.id);
    assert.deepEqual({ ...row, createdAt: undefined }, { id: la.id, affiliate: { id: a.id, name: 'Loja Teste' }, code: la.code, status: 'PENDING', clicks: 0, conversions: 0, approvedAt: null, createdAt: undefined });
    const pendingOnly = await call(ctx.app, 'GET', `${PR}/${d.id}/links?status=ACTIVE`, { key: owner.devKey });
    assert.equal(pendingOnly.body.meta.total, 0);

    const decide = (id: string, what: string, key = owner.devKey) => call(ctx.app, 'POST', `${PR}/${d.id}/links/${id}/${what}`, { key });
    // Only the owner decides.
    assert404(await decide(la.id, 'approve', a.devKey));
    assert404(await decide(la.id, 'approve', stranger.devKey));

    const ok = await decide(la.id, 'approve');
    assert.equal(ok.status, 200, ok.raw);
    assert.equal(ok.body.data.status, 'ACTIVE');
    const mine = await call(ctx.app, 'GET', `/api/affiliate/links`, { key: a.devKey });
    assert.equal(mine.body.data[0].status, 'ACTIVE');
    assert.equal(mine.body.data[0].urls.length, 1);
    assert.equal((await events(a.id, 'affiliate.approved')).length, 1);
    assert.equal((await events(owner.id, 'affiliate.approved')).filter((e) => (e.data as { linkId: string }).linkId === la.id).length, 1);

    assert400(await decide(la.id, 'refuse'), 'INVALID_STATE_TRANSITION', ['status']);
    assert400(await decide(la.id, 'approve'), 'INVALID_STATE_TRANSITION', ['status']);
    assert.equal((await decide(la.id, 'block')).body.data.status, 'BLOCKED');
    assert.deepEqual((await call(ctx.app, 'GET', `/api/affiliate/links`, { key: a.devKey })).body.data[0].urls, []);
    assert.equal((await decide(la.id, 'approve')).body.data.status, 'ACTIVE');

    assert.equal((await decide(lb.id, 'refuse')).body.data.status, 'REFUSED');
    assert400(await decide(lb.id, 'approve'), 'INVALID_STATE_TRANSITION', ['status']);
    assert400(await decide(lb.id, 'block'), 'INVALID_STATE_TRANSITION', ['status']);
    // Joining again does not reopen a refusal.
    const rejoin = await join(b.devKey, d.id);
    assert.equal(rejoin.status, 200);
    assert.equal(rejoin.body.data.status, 'REFUSED');
    // A link of another program under this program's id: 404.
    const other = await program(owner.devKey, { productId: (await product(owner.devKey)).id });
    const lo = (await join(a.devKey, other.id)).body.data;
    assert404(await decide(lo.id, 'block'));
  });

  test('marketplace: active programs of the environment but not your own, with product, commission and counts; search and page', async () => {
    const seller = await merchant(ctx.app);
    const tag = `Violino${Date.now()}`;
    const p = await product(seller.devKey, 29990, { name: `${tag} Avançado`, imageUrl: 'https://example.com/v.png' });
    const d = await program(seller.devKey, { productId: p.id, commissionType: 'PERCENTAGE', commissionValue: 3333, cookieDays: 60, guaranteeDays: 14, description: 'Aulas' });
    const hidden = await program(seller.devKey, { productId: (await product(seller.devKey, 1000, { name: `${tag} Básico` })).id, status: 'INACTIVE' });
    const closed = await program(seller.devKey, { productId: (await product(seller.devKey, 1000, { name: `${tag} Antigo` })).id });
    await call(ctx.app, 'DELETE', `${PR}/${closed.id}`, { key: seller.devKey });
    await join(aff.devKey, d.id);

    const res = await call(ctx.app, 'GET', `/api/affiliate/marketplace?search=${encodeURIComponent(tag.toLowerCase())}`, { key: stranger.devKey });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.meta.total, 1);
    assert.deepEqual(
      { ...res.body.data[0], createdAt: undefined },
      {
        programId: d.id,
        product: { id: p.id, name: p.name, price: 29990, imageUrl: 'https://example.com/v.png' },
        description: 'Aulas',
        rules: null,
        affiliatePage: null,
        salesPage: null,
        commission: { type: 'PERCENTAGE', value: 3333, perSaleCents: 9995, perSale: 'R$ 99,95' },
        cookieDays: 60,
        attribution: 'LAST_CLICK',
        extendedCommission: false,
        approval: 'AUTO',
        guaranteeDays: 14,
        affiliateCount: 1,
        conversionRate: 0,
        refundRate: 0,
        createdAt: undefined,
      },
    );
    assert.ok(!res.body.data.some((x: { programId: string }) => x.programId === hidden.id));
    const own = await call(ctx.app, 'GET', `/api/affiliate/marketplace?search=${tag}`, { key: seller.devKey });
    assert.equal(own.body.meta.total, 0);

    const page = await call(ctx.app, 'GET', '/api/affiliate/marketplace?limit=1&page=2', { key: stranger.devKey });
    assert.equal(page.status, 200);
    assert.equal(page.body.meta.page, 2);
    assert.equal(page.body.data.length, 1);
    const bad = await call(ctx.app, 'GET', '/api/affiliate/marketplace?limit=0', { key: stranger.devKey });
    assert.equal(bad.status, 400);
  });

  test('stats: exactly the six documented fields, from your links', async () => {
    const fresh = await merchant(ctx.app);
    const empty = await call(ctx.app, 'GET', '/api/affiliate/stats', { key: fresh.devKey });
    assert.equal(empty.status, 200, empty.raw);
    assert.deepEqual(empty.body, { data: { totalLinks: 0, activeLinks: 0, totalClicks: 0, totalConversions: 0, totalEarnedCents: 0, pendingCents: 0 } });
    const manual = await program(owner.devKey, { productId: (await product(owner.devKey)).id, approval: 'MANUAL' });
    const auto = await program(owner.devKey, { productId: (await product(owner.devKey)).id });
    await join(fresh.devKey, manual.id);
    await join(fresh.devKey, auto.id);
    const res = await call(ctx.app, 'GET', '/api/affiliate/stats', { token: fresh.token });
    assert.deepEqual(res.body, { data: { totalLinks: 2, activeLinks: 1, totalClicks: 0, totalConversions: 0, totalEarnedCents: 0, pendingCents: 0 } });
    const links = await call(ctx.app, 'GET', '/api/affiliate/links?status=PENDING', { key: fresh.devKey });
    assert.equal(links.body.meta.total, 1);
    assert.equal(links.body.data[0].programId, manual.id);
    // The owner closes the program: the link is no longer active for the affiliate, nor promoted.
    await paymentLink(owner.devKey, auto.productId);
    const before = (await call(ctx.app, 'GET', '/api/affiliate/links?status=ACTIVE', { key: fresh.devKey })).body.data[0];
    assert.deepEqual([before.programActive, before.urls.length], [true, 1]);
    assert.equal((await call(ctx.app, 'DELETE', `${PR}/${auto.id}`, { key: owner.devKey })).status, 200);
    const after = (await call(ctx.app, 'GET', '/api/affiliate/links?status=ACTIVE', { key: fresh.devKey })).body.data[0];
    assert.deepEqual([after.id, after.programActive, after.urls], [before.id, false, []]);
    assert.equal((await call(ctx.app, 'GET', '/api/affiliate/stats', { key: fresh.devKey })).body.data.activeLinks, 0);
  });

  test('environments are apart: a production key sees neither development programs nor links', async () => {
    const live = await merchant(ctx.app, { live: true });
    const d = await program(owner.devKey, { productId: (await product(owner.devKey)).id });
    assert404(await join(live.liveKey!, d.id));
    const market = await call(ctx.app, 'GET', '/api/affiliate/marketplace?limit=100', { key: live.liveKey! });
    assert.ok(!market.body.data.some((x: { programId: string }) => x.programId === d.id));
    await join(live.devKey, d.id);
    const links = await call(ctx.app, 'GET', '/api/affiliate/links', { key: live.liveKey! });
    assert.equal(links.body.meta.total, 0);
  });
});
