// Payment links API: creation and its rules (pricing, products, slug, settings bounds, stock, pixel,
// redirect, expiry), lists, PATCH rule 1, archive, events, permissions, tenant isolation, and the
// public view (nothing private). Runs on PGlite (default) and on PostgreSQL (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, merchant, type Res } from './helpers.ts';
import { assert400, assertFieldError } from './kit/assert.ts';
import { useApp, useMerchant } from './kit/app.ts';

const L = '/api/v1/payment-links';

const ctx = useApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
const m = useMerchant(ctx, { live: true });
const other = useMerchant(ctx);

const create = (key: string, body: Record<string, unknown>) => call(ctx.app, 'POST', L, { key, body });
async function link(key: string, body: Record<string, unknown> = {}) {
  const res = await create(key, { title: 'Curso de violão', amountCents: 10000, ...body });
  assert.equal(res.status, 201, res.raw);
  return res.body.paymentLink;
}
async function product(key: string, price: number, over: Record<string, unknown> = {}) {
  const res = await call(ctx.app, 'POST', '/api/v1/products', { key, body: { name: `Produto ${price}`, price, ...over } });
  assert.equal(res.status, 201, res.raw);
  return res.body.product;
}
const patch = (key: string, id: string, body: Record<string, unknown>) => call(ctx.app, 'PATCH', `${L}/${id}`, { key, body });
const events = (type: string) => ctx.database.db.selectFrom('events').selectAll().where('user_id', '=', m.id).where('type', '=', type).orderBy('created_at').execute();

