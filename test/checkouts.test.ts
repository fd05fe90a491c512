// Checkouts API (issue 37): CRUD with its rules, branding with images brought to Cofre, order bumps,
// upsell and downsell; tenancy, environments, permissions and the origin's paths.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, merchant } from './helpers.ts';
import { ready, useApp, useBefore, useMerchant } from './kit/app.ts';
import { assert403, assert404, assertFieldError } from './kit/assert.ts';
import { CK, checkoutsApi } from './checkouts-kit.ts';
import { IMAGES, startImageHost } from './media-kit.ts';

const host = useBefore('image host', startImageHost, (h) => h.close());
const ctx = useApp(async () => ({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: (await ready(host)).certFile, LOG_LEVEL: 'warn' } }));
const m = useMerchant(ctx, { live: true });
const other = useMerchant(ctx);
const api = checkoutsApi(ctx);

describe('checkouts', () => {
  test('create with defaults, get, list (page style), partial PUT, PATCH and /api aliases, delete', async () => {
    const l = await api.link(m.devKey);
    const c = await api.checkout(m.devKey, { paymentLinkId: l.id });
    assert.equal(c.name, 'Página do curso');
    assert.equal(c.paymentLinkId, l.id);
    assert.deepEqual(c.settings, { pixEnabled: true, boletoEnabled: true, creditCardEnabled: true, maxInstallments: 12, requirePhone: false, requireAddress: false, showOrderBumps: true });
    assert.deepEqual(c.customization, { primaryColor: null, logoUrl: null, backgroundUrl: null });
    assert.equal(c.checkoutConfig.theme.bannerLayout, 'contained');
    assert.equal(c.checkoutConfig.showPoweredBy, true);
    assert.deepEqual(c.orderBumps, []);
    assert.equal(c.upsell, null);
    assert.equal(c.livemode, false);

    const got = await call(ctx.app, 'GET', `${CK}/${c.id}`, { key: m.devKey });
    assert.deepEqual(got.body.checkout, c);
    const put = await call(ctx.app, 'PUT', `${CK}/${c.id}`, { key: m.devKey, body: { settings: { pixEnabled: false, maxInstallments: 3 } } });
    assert.equal(put.status, 200, put.raw);
    assert.equal(put.body.checkout.name, 'Página do curso');
    assert.equal(put.body.checkout.settings.pixEnabled, false);
    assert.equal(put.body.checkout.settings.maxInstallments, 3);
    assert.equal(put.body.checkout.settings.boletoEnabled, true);
    const patch = await call(ctx.app, 'PATCH', `/api/checkouts/${c.id}`, { key: m.devKey, body: { name: 'Outra página' } });
    assert.equal(patch.status, 200, patch.raw);
    assert.equal(patch.body.checkout.name, 'Outra página');
    assert.equal(patch.body.checkout.settings.maxInstallments, 3);

    const list = await call(ctx.app, 'GET', '/api/checkouts?page=1&limit=1', { key: m.devKey });
    assert.equal(list.status, 200, list.raw);
    assert.equal(list.body.checkouts.length, 1);
    assert.ok(list.body.pagination.total >= 1);
    const byLink = await call(ctx.app, 'GET', `${CK}?paymentLinkId=${l.id}`, { key: m.devKey });
    assert.deepEqual(byLink.body.checkouts.map((x: { id: string }) => x.id), [c.id]);

    assert.equal((await call(ctx.app, 'DELETE', `${CK}/${c.id}`, { key: m.devKey })).status, 200);
    assert404(await call(ctx.app, 'GET', `${CK}/${c.id}`, { key: m.devKey }));
    // The link is free for another checkout once its checkout is gone.
    await api.checkout(m.devKey, { paymentLinkId: l.id });
  });

  test('rules: bad input is a 400 on its field and changes nothing; one checkout per link (409)', async () => {
    const l = await api.link(m.devKey);
    const bad: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'name'],
      [{ name: 'x', settings: { maxInstallments: 13 } }, 'settings.maxInstallments'],
      [{ name: 'x', settings: { pixEnabled: false, boletoEnabled: false, creditCardEnabled: false } }, 'settings'],
      [{ name: 'x', customization: { primaryColor: 'red' } }, 'customization.primaryColor'],
      [{ name: 'x', customization: { primaryColor: '#ffd400' } }, 'customization.primaryColor'],
      [{ name: 'x', checkoutConfig: { theme: { primaryColor: '#a0e0ff' } } }, 'checkoutConfig.theme.primaryColor'],
      [{ name: 'x', checkoutConfig: { theme: { bannerLayout: 'huge' } } }, 'checkoutConfig.theme.bannerLayout'],
      [{ name: 'x', checkoutConfig: { showTermsFooter: true } }, 'checkoutConfig.termsUrl'],
      [{ name: 'x', customization: { logoUrl: 'javascript:alert(1)' } }, 'customization.logoUrl'],
      [{ name: 'x', customization: { logoUrl: host.url('/icon.svg') } }, 'customization.logoUrl'],
      [{ name: 'x', paymentLinkId: (await api.link(other.devKey)).id }, 'paymentLinkId'],
    ];
    const before = (await call(ctx.app, 'GET', `${CK}?limit=100`, { key: m.devKey })).body.pagination.total;
    for (const [body, field] of bad) assertFieldError(await call(ctx.app, 'POST', CK, { key: m.devKey, body }), field);
    assert.equal((await call(ctx.app, 'GET', `${CK}?limit=100`, { key: m.devKey })).body.pagination.total, before);
    const contrast = await call(ctx.app, 'POST', CK, { key: m.devKey, body: { name: 'x', customization: { primaryColor: '#ffd400' } } });
    assert.match(contrast.body.errors[0].message, /contrast of 1\.\d\d:1; at least 4\.5:1/);

    await api.checkout(m.devKey, { paymentLinkId: l.id });
    const second = await call(ctx.app, 'POST', CK, { key: m.devKey, body: { name: 'Segunda', paymentLinkId: l.id } });
    assert.equal(second.status, 409, second.raw);
    const c2 = await api.checkout(m.devKey);
    assert.equal((await call(ctx.app, 'PUT', `${CK}/${c2.id}`, { key: m.devKey, body: { paymentLinkId: l.id } })).status, 409);
  });

  test('branding: images fetched once and served by Cofre; dark readable colours accepted; null clears', async () => {
    const logo = host.url('/logo.png');
    const c = await api.checkout(m.devKey, {
      customization: { primaryColor: '#1a237e', logoUrl: logo },
      checkoutConfig: { theme: { bannerUrl: host.url('/logo.jpg'), buttonText: 'Quero agora', fontFamily: 'serif', colorScheme: 'dark' }, showSocialProof: true, showTermsFooter: true, termsUrl: 'https://loja.example/termos' },
    });
    assert.equal(c.customization.logoUrl, logo);
    assert.equal(c.checkoutConfig.theme.buttonText, 'Quero agora');
    assert.equal(c.checkoutConfig.termsUrl, 'https://loja.example/termos');
    const fetched = host.count('/logo.png');
    assert.equal(fetched, 1);
    const row = await ctx.database.db.selectFrom('checkouts').select(['customization', 'checkout_config']).where('id', '=', c.id).executeTakeFirstOrThrow();
    const served = (row.customization as { served: Record<string, string> }).served.logoUrl;
    assert.match(served, /^\/media\/[0-9a-f-]{36}$/);
    const img = await ctx.app.inject({ method: 'GET', url: served });
    assert.equal(img.statusCode, 200);
    assert.equal(img.headers['content-type'], 'image/png');
    assert.ok(img.rawPayload.equals(IMAGES.png));
    // Saving the same address again fetches nothing; clearing it with null.
    const again = await call(ctx.app, 'PUT', `${CK}/${c.id}`, { key: m.devKey, body: { customization: { logoUrl: logo }, checkoutConfig: { theme: { buttonText: null } } } });
    assert.equal(again.status, 200, again.raw);
    assert.equal(again.body.checkout.checkoutConfig.theme.buttonText, null);
    assert.equal(again.body.checkout.checkoutConfig.theme.fontFamily, 'serif');
    assert.equal(host.count('/logo.png'), fetched);
    const cleared = await call(ctx.app, 'PUT', `${CK}/${c.id}`, { key: m.devKey, body: { customization: { logoUrl: null } } });
    assert.equal(cleared.body.checkout.customization.logoUrl, null);
    assert.equal(cleared.body.checkout.customization.primaryColor, '#1a237e');
  });

  test('payment links carry checkoutConfig too, with the same rules', async () => {
    const l = await api.link(m.devKey, { checkoutConfig: { theme: { primaryColor: '#6a1b9a', logoUrl: host.url('/logo.webp'), borderRadius: 'rounded' }, showPoweredBy: false } });
    const got = (await call(ctx.app, 'GET', `/api/v1/payment-links/${l.id}`, { key: m.devKey })).body.paymentLink;
    assert.equal(got.checkoutConfig.theme.primaryColor, '#6a1b9a');
    assert.equal(got.checkoutConfig.theme.borderRadius, 'rounded');
    assert.equal(got.checkoutConfig.showPoweredBy, false);
    const patched = await call(ctx.app, 'PATCH', `/api/v1/payment-links/${l.id}`, { key: m.devKey, body: { amountCents: 10000, checkoutConfig: { theme: { primaryColor: '#eeeeee' } } } });
    assertFieldError(patched, 'checkoutConfig.theme.primaryColor');
    const plain = await api.link(m.devKey);
    const view = (await call(ctx.app, 'GET', `/api/v1/payment-links/${plain.id}`, { key: m.devKey })).body.paymentLink;
    assert.equal(view.checkoutConfig.showHeader, true);
  });
});

