// Affiliate commissions (issue 14 item 3): attribution by an affiliate's coupon, by the click windows
// and cookie, and by the promotion URL. PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf, merchant } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { commissionApi } from './affiliate-commissions-kit.ts';

const ctx = useApp();
const seller = useMerchant(ctx);
const aff = useMerchant(ctx);
const { setup, buy, pay, commissionOf } = commissionApi(ctx, seller, aff);

let seq = 0;

describe('affiliate coupons', () => {
  test("a coupon tied to an affiliate attributes the sale to it, over the cookie and the body's code", async () => {
    const s = await setup(12000);
    const other = await merchant(ctx.app);
    const second = (await call(ctx.app, 'POST', `/api/affiliate/join/${s.programId}`, { key: other.devKey })).body.data;
    const coupon = await call(ctx.app, 'POST', '/api/v1/coupons', {
      key: seller.devKey,
      body: { code: `AFF${seq++}X`, discountType: 'PERCENTAGE', discountValue: 10, affiliateCode: s.code.toLowerCase() },
    });
    assert.equal(coupon.status, 201, coupon.raw);
    assert.equal(coupon.body.coupon.affiliateCode, s.code);
    const couponCode = coupon.body.coupon.code as string;

    // The buyer followed the other affiliate (cookie and body), then used the first one's coupon.
    const jar = `cofre_aff=${encodeURIComponent(`${second.code}.${Math.floor(Date.now() / 1000) - 60}`)}`;
    const res = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${s.slug}/checkout`, {
      body: { clientName: 'Joana Lima', clientEmail: `joana.cupom.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', couponCode, affiliateCode: second.code },
      headers: { cookie: jar },
    });
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.amountCents, 10800);
    await pay(res.body.transaction.id);
    const [c] = await commissionOf(res.body.transaction.id);
    assert.equal(c!.link_id, s.linkId);
    assert.equal(c!.amount_cents, Math.floor((10800 * 4000) / 10000));

    // Without the coupon the click decides.
    const plain = await buy(s.slug, { affiliateCode: second.code });
    await pay(plain);
    assert.equal((await commissionOf(plain))[0]!.link_id, second.id);

    // A coupon whose affiliate was blocked attributes nothing itself: the clicks decide again.
    const blocked = await call(ctx.app, 'POST', `/api/affiliate/programs/${s.programId}/links/${s.linkId}/block`, { key: seller.devKey });
    assert.equal(blocked.status, 200, blocked.raw);
    const after = await buy(s.slug, { couponCode, affiliateCode: second.code });
    await pay(after);
    assert.equal((await commissionOf(after))[0]!.link_id, second.id);

    // The code is cleared with null, and changed with PATCH.
    const cleared = await call(ctx.app, 'PATCH', `/api/v1/coupons/${coupon.body.coupon.id}`, { key: seller.devKey, body: { affiliateCode: null } });
    assert.equal(cleared.status, 200, cleared.raw);
    assert.equal(cleared.body.coupon.affiliateCode, null);
    const changed = await call(ctx.app, 'PATCH', `/api/v1/coupons/${coupon.body.coupon.id}`, { key: seller.devKey, body: { affiliateCode: second.code } });
    assert.equal(changed.body.coupon.affiliateCode, second.code);
    await assertLedgerBalanced(ctx.database.db);
  });

  test("only a code of an affiliate of one of your programs: unknown codes and other merchants' affiliates are a 400 that creates nothing", async () => {
    const theirs = await setup(5000, {}, aff, await merchant(ctx.app));
    for (const affiliateCode of ['NOPE-ABCDEF', theirs.code, 'not a code']) {
      const code = `BAD${seq++}X`;
      const res = await call(ctx.app, 'POST', '/api/v1/coupons', { key: seller.devKey, body: { code, discountType: 'FIXED', discountValue: 100, affiliateCode } });
      assert.equal(res.status, 400, res.raw);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(res.body.errors.map((e: { field: string }) => e.field), ['affiliateCode']);
      assert.equal((await call(ctx.app, 'GET', `/api/v1/coupons?search=${code}`, { key: seller.devKey })).body.pagination.total, 0);
    }
  });
});