describe('creating a payment link', () => {
  test('with a fixed amount: 201, defaults, slug from the title, url on the checkout address', async () => {
    const l = await link(m.devKey, { title: 'Curso de Violão — Turma 3' });
    assert.match(l.slug, /^curso-de-violao-turma-3-[a-z0-9]{6}$/);
    assert.equal(l.url, `${ctx.config.checkoutUrl}/pay/${l.slug}`);
    assert.equal(l.amount, 10000);
    assert.equal(l.totalCents, 10000);
    assert.equal(l.currency, 'BRL');
    assert.equal(l.status, 'ACTIVE');
    assert.deepEqual(l.products, []);
    assert.deepEqual(l.settings, {
      pixEnabled: true,
      boletoEnabled: true,
      creditCardEnabled: true,
      maxInstallments: 12,
      interestFreeInstallments: ctx.config.card.interestFreeInstallments,
      interestRate: ctx.config.card.monthlyInterestBp / 100,
      requirePhone: false,
      requireAddress: false,
    });
    assert.equal(l.salesCount, 0);
    assert.equal(l.timesUsed, 0);
    assert.equal(l.stockEnabled, false);
    assert.equal(l.stockQuantity, null);
    assert.equal(l.metaPixelCode, null);
    assert.equal(l.livemode, false);
  });

  test('title is required; amountCents or products is required', async () => {
    assertFieldError(await create(m.devKey, { amountCents: 100 }), 'title', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: 'Sem preço' }), 'amountCents', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: '<b></b>', amountCents: 100 }), 'title', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: 'x'.repeat(256), amountCents: 100 }), 'title', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: 'Zero', amountCents: 0 }), 'amountCents', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: 'Demais', amountCents: 100000001 }), 'amountCents', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: 'Moeda', amountCents: 100, currency: 'USD' }), 'currency', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: 'Desc', amountCents: 100, description: 'x'.repeat(1001) }), 'description', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: 'Extra', amountCents: 100, foo: 1 }), 'foo', 'VALIDATION_ERROR');
  });

  test('with products: the amount is the sum of price x quantity, names and prices copied', async () => {
    const a = await product(m.devKey, 2590);
    const b = await product(m.devKey, 1000);
    const l = await link(m.devKey, { amountCents: undefined, products: [{ productId: a.id, quantity: 2 }, { productId: b.id, quantity: 3 }] });
    assert.equal(l.amount, null);
    assert.equal(l.totalCents, 2590 * 2 + 1000 * 3);
    assert.deepEqual(l.products, [
      { productId: a.id, name: a.name, quantity: 2, unitPriceCents: 2590 },
      { productId: b.id, name: b.name, quantity: 3, unitPriceCents: 1000 },
    ]);
    // A later price change does not change the link (the price was copied when it was saved).
    await call(ctx.app, 'PATCH', `/api/v1/products/${a.id}`, { key: m.devKey, body: { price: 9999 } });
    const again = await call(ctx.app, 'GET', `${L}/${l.id}`, { key: m.devKey });
    assert.equal(again.body.paymentLink.totalCents, 2590 * 2 + 1000 * 3);
  });

  test('with products and amountCents: the fixed amount is the price', async () => {
    const a = await product(m.devKey, 5000);
    const l = await link(m.devKey, { amountCents: 7000, products: [{ productId: a.id, quantity: 2 }] });
    assert.equal(l.amount, 7000);
    assert.equal(l.totalCents, 7000);
    assert.equal(l.products.length, 1);
  });

  test('products must be active products of the same merchant and environment, each listed once', async () => {
    const mine = await product(m.devKey, 1000);
    const theirs = await product(other.devKey, 1000);
    const live = await product(m.liveKey!, 1000);
    const inactive = await product(m.devKey, 1000, { status: 'INACTIVE' });
    const archived = await product(m.devKey, 1000);
    await call(ctx.app, 'DELETE', `/api/v1/products/${archived.id}`, { key: m.devKey });
    for (const p of [theirs, live, archived]) {
      assertFieldError(await create(m.devKey, { title: 'X', products: [{ productId: mine.id, quantity: 1 }, { productId: p.id, quantity: 1 }] }), 'products.1.productId', 'VALIDATION_ERROR');
    }
    assertFieldError(await create(m.devKey, { title: 'X', products: [{ productId: inactive.id, quantity: 1 }] }), 'products.0.productId', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: 'X', products: [{ productId: mine.id, quantity: 1 }, { productId: mine.id, quantity: 2 }] }), 'products.1.productId', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: 'X', products: [{ productId: mine.id, quantity: 0 }] }), 'products.0.quantity', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: 'X', products: [] }), 'products', 'VALIDATION_ERROR');
    assert.equal((await create(m.devKey, { title: 'X', amountCents: 700, products: [] })).body.paymentLink.totalCents, 700);
    assertFieldError(await create(m.devKey, { title: 'X', products: [{ productId: 'not-a-uuid', quantity: 1 }] }), 'products.0.productId', 'VALIDATION_ERROR');
  });

  test('slugs are unique and not guessable, even for the same title', async () => {
    const slugs = new Set<string>();
    for (let i = 0; i < 8; i++) slugs.add((await link(m.devKey, { title: 'Mesmo título' })).slug);
    assert.equal(slugs.size, 8);
    for (const s of slugs) assert.match(s, /^mesmo-titulo-[a-z0-9]{6}$/);
    const symbols = await link(m.devKey, { title: '!!!' });
    assert.match(symbols.slug, /^link-[a-z0-9]{6}$/);
  });

  test('settings bounds', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ maxInstallments: 0 }, 'settings.maxInstallments'],
      [{ maxInstallments: 13 }, 'settings.maxInstallments'],
      [{ maxInstallments: 2.5 }, 'settings.maxInstallments'],
      [{ interestFreeInstallments: -1 }, 'settings.interestFreeInstallments'],
      [{ interestFreeInstallments: 13 }, 'settings.interestFreeInstallments'],
      [{ interestRate: -0.01 }, 'settings.interestRate'],
      [{ interestRate: 30.01 }, 'settings.interestRate'],
      [{ interestRate: 1.234 }, 'settings.interestRate'],
      [{ requirePhone: 'yes' }, 'settings.requirePhone'],
      [{ unknown: true }, 'settings.unknown'],
      [{ pixEnabled: false, boletoEnabled: false, creditCardEnabled: false }, 'settings'],
    ];
    for (const [settings, field] of bad) assertFieldError(await create(m.devKey, { title: 'S', amountCents: 100, settings }), field, 'VALIDATION_ERROR');
    const ok = await link(m.devKey, { settings: { maxInstallments: 6, interestFreeInstallments: 3, interestRate: 1.99, requirePhone: true, pixEnabled: false } });
    assert.deepEqual(
      { ...ok.settings },
      { pixEnabled: false, boletoEnabled: true, creditCardEnabled: true, maxInstallments: 6, interestFreeInstallments: 3, interestRate: 1.99, requirePhone: true, requireAddress: false },
    );
    // Every rate of two decimals, including those whose quotient by 0.01 is not exact in binary floating point.
    for (const interestRate of [0.07, 0.29, 1.15, 2.01, 4.35, 19.99, 30]) assert.equal((await link(m.devKey, { settings: { interestRate } })).settings.interestRate, interestRate);
  });

  test('stock: quantity required when enabled, never negative', async () => {
    assertFieldError(await create(m.devKey, { title: 'S', amountCents: 100, stockEnabled: true }), 'stockQuantity', 'VALIDATION_ERROR');
    assertFieldError(await create(m.devKey, { title: 'S', amountCents: 100, stockEnabled: true, stockQuantity: -1 }), 'stockQuantity', 'VALIDATION_ERROR');
    const l = await link(m.devKey, { stockEnabled: true, stockQuantity: 3 });
    assert.equal(l.stockEnabled, true);
    assert.equal(l.stockQuantity, 3);
  });

  test('metaPixelCode: a pixel id (digits only), never markup', async () => {
    for (const code of ['<script>alert(1)</script>', '12345abc', '123', '1'.repeat(21), '123 456', "1');alert(1);//"]) {
      assertFieldError(await create(m.devKey, { title: 'P', amountCents: 100, metaPixelCode: code }), 'metaPixelCode', 'VALIDATION_ERROR');
    }
    const l = await link(m.devKey, { metaPixelCode: '123456789012345' });
    assert.equal(l.metaPixelCode, '123456789012345');
  });

  test('redirectUrl must be http(s); expiresAt must be in the future', async () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,x', 'ftp://example.com', 'https://', 'not a url']) {
      assertFieldError(await create(m.devKey, { title: 'R', amountCents: 100, redirectUrl: url }), 'redirectUrl', 'VALIDATION_ERROR');
    }
    assertFieldError(await create(m.devKey, { title: 'E', amountCents: 100, expiresAt: new Date(Date.now() - 1000).toISOString() }), 'expiresAt', 'VALIDATION_ERROR');
    const l = await link(m.devKey, { redirectUrl: 'https://loja.example.com/obrigado', expiresAt: new Date(Date.now() + 86_400_000).toISOString() });
    assert.equal(l.redirectUrl, 'https://loja.example.com/obrigado');
    assert.ok(l.expiresAt);
  });

  test('text is cleaned of markup', async () => {
    const l = await link(m.devKey, { title: 'Oferta <script>alert(1)</script>especial', description: '<img src=x onerror=alert(1)>Ótimo', productDescription: '<b>negrito</b>' });
    assert.equal(l.title, 'Oferta especial');
    assert.equal(l.description, 'Ótimo');
    assert.equal(l.productDescription, 'negrito');
  });

  test('records payment_link.created in the same transaction', async () => {
    const before = (await events('payment_link.created')).length;
    const l = await link(m.devKey);
    const after = await events('payment_link.created');
    assert.equal(after.length, before + 1);
    const data = after[after.length - 1].data as Record<string, unknown>;
    assert.equal(data.id, l.id);
    assert.equal(data.slug, l.slug);
  });
});