describe('order bumps', () => {
  test('add (with the product and the price after the discount), list in position order, update, delete', async () => {
    const c = await api.checkout(m.devKey);
    const a = await api.product(m.devKey, { name: 'Planner', price: 1990 });
    const b = await api.product(m.devKey, { name: 'Aula bônus', price: 5000 });
    const first = await api.bump(m.devKey, c.id, { productId: a.id, discountCents: 500, position: 2 });
    assert.deepEqual(first.product, { id: a.id, name: 'Planner', price: 1990 });
    assert.equal(first.priceCents, 1490);
    assert.equal(first.title, 'Planner');
    const second = await api.bump(m.devKey, c.id, { productId: b.id, title: 'Leve também a aula bônus', discountPercentage: 12.5, position: 1 });
    assert.equal(second.priceCents, 4375);
    assert.equal(second.discountPercentage, 12.5);
    const list = await call(ctx.app, 'GET', `${CK}/${c.id}/order-bumps`, { key: m.devKey });
    assert.deepEqual(list.body.orderBumps.map((x: { id: string }) => x.id), [second.id, first.id]);
    const upd = await call(ctx.app, 'PUT', `${CK}/${c.id}/order-bumps/${first.id}`, { key: m.devKey, body: { discountCents: null, discountPercentage: 50 } });
    assert.equal(upd.status, 200, upd.raw);
    assert.equal(upd.body.orderBump.priceCents, 995);
    assert.equal((await call(ctx.app, 'DELETE', `${CK}/${c.id}/order-bumps/${first.id}`, { key: m.devKey })).status, 200);
    assert404(await call(ctx.app, 'DELETE', `${CK}/${c.id}/order-bumps/${first.id}`, { key: m.devKey }));
    assert.deepEqual((await call(ctx.app, 'GET', `${CK}/${c.id}`, { key: m.devKey })).body.checkout.orderBumps.map((x: { id: string }) => x.id), [second.id]);
  });

  test('rules: one discount, less than the price, an active product of this merchant; at most 5 (409)', async () => {
    const c = await api.checkout(m.devKey);
    const p = await api.product(m.devKey, { price: 1000 });
    const path = `${CK}/${c.id}/order-bumps`;
    assertFieldError(await call(ctx.app, 'POST', path, { key: m.devKey, body: { productId: p.id, discountCents: 100, discountPercentage: 10 } }), 'discountCents');
    assertFieldError(await call(ctx.app, 'POST', path, { key: m.devKey, body: { productId: p.id, discountCents: 1000 } }), 'discountCents');
    assertFieldError(await call(ctx.app, 'POST', path, { key: m.devKey, body: { productId: p.id, discountPercentage: 100 } }), 'discountPercentage');
    assertFieldError(await call(ctx.app, 'POST', path, { key: m.devKey, body: { productId: (await api.product(other.devKey)).id } }), 'productId');
    const inactive = await api.product(m.devKey, { status: 'INACTIVE' });
    assertFieldError(await call(ctx.app, 'POST', path, { key: m.devKey, body: { productId: inactive.id } }), 'productId');
    for (let i = 0; i < 5; i++) await api.bump(m.devKey, c.id, { productId: p.id });
    const sixth = await call(ctx.app, 'POST', path, { key: m.devKey, body: { productId: p.id } });
    assert.equal(sixth.status, 409, sixth.raw);
    assert.equal((await call(ctx.app, 'GET', path, { key: m.devKey })).body.orderBumps.length, 5);
  });
});

