// Affiliate programs (issue 14 items 1 and 2): the marketplace, joining (code, URLs, idempotent, own
// program refused, MANUAL approval), the owner's decisions, the affiliate's links and stats, the events.
// Runs on PGlite (default) and on PostgreSQL (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, merchant, uniqueEmail } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assert400, assert404 } from './kit/assert.ts';
import { affiliateApi, PR } from './affiliates-kit.ts';

const ctx = useApp();
const owner = useMerchant(ctx);
const aff = useMerchant(ctx);
const stranger = useMerchant(ctx);
const { product, paymentLink, program, join, events } = affiliateApi(ctx);

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