describe('reading and listing', () => {
  test('GET by id; other merchant, other environment and unknown ids are 404', async () => {
    const l = await link(m.devKey);
    const got = await call(ctx.app, 'GET', `${L}/${l.id}`, { key: m.devKey });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.paymentLink, l);
    assert.equal((await call(ctx.app, 'GET', `${L}/${l.id}`, { key: other.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'GET', `${L}/${l.id}`, { key: m.liveKey })).status, 404);
    assert.equal((await call(ctx.app, 'GET', `${L}/01890000-0000-7000-8000-000000000000`, { key: m.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'GET', `${L}/nope`, { key: m.devKey })).status, 400);
  });

  test('cursor-style list, newest first, walks every link once', async () => {
    const fresh = await merchant(ctx.app);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await link(fresh.devKey, { title: `L${i}`, status: i === 3 ? 'INACTIVE' : 'ACTIVE' })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Res = await call(ctx.app, 'GET', `${L}?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: fresh.devKey });
      assert.equal(res.status, 200, res.raw);
      assert.equal(res.body.pagination.limit, 3);
      seen.push(...res.body.paymentLinks.map((l: { id: string }) => l.id));
      cursor = res.body.pagination.nextCursor;
      assert.equal(res.body.pagination.hasMore, cursor !== null);
    } while (cursor);
    assert.deepEqual(seen, [...ids].reverse());
    const inactive = await call(ctx.app, 'GET', `${L}?status=INACTIVE`, { key: fresh.devKey });
    assert.deepEqual(inactive.body.paymentLinks.map((l: { id: string }) => l.id), [ids[3]]);
    assert400(await call(ctx.app, 'GET', `${L}?cursor=abc.def`, { key: fresh.devKey }), 'INVALID_CURSOR');
    assert400(await call(ctx.app, 'GET', `${L}?limit=101`, { key: fresh.devKey }), 'VALIDATION_ERROR');
    const otherList = await call(ctx.app, 'GET', L, { key: other.devKey });
    assert.ok(!otherList.body.paymentLinks.some((l: { id: string }) => ids.includes(l.id)));
  });
});

describe('PATCH /api/v1/payment-links/{id}', () => {
  test('rule 1: every update carries amountCents or products', async () => {
    const l = await link(m.devKey);
    assertFieldError(await patch(m.devKey, l.id, { title: 'Novo' }), 'amountCents', 'VALIDATION_ERROR');
    assertFieldError(await patch(m.devKey, l.id, { status: 'INACTIVE' }), 'amountCents', 'VALIDATION_ERROR');
    assertFieldError(await patch(m.devKey, l.id, {}), 'amountCents', 'VALIDATION_ERROR');
    const ok = await patch(m.devKey, l.id, { status: 'INACTIVE', amountCents: 10000 });
    assert.equal(ok.status, 200, ok.raw);
    assert.equal(ok.body.paymentLink.status, 'INACTIVE');
    const back = await patch(m.devKey, l.id, { status: 'ACTIVE', amountCents: 10000 });
    assert.equal(back.body.paymentLink.status, 'ACTIVE');
  });

  test('the pricing pair is restated: an omitted one is cleared', async () => {
    const p = await product(m.devKey, 1500);
    const l = await link(m.devKey);
    const byProducts = await patch(m.devKey, l.id, { products: [{ productId: p.id, quantity: 4 }] });
    assert.equal(byProducts.status, 200, byProducts.raw);
    assert.equal(byProducts.body.paymentLink.amount, null);
    assert.equal(byProducts.body.paymentLink.totalCents, 6000);
    const byAmount = await patch(m.devKey, l.id, { amountCents: 4321 });
    assert.equal(byAmount.body.paymentLink.amount, 4321);
    assert.deepEqual(byAmount.body.paymentLink.products, []);
    // products [] beside amountCents says the same: no products, a fixed price.
    await patch(m.devKey, l.id, { products: [{ productId: p.id, quantity: 1 }] });
    const emptied = await patch(m.devKey, l.id, { amountCents: 999, products: [] });
    assert.equal(emptied.status, 200, emptied.raw);
    assert.deepEqual([emptied.body.paymentLink.amount, emptied.body.paymentLink.totalCents, emptied.body.paymentLink.products], [999, 999, []]);
    assertFieldError(await patch(m.devKey, l.id, { products: [] }), 'products', 'VALIDATION_ERROR');
  });

  test('other fields keep their value; settings merge; rules re-checked on the merged state', async () => {
    const l = await link(m.devKey, { description: 'Descrição', settings: { maxInstallments: 6 }, stockEnabled: true, stockQuantity: 5, metaPixelCode: '1234567890' });
    const res = await patch(m.devKey, l.id, { amountCents: 500, settings: { requireAddress: true } });
    const v = res.body.paymentLink;
    assert.equal(v.description, 'Descrição');
    assert.equal(v.settings.maxInstallments, 6);
    assert.equal(v.settings.requireAddress, true);
    assert.equal(v.stockQuantity, 5);
    assert.equal(v.metaPixelCode, '1234567890');
    assert.equal(v.slug, l.slug, 'the slug never changes');
    assertFieldError(await patch(m.devKey, l.id, { amountCents: 500, stockQuantity: null }), 'stockQuantity', 'VALIDATION_ERROR');
    assertFieldError(await patch(m.devKey, l.id, { amountCents: 500, settings: { pixEnabled: false, boletoEnabled: false, creditCardEnabled: false } }), 'settings', 'VALIDATION_ERROR');
    assertFieldError(await patch(m.devKey, l.id, { amountCents: 500, settings: { maxInstallments: 13 } }), 'settings.maxInstallments', 'VALIDATION_ERROR');
    assertFieldError(await patch(m.devKey, l.id, { amountCents: 500, metaPixelCode: '<img>' }), 'metaPixelCode', 'VALIDATION_ERROR');
    const cleared = await patch(m.devKey, l.id, { amountCents: 500, metaPixelCode: null, description: null, stockEnabled: false });
    assert.equal(cleared.body.paymentLink.metaPixelCode, null);
    assert.equal(cleared.body.paymentLink.description, null);
    assert.equal(cleared.body.paymentLink.stockEnabled, false);
  });

  test('unknown, foreign and other-environment ids are 404; payment_link.updated recorded', async () => {
    const l = await link(m.devKey);
    assert.equal((await patch(other.devKey, l.id, { amountCents: 1 })).status, 404);
    assert.equal((await patch(m.liveKey!, l.id, { amountCents: 1 })).status, 404);
    assert.equal((await patch(m.devKey, '01890000-0000-7000-8000-000000000000', { amountCents: 1 })).status, 404);
    const before = (await events('payment_link.updated')).length;
    await patch(m.devKey, l.id, { amountCents: 777, status: 'INACTIVE' });
    const after = await events('payment_link.updated');
    assert.equal(after.length, before + 1);
    assert.equal((after[after.length - 1].data as { status: string }).status, 'INACTIVE');
  });
});

describe('DELETE /api/v1/payment-links/{id}', () => {
  test('archives: 404 afterwards (API and public), event with deleted: true', async () => {
    const l = await link(m.devKey);
    const del = await call(ctx.app, 'DELETE', `${L}/${l.id}`, { key: m.devKey });
    assert.equal(del.status, 200, del.raw);
    assert.equal((await call(ctx.app, 'GET', `${L}/${l.id}`, { key: m.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'DELETE', `${L}/${l.id}`, { key: m.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'GET', `/api/payment-links/public/slug/${l.slug}`)).status, 404);
    assert.equal((await call(ctx.app, 'GET', `/pay/${l.slug}`)).status, 404);
    const ev = await events('payment_link.updated');
    assert.equal((ev[ev.length - 1].data as { deleted: boolean }).deleted, true);
  });
});

describe('permissions', () => {
  test('paymentLinks:read / paymentLinks:write, and cart abandonments with paymentLinks:read', async () => {
    const reader = await merchant(ctx.app, { permissions: ['paymentLinks:read'] });
    const writer = await merchant(ctx.app, { permissions: ['paymentLinks:write'] });
    const none = await merchant(ctx.app, { permissions: ['products:read'] });
    assert.equal((await create(reader.devKey, { title: 'x', amountCents: 1 })).status, 403);
    assert.equal((await create(writer.devKey, { title: 'x', amountCents: 1 })).status, 201);
    assert.equal((await call(ctx.app, 'GET', L, { key: reader.devKey })).status, 200);
    assert.equal((await call(ctx.app, 'GET', L, { key: writer.devKey })).status, 403);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/cart-abandonments', { key: reader.devKey })).status, 200);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/cart-abandonments', { key: none.devKey })).status, 403);
    assert.equal((await call(ctx.app, 'GET', L)).status, 401);
    assert.equal((await call(ctx.app, 'GET', L, { token: m.token })).status, 401, 'a dashboard token is not an API key');
  });
});

describe('webhooks', () => {
  test('payment_link.created and payment_link.updated are queued for subscribers', async () => {
    const sub = await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', {
      key: m.devKey,
      body: { url: 'https://127.0.0.1:9/hook', events: ['payment_link.created', 'payment_link.updated'] },
    });
    assert.equal(sub.status, 201, sub.raw);
    const l = await link(m.devKey);
    await patch(m.devKey, l.id, { amountCents: 1234 });
    const deliveries = await ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', sub.body.subscription?.id ?? sub.body.webhook?.id ?? sub.body.id).execute();
    const bodies = deliveries.map((d) => JSON.parse(d.body));
    assert.ok(bodies.some((b) => b.type === 'payment_link.created' && b.data.id === l.id), JSON.stringify(bodies.map((b) => b.type)));
    assert.ok(bodies.some((b) => b.type === 'payment_link.updated' && b.data.amount === 1234));
  });
});

describe('GET /api/payment-links/public/slug/{slug}', () => {
  test('shows what the page needs and nothing private', async () => {
    const p = await product(m.devKey, 3000);
    const l = await link(m.devKey, { products: [{ productId: p.id, quantity: 2 }], stockEnabled: true, stockQuantity: 7, description: 'Desc', metaPixelCode: '987654321' });
    const res = await call(ctx.app, 'GET', `/api/payment-links/public/slug/${l.slug}`);
    assert.equal(res.status, 200, res.raw);
    const v = res.body.paymentLink;
    assert.deepEqual(Object.keys(v).sort(), [
      'amount', 'available', 'checkoutConfig', 'currency', 'description', 'expiresAt', 'merchantName', 'metaPixelCode', 'orderBumps', 'productDescription', 'products', 'redirectUrl', 'sandbox',
      'settings', 'slug', 'title', 'totalCents', 'unavailableReason',
    ]);
    assert.deepEqual(v.products, [{ name: p.name, quantity: 2, unitPriceCents: 3000 }]);
    assert.equal(v.totalCents, 10000);
    assert.equal(v.available, true);
    assert.equal(v.sandbox, true);
    for (const secret of [l.id, p.id, m.id, m.email, 'stockQuantity', 'salesCount', 'timesUsed', 'userId', 'livemode']) {
      assert.ok(!res.raw.includes(secret), `public view leaks ${secret}`);
    }
  });

  test('inactive, expired and sold-out links say why; unknown ones 404', async () => {
    const inactive = await link(m.devKey, { status: 'INACTIVE' });
    const expired = await link(m.devKey);
    await ctx.database.db.updateTable('payment_links').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', expired.id).execute();
    const sold = await link(m.devKey, { stockEnabled: true, stockQuantity: 0 });
    for (const [l, reason] of [[inactive, 'INACTIVE'], [expired, 'EXPIRED'], [sold, 'SOLD_OUT']] as const) {
      const res = await call(ctx.app, 'GET', `/api/payment-links/public/slug/${l.slug}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.paymentLink.available, false);
      assert.equal(res.body.paymentLink.unavailableReason, reason);
    }
    assert.equal((await call(ctx.app, 'GET', '/api/payment-links/public/slug/does-not-exist')).status, 404);
    assert.equal((await call(ctx.app, 'GET', '/api/payment-links/public/slug/BAD%20SLUG')).status, 400);
  });
});