describe('upsell and downsell', () => {
  test('one of each: set (201), replaced (200), a downsell needs the upsell, deleting the upsell takes its downsell', async () => {
    const c = await api.checkout(m.devKey);
    const up = await api.product(m.devKey, { name: 'Mentoria', price: 49700 });
    const down = await api.product(m.devKey, { name: 'Mentoria em grupo', price: 19700 });
    const path = `${CK}/${c.id}/upsell`;
    assert404(await call(ctx.app, 'GET', path, { key: m.devKey }));
    assert404(await call(ctx.app, 'POST', `${path}/downsell`, { key: m.devKey, body: { productId: down.id } }));
    const set = await call(ctx.app, 'POST', path, { key: m.devKey, body: { productId: up.id, discountPercentage: 10 } });
    assert.equal(set.status, 201, set.raw);
    assert.equal(set.body.upsell.priceCents, 44730);
    assert.equal(set.body.upsell.downsell, null);
    const replaced = await call(ctx.app, 'POST', path, { key: m.devKey, body: { productId: up.id, title: 'Mentoria individual' } });
    assert.equal(replaced.status, 200, replaced.raw);
    assert.equal(replaced.body.upsell.id, set.body.upsell.id);
    assert.equal(replaced.body.upsell.priceCents, 49700);
    const ds = await call(ctx.app, 'POST', `${path}/downsell`, { key: m.devKey, body: { productId: down.id } });
    assert.equal(ds.status, 201, ds.raw);
    assert.equal(ds.body.downsell.product.name, 'Mentoria em grupo');
    assert.equal((await call(ctx.app, 'GET', path, { key: m.devKey })).body.upsell.downsell.id, ds.body.downsell.id);
    assert.equal((await call(ctx.app, 'DELETE', `${path}/downsell`, { key: m.devKey })).status, 200);
    assert.equal((await call(ctx.app, 'GET', path, { key: m.devKey })).body.upsell.downsell, null);
    await call(ctx.app, 'POST', `${path}/downsell`, { key: m.devKey, body: { productId: down.id } });
    assert.equal((await call(ctx.app, 'DELETE', path, { key: m.devKey })).status, 200);
    assert404(await call(ctx.app, 'GET', path, { key: m.devKey }));
    assert.equal((await ctx.database.db.selectFrom('checkout_offers').select('id').where('checkout_id', '=', c.id).execute()).length, 0);
  });
});

