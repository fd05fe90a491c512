// Products: credentials and permissions, and isolation between merchants and environments.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, merchant } from './helpers.ts';
import { liveMerchant, useApp, useMerchant } from './kit/app.ts';
import { assert401, assert403, assert404 } from './kit/assert.ts';
import { P, productApi } from './products-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx);
const { create, get, patch, del, list } = productApi(ctx);

describe('authentication and permissions', () => {
  test('no key, a wrong key and a malformed key are 401 { message }', async () => {
    for (const opts of [{}, { key: `cofre_test_${'A'.repeat(43)}` }, { key: 'nope' }]) {
      assert401(await call(ctx.app, 'GET', P, opts));
    }
    const viaBearer = await call(ctx.app, 'GET', P, { headers: { authorization: `Bearer ${m.devKey}` } });
    assert.equal(viaBearer.status, 200);
  });

  test('products:read lists and reads but cannot write; products:write is needed to create, update and delete', async () => {
    const reader = await merchant(ctx.app, { permissions: ['products:read'] });
    const full = await call(ctx.app, 'POST', '/api/credentials', { token: reader.token, body: { name: 'full', environment: 'DEVELOPMENT' } });
    assert.equal(full.status, 201, full.raw);
    const p = await create(full.body.key, { name: 'Perm', price: 100 });
    assert.equal((await list(reader.devKey)).body.pagination.total, 1);
    assert.deepEqual((await get(reader.devKey, p.id)).body.product, p);
    for (const res of [
      await call(ctx.app, 'POST', P, { key: reader.devKey, body: { name: 'No', price: 100 } }),
      await patch(reader.devKey, p.id, { price: 5 }),
      await del(reader.devKey, p.id),
    ]) {
      assert403(res);
    }
    assert.deepEqual((await get(reader.devKey, p.id)).body.product, p);
    assert.equal((await list(reader.devKey)).body.pagination.total, 1);

    const writer = await merchant(ctx.app, { permissions: ['products:write'] });
    const made = await call(ctx.app, 'POST', P, { key: writer.devKey, body: { name: 'Sim', price: 100 } });
    assert.equal(made.status, 201);
    assert.equal((await list(writer.devKey)).status, 403);
    assert.equal((await get(writer.devKey, made.body.product.id)).status, 403);
    assert.equal((await patch(writer.devKey, made.body.product.id, { price: 200 })).body.product.price, 200);

    const other = await merchant(ctx.app, { permissions: ['customers:read', 'customers:write'] });
    assert.equal((await list(other.devKey)).status, 403);
    assert.equal((await call(ctx.app, 'POST', P, { key: other.devKey, body: { name: 'Não', price: 100 } })).status, 403);
  });
});

describe('tenant isolation', () => {
  test("merchant B cannot see, change or delete merchant A's products", async () => {
    const a = await merchant(ctx.app);
    const b = await merchant(ctx.app);
    const pa = await create(a.devKey, { name: 'Produto da loja A', price: 1234 });
    const pb = await create(b.devKey, { name: 'Produto da loja B', price: 999 });
    assert404(await get(b.devKey, pa.id));
    assert404(await patch(b.devKey, pa.id, { price: 1 }));
    assert404(await del(b.devKey, pa.id));
    for (const q of ['', '?search=loja', '?status=ACTIVE', '?limit=100']) {
      const l = await list(b.devKey, q);
      assert.deepEqual(l.body.products.map((p: { id: string }) => p.id), [pb.id], q);
      assert.equal(l.body.pagination.total, 1);
    }
    assert.deepEqual((await get(a.devKey, pa.id)).body.product, pa);
    assert.deepEqual((await list(a.devKey)).body.products.map((p: { id: string }) => p.id), [pa.id]);
  });
});

describe('environment isolation', () => {
  test('development rows are invisible to the same merchant production key, and vice versa', async (t) => {
    const lm = await liveMerchant(ctx, t);
    if (!lm) return;
    const live = lm.liveKey!;
    const dev = await create(lm.devKey, { name: 'Sandbox item', price: 100 });
    const prod = await create(live, { name: 'Real item', price: 200 });
    assert404(await get(live, dev.id));
    assert404(await patch(live, dev.id, { price: 1 }));
    assert404(await del(live, dev.id));
    assert404(await get(lm.devKey, prod.id));
    assert404(await patch(lm.devKey, prod.id, { price: 1 }));
    assert404(await del(lm.devKey, prod.id));
    const liveList = await list(live);
    assert.deepEqual(liveList.body.products.map((p: { id: string }) => p.id), [prod.id]);
    assert.equal(liveList.body.pagination.total, 1);
    const devList = await list(lm.devKey);
    assert.deepEqual(devList.body.products.map((p: { id: string }) => p.id), [dev.id]);
    assert.deepEqual((await list(live, '?search=item')).body.products.map((p: { id: string }) => p.id), [prod.id]);
    assert.deepEqual((await get(lm.devKey, dev.id)).body.product, dev);
    assert.deepEqual((await get(live, prod.id)).body.product, prod);
  });
});
