// Origin compatibility (issue 12): envelopes, the origin's paths, bodiless requests, page=1 on
// cursor lists, driven the way origin clients drive the API (docs/compatibility.md).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cpf, merchant, type Merchant } from '../helpers.ts';
import { paidPix } from '../wallet-helpers.ts';
import { data, failure, failureOn, send, useOrigin, type Origin } from './origin-client.ts';
import { inlineRefs } from '../kit/openapi-doc.ts';

let o: Origin;
let m: Merchant;
let other: Merchant;
useOrigin((s) => ({ o, m, other } = s));

const txBody = (over: Record<string, unknown> = {}) => ({
  product: 'Curso online',
  amountCents: 5000,
  clientName: 'Ana Souza',
  clientEmail: 'ana@example.com',
  clientDocument: cpf(),
  paymentMethod: 'PIX',
  ...over,
});

describe('envelopes', () => {
  test('a created resource: success, data and the spec key carry the same object', async () => {
    const a = await send(o, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Caneca', price: 3500 } });
    const product = data(a, 201);
    assert.equal(product.name, 'Caneca');
    assert.deepEqual(a.json.product, product);
    assert.equal(a.json.message, 'Product created');
    assert.deepEqual(Object.keys(a.json).sort(), ['data', 'message', 'product', 'success']);
  });

  test('a list: data is the array; pagination stays beside it', async () => {
    await send(o, 'POST', '/api/v1/transactions', { key: m.devKey, body: txBody() });
    const a = await send(o, 'GET', '/api/v1/transactions?limit=5', { key: m.devKey });
    const list = data(a);
    assert.ok(Array.isArray(list) && list.length >= 1);
    assert.deepEqual(a.json.transactions, list);
    assert.equal(a.json.pagination.limit, 5);
  });

  test('bodies with their own data (withdrawals) keep it and gain success; message-only bodies get data null', async () => {
    await paidPix(o.ctx.app, { key: m.devKey }, 20_000);
    const w = data(await send(o, 'POST', '/api/withdraws', { key: m.devKey, body: { amountCents: 1000, pixKeyType: 'email', pixKey: 'ana@example.com' } }), 201);
    assert.equal(w.status, 'PENDING');
    const list = await send(o, 'GET', '/api/withdraws', { key: m.devKey });
    assert.ok(data(list).some((x: { id: string }) => x.id === w.id));
    assert.deepEqual(Object.keys(list.json).sort(), ['data', 'meta', 'success']);
    const cancelled = await send(o, 'POST', `/api/withdraws/${w.id}/cancel`, { key: m.devKey });
    assert.equal(data(cancelled), null);
    assert.equal(cancelled.json.message, 'Withdrawal cancelled');
  });

  test('several resource keys: data is their object (balance, coupon validation)', async () => {
    const b = await send(o, 'GET', '/api/withdraws/balance', { key: m.devKey });
    const bal = data(b);
    assert.equal(bal.availableBalanceCents, b.json.availableBalanceCents);
    assert.equal(bal.availableCents, b.json.availableBalanceCents);
  });

  test('errors: the spec body plus success: false (400, 401, 403, 404, 415)', async () => {
    const bad = failureOn(await send(o, 'POST', '/api/v1/products', { key: m.devKey, body: { name: '' } }), 'VALIDATION_ERROR', 'name');
    assert.deepEqual(Object.keys(bad).sort(), ['code', 'errors', 'message', 'path', 'success', 'timestamp']);
    for (const [a, status] of [
      [await send(o, 'GET', '/api/v1/products'), 401],
      [await send(o, 'GET', '/api/v1/products/01890000-0000-7000-8000-000000000000', { key: m.devKey }), 404],
      [await send(o, 'GET', '/no/such/route'), 404],
      [await send(o, 'POST', '/api/v1/products', { key: m.devKey, raw: 'x', headers: { 'Content-Type': 'text/plain' } }), 415],
    ] as const) {
      assert.deepEqual(Object.keys(failure(a, status)).sort(), ['message', 'success']);
    }
    const reader = await merchant(o.ctx.app, { permissions: ['products:read'] });
    failure(await send(o, 'POST', '/api/v1/products', { key: reader.devKey, body: { name: 'X', price: 1 } }), 403);
  });

  test('an Idempotency-Key replay is the text that was sent, envelope included (stored by the creation statement, and claimed)', async () => {
    const body = txBody();
    const first = await send(o, 'POST', '/api/v1/transactions', { key: m.devKey, body, headers: { 'Idempotency-Key': 'compat-inline-1' } });
    const tx = data(first, 201);
    const replay = await send(o, 'POST', '/api/v1/transactions', { key: m.devKey, body, headers: { 'Idempotency-Key': 'compat-inline-1' } });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.text, first.text);
    assert.deepEqual(first.json.transaction, tx);
    // A claimed key (the product route has no inline store): the same.
    const p1 = await send(o, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Idem', price: 100 }, headers: { 'Idempotency-Key': 'compat-claimed-1' } });
    const p2 = await send(o, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Idem', price: 100 }, headers: { 'Idempotency-Key': 'compat-claimed-1' } });
    assert.equal(p2.headers.get('idempotent-replayed'), 'true');
    assert.equal(p2.text, p1.text);
    assert.equal(data(p2, 201).id, data(p1, 201).id);
  });

  test('public routes are enveloped too (payment link page data, checkout)', async () => {
    const link = data(await send(o, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Link público', amountCents: 1500 } }), 201);
    const pub = data(await send(o, 'GET', `/api/payment-links/public/slug/${link.slug}`));
    assert.equal(pub.slug, link.slug);
    const paid = data(
      await send(o, 'POST', `/api/payment-links/public/slug/${link.slug}/checkout`, {
        body: { clientName: 'Bia', clientEmail: 'bia@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
      }),
      201,
    );
    assert.equal(paid.status, 'PENDING');
    // A body of one plain value: data is the object (an origin client reads data.status).
    assert.deepEqual(data(await send(o, 'GET', `/api/checkout/transactions/${paid.id}/status`)), { status: 'PENDING' });
  });
});

describe('the origin paths (aliases of one route table)', () => {
  test('/api/v1/clients: create, list, get, update, delete', async () => {
    const c = data(await send(o, 'POST', '/api/v1/clients', { key: m.devKey, body: { name: 'Caio', email: 'caio@example.com', document: cpf(), phone: '+5511999990000' } }), 201);
    assert.ok(data(await send(o, 'GET', '/api/v1/clients?search=Caio', { key: m.devKey })).some((x: { id: string }) => x.id === c.id));
    assert.equal(data(await send(o, 'GET', `/api/v1/clients/${c.id}`, { key: m.devKey })).email, 'caio@example.com');
    assert.equal(data(await send(o, 'PATCH', `/api/v1/clients/${c.id}`, { key: m.devKey, body: { name: 'Caio Lima' } })).name, 'Caio Lima');
    // The same client under both spellings; another merchant's is a 404 on both.
    assert.deepEqual(data(await send(o, 'GET', `/api/clients/${c.id}`, { key: m.devKey })), data(await send(o, 'GET', `/api/v1/clients/${c.id}`, { key: m.devKey })));
    failure(await send(o, 'GET', `/api/v1/clients/${c.id}`, { key: other.devKey }), 404);
    assert.equal(data(await send(o, 'DELETE', `/api/v1/clients/${c.id}`, { key: m.devKey })), null);
    failure(await send(o, 'GET', `/api/v1/clients/${c.id}`, { key: m.devKey }), 404);
    // Auth and permissions apply to the alias exactly as to the route.
    failure(await send(o, 'GET', '/api/v1/clients'), 401);
    const reader = await merchant(o.ctx.app, { permissions: ['customers:read'] });
    failure(await send(o, 'POST', '/api/v1/clients', { key: reader.devKey, body: { name: 'X', email: 'x@example.com', document: cpf() } }), 403);
  });

  test('/api/v1/withdraws: balance, create, list, get, cancel', async () => {
    const w0 = await merchant(o.ctx.app);
    await paidPix(o.ctx.app, { key: w0.devKey }, 30_000);
    const before = data(await send(o, 'GET', '/api/v1/withdraws/balance', { key: w0.devKey }));
    assert.equal(before.availableCents, 30_000 - 297);
    assert.equal(before.totalCents, before.availableCents + before.pendingCents);
    const w = data(await send(o, 'POST', '/api/v1/withdraws', { key: w0.devKey, body: { amountCents: 5000, pixKeyType: 'cpf', pixKey: cpf() } }), 201);
    assert.equal(data(await send(o, 'GET', '/api/v1/withdraws/balance', { key: w0.devKey })).availableCents, before.availableCents - 5000);
    assert.deepEqual(data(await send(o, 'GET', '/api/v1/withdraws?page=1&limit=10', { key: w0.devKey })).map((x: { id: string }) => x.id), [w.id]);
    assert.equal(data(await send(o, 'GET', `/api/v1/withdraws/${w.id}`, { key: w0.devKey })).status, 'PENDING');
    failure(await send(o, 'GET', `/api/v1/withdraws/${w.id}`, { key: other.devKey }), 404);
    data(await send(o, 'POST', `/api/v1/withdraws/${w.id}/cancel`, { key: w0.devKey }));
    assert.equal(data(await send(o, 'GET', `/api/v1/withdraws/${w.id}`, { key: w0.devKey })).status, 'CANCELLED');
    failure(await send(o, 'POST', `/api/v1/withdraws/${w.id}/cancel`, { key: w0.devKey }), 400, 'INVALID_STATE_TRANSITION');
  });

  test('/api/v1/wallet/summary and /api/v1/wallet/statement: the balance (both names) and its ledger entries', async () => {
    const w1 = await merchant(o.ctx.app);
    await paidPix(o.ctx.app, { key: w1.devKey }, 10_000);
    const summary = data(await send(o, 'GET', '/api/v1/wallet/summary', { key: w1.devKey }));
    assert.deepEqual(summary, data(await send(o, 'GET', '/api/v1/balance', { key: w1.devKey })));
    assert.equal(summary.availableCents, 10_000 - 99);
    assert.equal(summary.pendingCents, summary.receivableCents);
    assert.equal(summary.totalCents, summary.availableCents + summary.pendingCents);
    const entries = data(await send(o, 'GET', '/api/v1/wallet/statement?page=1', { key: w1.devKey }));
    assert.ok(entries.length >= 1);
    assert.ok(entries.every((e: { account: string; amountCents: number }) => typeof e.amountCents === 'number' && e.account));
  });

  test('/api/v1/payment-links/slug/{slug}: the full link of this merchant and environment only', async () => {
    const link = data(await send(o, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Por slug', amountCents: 2500 } }), 201);
    const bySlug = data(await send(o, 'GET', `/api/v1/payment-links/slug/${link.slug}`, { key: m.devKey }));
    assert.deepEqual(bySlug, data(await send(o, 'GET', `/api/v1/payment-links/${link.id}`, { key: m.devKey })));
    assert.equal(bySlug.timesUsed, 0); // merchant-only fields: the full link, not the public page's
    failure(await send(o, 'GET', `/api/v1/payment-links/slug/${link.slug}`, { key: other.devKey }), 404);
    failure(await send(o, 'GET', '/api/v1/payment-links/slug/nao-existe', { key: m.devKey }), 404);
    failure(await send(o, 'GET', `/api/v1/payment-links/slug/${link.slug}`), 401);
    const live = await merchant(o.ctx.app, { live: true });
    failure(await send(o, 'GET', `/api/v1/payment-links/slug/${link.slug}`, { key: live.liveKey }), 404);
  });

  test('PUT on a webhook subscription is PATCH; GET /api/v1/webhooks/events lists the types', async () => {
    const events = data(await send(o, 'GET', '/api/v1/webhooks/events', { key: m.devKey }));
    assert.ok(events.some((e: { type: string; description: string }) => e.type === 'transaction.completed' && e.description));
    const sub = data(await send(o, 'POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body: { url: 'https://hooks.example.com/cofre', events: ['transaction.completed'] } }), 201);
    const put = data(await send(o, 'PUT', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey, body: { events: ['transaction.completed', 'transaction.failed'] } }));
    assert.deepEqual(put.events, ['transaction.completed', 'transaction.failed']);
    assert.equal(put.url, sub.url); // partial, like PATCH
    failure(await send(o, 'PUT', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: other.devKey, body: { events: ['transaction.failed'] } }), 404);
    failure(await send(o, 'GET', '/api/v1/webhooks/events'), 401);
  });

  test('GET /api/user/fees: the merchant\'s fees', async () => {
    const fees = data(await send(o, 'GET', '/api/user/fees', { key: m.devKey }));
    assert.deepEqual(fees, data(await send(o, 'GET', '/api/v1/fees', { key: m.devKey })));
    assert.equal(fees.pixPercentBp, 99);
  });

  test('/api/v1/coupons/validate: the public validation', async () => {
    const link = data(await send(o, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Cupom', amountCents: 10_000 } }), 201);
    const c = data(await send(o, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: 'COMPAT10', discountType: 'PERCENTAGE', discountValue: 10 } }), 201);
    const v = data(await send(o, 'POST', '/api/v1/coupons/validate', { body: { code: c.code, paymentLinkSlug: link.slug } }));
    assert.deepEqual([v.valid, v.discountAmount, v.finalAmount], [true, 1000, 9000]);
  });

  test('the OpenAPI document shows each alias as an alias of its route, with the envelope fields', async () => {
    const doc = inlineRefs((await send(o, 'GET', '/openapi.json')).json);
    const ids = new Set<string>();
    for (const ops of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(ops)) {
        if (op.operationId) {
          assert.ok(!ids.has(op.operationId), `duplicate operationId ${op.operationId}`);
          ids.add(op.operationId);
        }
      }
    }
    const alias = doc.paths['/api/v1/clients/{id}'].get;
    assert.equal(alias['x-alias-of'], 'GET /api/clients/{id}');
    assert.match(alias.description, /^Alias of `GET \/api\/clients\/\{id\}`/);
    assert.equal(doc.paths['/api/clients/{id}'].get['x-alias-of'], undefined);
    assert.equal(doc.paths['/api/v1/webhooks/subscriptions/{id}'].put['x-alias-of'], 'PATCH /api/v1/webhooks/subscriptions/{id}');
    for (const [path, method] of [
      ['/api/v1/withdraws', 'post'],
      ['/api/v1/withdraws/balance', 'get'],
      ['/api/v1/wallet/summary', 'get'],
      ['/api/v1/wallet/statement', 'get'],
      ['/api/user/fees', 'get'],
      ['/api/v1/coupons/validate', 'post'],
    ]) {
      assert.ok(doc.paths[path]?.[method]?.['x-alias-of'], `${method} ${path}`);
    }
    const created = doc.paths['/api/v1/transactions'].post.responses['201'].content['application/json'].schema;
    assert.deepEqual(created.properties.success.enum ?? [created.properties.success.const], [true]);
    assert.ok(created.required.includes('data') && created.required.includes('success'));
    assert.equal(created.properties.data.properties.id.format, 'uuid');
    const list = doc.paths['/api/v1/products'].get.responses['200'].content['application/json'].schema;
    assert.equal(list.properties.data.type, 'array');
    const deleted = doc.paths['/api/v1/products/{id}'].delete.responses['200'].content['application/json'].schema;
    assert.equal(deleted.properties.data.type, 'null');
  });
});

describe('bodiless requests sent with Content-Type: application/json', () => {
  test('cancel, delete and refund with no body are not malformed JSON', async () => {
    const p = data(await send(o, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Apagar', price: 100 } }), 201);
    assert.equal(data(await send(o, 'DELETE', `/api/v1/products/${p.id}`, { key: m.devKey, raw: '' })), null);
    const id = await paidPix(o.ctx.app, { key: m.devKey }, 4000);
    const refunded = data(await send(o, 'POST', `/api/v1/transactions/${id}/refund`, { key: m.devKey, raw: '' }));
    assert.equal(refunded.status, 'REFUNDED');
    const sub = data(await send(o, 'POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body: { url: 'https://hooks.example.com/rot', events: ['transaction.failed'] } }), 201);
    assert.ok(data(await send(o, 'POST', `/api/v1/webhooks/subscriptions/${sub.id}/rotate-secret`, { key: m.devKey })).secret.startsWith('whsec_'));
  });

  test('a route that needs a body still answers 400 VALIDATION_ERROR; malformed JSON is still INVALID_JSON', async () => {
    failureOn(await send(o, 'POST', '/api/v1/products', { key: m.devKey, raw: '' }), 'VALIDATION_ERROR', 'body');
    failure(await send(o, 'POST', '/api/v1/products', { key: m.devKey, raw: '{"name":' }), 400, 'INVALID_JSON');
    failure(await send(o, 'POST', '/api/v1/products', { key: m.devKey, raw: '{"__proto__":{"x":1}}' }), 400);
  });
});

describe('page=1 on cursor-style lists', () => {
  const lists = ['/api/v1/transactions', '/api/v1/payment-links', '/api/v1/webhooks/subscriptions', '/api/v1/webhooks/deliveries', '/api/v1/balance/entries', '/api/v1/cart-abandonments'];

  test('page=1 is the first page, the same as without it', async () => {
    for (const path of lists) {
      const plain = await send(o, 'GET', `${path}?limit=2`, { key: m.devKey });
      const first = await send(o, 'GET', `${path}?limit=2&page=1`, { key: m.devKey });
      assert.deepEqual(data(first), data(plain), path);
      assert.deepEqual(first.json.pagination, plain.json.pagination, path);
    }
  });

  test('a later page is a 400 that points at nextCursor; page lists keep their pages', async () => {
    for (const path of lists) {
      const body = failureOn(await send(o, 'GET', `${path}?page=2`, { key: m.devKey }), 'VALIDATION_ERROR', 'querystring.page');
      assert.match(body.errors[0].message, /nextCursor/, path);
    }
    failureOn(await send(o, 'GET', '/api/v1/transactions?page=abc', { key: m.devKey }), 'VALIDATION_ERROR', 'querystring.page');
    assert.ok(Array.isArray(data(await send(o, 'GET', '/api/v1/products?page=2', { key: m.devKey }))));
  });
});

describe("the origin SDK's checkout and offer calls", () => {
  test('all fourteen, under /api/v1 and /api, PUT and PATCH alike, read from data', async () => {
    const product = data(await send(o, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Planner', price: 1990 } }), 201);
    const link = data(await send(o, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Curso', amount: 9700 } }), 201);
    const c = data(await send(o, 'POST', '/api/v1/checkouts', { key: m.devKey, body: { name: 'Checkout do curso', paymentLinkId: link.id, settings: { maxInstallments: 6 } } }), 201);
    assert.ok(data(await send(o, 'GET', '/api/checkouts', { key: m.devKey })).some((x: { id: string }) => x.id === c.id));
    assert.equal(data(await send(o, 'GET', `/api/v1/checkouts/${c.id}`, { key: m.devKey })).settings.maxInstallments, 6);
    assert.equal(data(await send(o, 'PUT', `/api/v1/checkouts/${c.id}`, { key: m.devKey, body: { customization: { primaryColor: '#0d47a1' } } })).customization.primaryColor, '#0d47a1');
    assert.equal(data(await send(o, 'PATCH', `/api/checkouts/${c.id}`, { key: m.devKey, body: { name: 'Novo nome' } })).name, 'Novo nome');
    const bump = data(await send(o, 'POST', `/api/v1/checkouts/${c.id}/order-bumps`, { key: m.devKey, body: { productId: product.id, discountCents: 500, position: 0 } }), 201);
    assert.deepEqual(data(await send(o, 'GET', `/api/checkouts/${c.id}/order-bumps`, { key: m.devKey })).map((b: { id: string }) => b.id), [bump.id]);
    assert.equal(data(await send(o, 'PUT', `/api/v1/checkouts/${c.id}/order-bumps/${bump.id}`, { key: m.devKey, body: { title: 'Leve o planner' } })).title, 'Leve o planner');
    assert.equal(data(await send(o, 'POST', `/api/v1/checkouts/${c.id}/upsell`, { key: m.devKey, body: { productId: product.id } }), 201).product.id, product.id);
    assert.equal(data(await send(o, 'POST', `/api/checkouts/${c.id}/upsell/downsell`, { key: m.devKey, body: { productId: product.id, discountPercentage: 20 } }), 201).priceCents, 1592);
    assert.equal(data(await send(o, 'GET', `/api/v1/checkouts/${c.id}/upsell`, { key: m.devKey })).downsell.priceCents, 1592);
    assert.equal(data(await send(o, 'DELETE', `/api/v1/checkouts/${c.id}/upsell/downsell`, { key: m.devKey })), null);
    assert.equal(data(await send(o, 'DELETE', `/api/v1/checkouts/${c.id}/upsell`, { key: m.devKey })), null);
    assert.equal(data(await send(o, 'DELETE', `/api/v1/checkouts/${c.id}/order-bumps/${bump.id}`, { key: m.devKey })), null);
    assert.equal(data(await send(o, 'DELETE', `/api/checkouts/${c.id}`, { key: m.devKey })), null);
    failure(await send(o, 'GET', `/api/v1/checkouts/${c.id}`, { key: m.devKey }), 404);
  });
});