describe('attribution', () => {
  test('windows (properties): only clicks within cookieDays count, null is forever; FIRST_CLICK takes the earliest, LAST_CLICK the latest', async () => {
    const { chooseClick } = await import('../src/modules/affiliates/attribution.ts');
    const day = 86_400;
    fc.assert(
      fc.property(
        fc.array(fc.record({ code: fc.constantFrom('ANA-AAAAAA', 'BIA-BBBBBB', 'CAU-CCCCCC'), at: fc.integer({ min: 1, max: 400 * day }) }), { maxLength: 12 }),
        fc.option(fc.integer({ min: 1, max: 365 }), { nil: null }),
        fc.constantFrom('FIRST_CLICK', 'LAST_CLICK') as fc.Arbitrary<'FIRST_CLICK' | 'LAST_CLICK'>,
        (clicks, cookieDays, attribution) => {
          const now = 400 * day;
          const got = chooseClick(clicks, { cookieDays, attribution }, now);
          const live = clicks.filter((c) => cookieDays === null || now - c.at <= cookieDays * day);
          if (!live.length) return assert.equal(got, null);
          const ats = live.map((c) => c.at);
          assert.ok(got);
          assert.equal(got.at, attribution === 'FIRST_CLICK' ? Math.min(...ats) : Math.max(...ats));
          assert.ok(live.some((c) => c.code === got.code && c.at === got.at));
        },
      ),
    );
  });

  test('the cookie keeps each code\'s first and latest click, at most 12, and survives garbage', async () => {
    const { addClick, parseClicks, formatClicks, MAX_CLICKS } = await import('../src/modules/affiliates/attribution.ts');
    fc.assert(
      fc.property(fc.array(fc.record({ code: fc.constantFrom('ANA-AAAAAA', 'BIA-BBBBBB'), at: fc.integer({ min: 1, max: 1e9 }) }), { maxLength: 30 }), (seq) => {
        let clicks = parseClicks(null);
        for (const c of seq) clicks = parseClicks(formatClicks(addClick(clicks, c)));
        assert.ok(clicks.length <= MAX_CLICKS);
        for (const code of ['ANA-AAAAAA', 'BIA-BBBBBB']) {
          const mine = seq.filter((c) => c.code === code).map((c) => c.at);
          if (mine.length) assert.equal(Math.max(...clicks.filter((c) => c.code === code).map((c) => c.at)), Math.max(...mine));
        }
      }),
    );
    assert.deepEqual(parseClicks('x|ANA-AAAAAA.abc|<script>|ANA-AAAAAA.5'), [{ code: 'ANA-AAAAAA', at: 5 }]);
    assert.deepEqual(parseClicks('%E0%A4%A'), []);
    fc.assert(fc.property(fc.string(), (junk) => void parseClicks(junk)));
  });

  test('the promotion URL: a click counted once per IP and hour, a cookie that attributes a later checkout without the code', async () => {
    const s = await setup(8000, { attribution: 'FIRST_CLICK' });
    const other = await merchant(ctx.app);
    const joined = await call(ctx.app, 'POST', `/api/affiliate/join/${s.programId}`, { key: other.devKey });
    const second = joined.body.data.code as string;
    const visit = (code: string, cookie?: string, ip = '203.0.113.7') =>
      ctx.app.inject({ method: 'GET', url: `/pay/${s.slug}?aff=${code}`, remoteAddress: ip, headers: cookie ? { cookie } : {} });
    const first = await visit(s.code);
    assert.equal(first.statusCode, 200);
    const set = [first.headers['set-cookie']].flat().find((c) => String(c).startsWith('cofre_aff='));
    assert.ok(set, JSON.stringify(first.headers['set-cookie']));
    const jar = String(set).split(';')[0]!;
    await visit(s.code, jar);
    await visit(s.code, jar, '203.0.113.8');
    // Then the buyer follows another affiliate's URL: FIRST_CLICK keeps the first.
    const again = await visit(second, jar);
    const jar2 = String([again.headers['set-cookie']].flat().find((c) => String(c).startsWith('cofre_aff='))).split(';')[0]!;
    await ctx.app.deps.affiliates.clicks.flush();
    const link = await ctx.database.db.selectFrom('affiliate_links').select('clicks').where('id', '=', s.linkId).executeTakeFirstOrThrow();
    assert.equal(link.clicks, 2, 'one click per IP and hour');

    // A mangled cookie is no clicks, on the page and at the checkout alike.
    assert.equal((await visit(s.code, 'cofre_aff=%E0%A4%A')).statusCode, 200);
    const mangled = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${s.slug}/checkout`, {
      body: { clientName: 'Joana Lima', clientEmail: 'joana.mangled@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
      headers: { cookie: 'cofre_aff=%E0%A4%A' },
    });
    assert.equal(mangled.status, 201, mangled.raw);
    const res = await call(ctx.app, 'POST', `/api/payment-links/public/slug/${s.slug}/checkout`, {
      body: { clientName: 'Joana Lima', clientEmail: 'joana.cookie@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
      headers: { cookie: jar2 },
    });
    assert.equal(res.status, 201, res.raw);
    await pay(res.body.transaction.id);
    const [c] = await commissionOf(res.body.transaction.id);
    assert.equal(c!.link_id, s.linkId);
    await assertLedgerBalanced(ctx.database.db);
  });
});