describe('tenancy, environments and permissions', () => {
  test("another merchant's or environment's checkout is a 404 everywhere; checkouts:read cannot write (403)", async () => {
    const c = await api.checkout(m.devKey);
    const p = await api.product(m.devKey);
    const b = await api.bump(m.devKey, c.id, { productId: p.id });
    const foreign = [other.devKey, m.liveKey];
    for (const key of foreign) {
      assert404(await call(ctx.app, 'GET', `${CK}/${c.id}`, { key }));
      assert404(await call(ctx.app, 'PUT', `${CK}/${c.id}`, { key, body: { name: 'x' } }));
      assert404(await call(ctx.app, 'DELETE', `${CK}/${c.id}`, { key }));
      assert404(await call(ctx.app, 'GET', `${CK}/${c.id}/order-bumps`, { key }));
      assert404(await call(ctx.app, 'PUT', `${CK}/${c.id}/order-bumps/${b.id}`, { key, body: { position: 3 } }));
      assert404(await call(ctx.app, 'POST', `${CK}/${c.id}/upsell`, { key, body: { productId: p.id } }));
      assert.equal((await call(ctx.app, 'GET', CK, { key })).body.checkouts.some((x: { id: string }) => x.id === c.id), false);
    }
    const reader = await merchant(ctx.app, { permissions: ['checkouts:read'] });
    const mine = await api.checkout((await merchant(ctx.app)).devKey);
    assert.equal((await call(ctx.app, 'GET', CK, { key: reader.devKey })).status, 200);
    assert403(await call(ctx.app, 'POST', CK, { key: reader.devKey, body: { name: 'x' } }));
    assert403(await call(ctx.app, 'DELETE', `${CK}/${mine.id}`, { key: reader.devKey }));
    const none = await merchant(ctx.app, { permissions: ['products:read'] });
    assert403(await call(ctx.app, 'GET', CK, { key: none.devKey }));
    assert.equal((await call(ctx.app, 'GET', `${CK}/${c.id}`, { key: m.devKey })).body.checkout.orderBumps.length, 1);
  });
});
