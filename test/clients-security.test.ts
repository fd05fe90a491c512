// Clients: credentials and permissions, and isolation between merchants and environments.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, merchant } from './helpers.ts';
import { liveMerchant, useApp } from './kit/app.ts';
import { assert401, assert403, assert404 } from './kit/assert.ts';
import { body, C, clientApi, ids } from './clients-kit.ts';

const ctx = useApp();
const { post, create, get, patch, del, list } = clientApi(ctx);

describe('authentication and permissions', () => {
  test('no key is 401 { message }; customers:read cannot write; product keys cannot touch clients', async () => {
    assert401(await call(ctx.app, 'GET', C));

    const reader = await merchant(ctx.app, { permissions: ['customers:read'] });
    const full = await call(ctx.app, 'POST', '/api/credentials', { token: reader.token, body: { name: 'full', environment: 'DEVELOPMENT' } });
    assert.equal(full.status, 201, full.raw);
    const c = await create(full.body.key);
    assert.deepEqual((await get(reader.devKey, c.id)).body.client, c);
    assert.deepEqual(ids(await list(reader.devKey)), [c.id]);
    for (const res of [await post(reader.devKey, body()), await patch(reader.devKey, c.id, { name: 'X' }), await del(reader.devKey, c.id)]) {
      assert403(res);
    }
    assert.deepEqual((await get(reader.devKey, c.id)).body.client, c);

    const productsOnly = await merchant(ctx.app, { permissions: ['products:read', 'products:write'] });
    assert.equal((await list(productsOnly.devKey)).status, 403);
    assert.equal((await post(productsOnly.devKey, body())).status, 403);
  });
});

describe('tenant isolation', () => {
  test("merchant B gets 404 on merchant A's clients and never lists them", async () => {
    const a = await merchant(ctx.app);
    const b = await merchant(ctx.app);
    const ca = await create(a.devKey, body({ name: 'Cliente da loja A' }));
    const cb = await create(b.devKey, body({ name: 'Cliente da loja B' }));
    assert404(await get(b.devKey, ca.id));
    assert404(await patch(b.devKey, ca.id, { name: 'Roubado' }));
    assert404(await del(b.devKey, ca.id));
    for (const q of ['', '?search=loja', `?search=${ca.document}`, `?search=${encodeURIComponent(ca.email)}`]) {
      const l = await list(b.devKey, q);
      assert.ok(!ids(l).includes(ca.id), q);
    }
    assert.deepEqual(ids(await list(b.devKey)), [cb.id]);
    assert.deepEqual((await get(a.devKey, ca.id)).body.client, ca);
    // Document uniqueness is per merchant: B may give its client the document A's client has.
    const moved = await patch(b.devKey, cb.id, { document: ca.document });
    assert.equal(moved.status, 200, moved.raw);
  });
});

describe('environment isolation', () => {
  test('development clients are invisible to the production key of the same merchant, and vice versa', async (t) => {
    const lm = await liveMerchant(ctx, t);
    if (!lm) return;
    const live = lm.liveKey!;
    const dev = await create(lm.devKey, body({ name: 'Cliente sandbox' }));
    const prod = await create(live, body({ name: 'Cliente real' }));
    assert404(await get(live, dev.id));
    assert404(await patch(live, dev.id, { name: 'X' }));
    assert404(await del(live, dev.id));
    assert404(await get(lm.devKey, prod.id));
    assert404(await patch(lm.devKey, prod.id, { name: 'X' }));
    assert404(await del(lm.devKey, prod.id));
    assert.deepEqual(ids(await list(live)), [prod.id]);
    assert.deepEqual(ids(await list(live, '?search=cliente')), [prod.id]);
    assert.deepEqual(ids(await list(live, `?search=${dev.document}`)), []);
    assert.deepEqual(ids(await list(lm.devKey)), [dev.id]);
    assert.deepEqual((await get(lm.devKey, dev.id)).body.client, dev);
    assert.deepEqual((await get(live, prod.id)).body.client, prod);
  });
});
