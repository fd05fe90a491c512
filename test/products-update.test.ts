// Products: reading one, updating (PATCH) and deleting.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp, useMerchant } from './kit/app.ts';
import { assert400, assert404 } from './kit/assert.ts';
import { P, productApi, sleep } from './products-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx);
const { create, get, patch, del, list, total } = productApi(ctx);

describe('get one', () => {
  test('returns { message, product }', async () => {
    const p = await create(m.devKey, { name: 'Get', price: 321 });
    const res = await get(m.devKey, p.id);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'product']);
    assert.deepEqual(res.body.product, p);
  });

  test('an unknown id is 404 with only { message }', async () => {
    assert404(await get(m.devKey, '01900000-0000-7000-8000-000000000000'));
  });

  test('a malformed id never reaches the database (400 naming the id, not 500)', async () => {
    const res = await get(m.devKey, 'not-a-uuid');
    assert400(res, 'VALIDATION_ERROR', ['params.id']);
    assert.equal(res.body.path, `${P}/not-a-uuid`);
  });
});

describe('update (PATCH)', () => {
  test('changes only the fields sent; createdAt is kept, updatedAt moves', async () => {
    const p = await create(m.devKey, { name: 'Parcial', price: 1000, description: 'desc', imageUrl: 'https://x.example.com/p.png', status: 'ACTIVE' });
    await sleep(5);
    const res = await patch(m.devKey, p.id, { price: 2500 });
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'product']);
    const u = res.body.product;
    assert.deepEqual({ ...u, updatedAt: p.updatedAt }, { ...p, price: 2500 });
    assert.equal(u.createdAt, p.createdAt);
    assert.ok(Date.parse(u.updatedAt) > Date.parse(p.updatedAt), `${u.updatedAt} > ${p.updatedAt}`);
    assert.deepEqual((await get(m.devKey, p.id)).body.product, u);
  });

  test('omitted booleans are not reset to their creation defaults', async () => {
    const digital = await create(m.devKey, { name: 'Curso', price: 9900, isDigital: true });
    const r1 = await patch(m.devKey, digital.id, { name: 'Curso online' });
    assert.equal(r1.status, 200, r1.raw);
    assert.equal(r1.body.product.isDigital, true);
    assert.equal(r1.body.product.name, 'Curso online');

    const stocked = await create(m.devKey, { name: 'Caderno', price: 1500, stockEnabled: true, stockQuantity: 7 });
    const r2 = await patch(m.devKey, stocked.id, { price: 1700 });
    assert.equal(r2.status, 200, r2.raw);
    assert.equal(r2.body.product.stockEnabled, true);
    assert.equal(r2.body.product.stockQuantity, 7);
    assert.equal(r2.body.product.price, 1700);

    const inactive = await create(m.devKey, { name: 'Fora de linha', price: 100, status: 'INACTIVE' });
    const r3 = await patch(m.devKey, inactive.id, { description: 'ainda inativo' });
    assert.equal(r3.body.product.status, 'INACTIVE');
  });

  test('stock rules are re-checked on the merged state; a refused PATCH changes nothing', async () => {
    const stocked = await create(m.devKey, { name: 'Estoque', price: 100, stockEnabled: true, stockQuantity: 5 });
    assert400(await patch(m.devKey, stocked.id, { isDigital: true }), 'VALIDATION_ERROR', ['stockEnabled']);
    assert400(await patch(m.devKey, stocked.id, { stockQuantity: null }), 'VALIDATION_ERROR', ['stockQuantity']);
    assert400(await patch(m.devKey, stocked.id, { stockQuantity: -1 }), 'VALIDATION_ERROR', ['stockQuantity']);
    assert.deepEqual((await get(m.devKey, stocked.id)).body.product, stocked);

    const plain = await create(m.devKey, { name: 'Sem estoque', price: 100 });
    assert400(await patch(m.devKey, plain.id, { stockEnabled: true }), 'VALIDATION_ERROR', ['stockQuantity']);
    const ok = await patch(m.devKey, plain.id, { stockEnabled: true, stockQuantity: 0 });
    assert.equal(ok.status, 200, ok.raw);
    assert.equal(ok.body.product.stockEnabled, true);
    assert.equal(ok.body.product.stockQuantity, 0);

    const digital = await create(m.devKey, { name: 'Digital', price: 100, isDigital: true });
    assert400(await patch(m.devKey, digital.id, { stockEnabled: true, stockQuantity: 3 }), 'VALIDATION_ERROR', ['stockEnabled']);
    assert.deepEqual((await get(m.devKey, digital.id)).body.product, digital);

    // Turning stock off and becoming digital in one request is a valid merged state.
    const conv = await patch(m.devKey, stocked.id, { stockEnabled: false, isDigital: true });
    assert.equal(conv.status, 200, conv.raw);
    assert.equal(conv.body.product.stockEnabled, false);
    assert.equal(conv.body.product.isDigital, true);
  });

  test('the creation bounds apply to each field sent', async () => {
    const p = await create(m.devKey, { name: 'Limites', price: 100 });
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'name'],
      [{ name: 'n'.repeat(256) }, 'name'],
      [{ description: 'd'.repeat(1001) }, 'description'],
      [{ price: 0 }, 'price'],
      [{ price: 1.5 }, 'price'],
      [{ price: '100' }, 'price'],
      [{ price: null }, 'price'],
      [{ currency: 'USD' }, 'currency'],
      [{ imageUrl: 'ftp://x.example.com/a.png' }, 'imageUrl'],
      [{ status: 'ARCHIVED' }, 'status'],
      [{ isDigital: null }, 'isDigital'],
      [{ sku: '' }, 'sku'],
      [{ sku: ' X' }, 'sku'],
      [{ sku: 'x'.repeat(101) }, 'sku'],
      [{ barcode: 'X' }, 'barcode'],
    ];
    for (const [body, field] of cases) assert400(await patch(m.devKey, p.id, body), 'VALIDATION_ERROR', [field]);
    assert.deepEqual((await get(m.devKey, p.id)).body.product, p);
  });

  test('an empty body is 400', async () => {
    const p = await create(m.devKey, { name: 'Vazio', price: 100 });
    assert400(await patch(m.devKey, p.id, {}), 'VALIDATION_ERROR', ['body']);
    assert.deepEqual((await get(m.devKey, p.id)).body.product, p);
  });

  test('null clears description and imageUrl; status can be switched both ways', async () => {
    const p = await create(m.devKey, { name: 'Limpar', price: 100, description: 'algo', imageUrl: 'https://x.example.com/a.png' });
    const res = await patch(m.devKey, p.id, { description: null, imageUrl: null, status: 'INACTIVE' });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.product.description, null);
    assert.equal(res.body.product.imageUrl, null);
    assert.equal(res.body.product.status, 'INACTIVE');
    assert.equal((await patch(m.devKey, p.id, { status: 'ACTIVE' })).body.product.status, 'ACTIVE');
  });

  test('an unknown id is 404', async () => {
    assert404(await patch(m.devKey, '01900000-0000-7000-8000-000000000000', { price: 100 }));
  });
});

describe('delete', () => {
  test('the product disappears: GET, PATCH and a second DELETE are 404; lists never show it', async () => {
    const keep = await create(m.devKey, { name: 'Fica', price: 100 });
    const gone = await create(m.devKey, { name: 'Sai', price: 100 });
    const before = await total(m.devKey);
    const res = await del(m.devKey, gone.id);
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual(Object.keys(res.body), ['message']);
    assert404(await get(m.devKey, gone.id));
    assert404(await patch(m.devKey, gone.id, { name: 'Volta' }));
    assert404(await del(m.devKey, gone.id));
    assert.equal(await total(m.devKey), before - 1);
    for (const q of ['?limit=100', '?limit=100&status=INACTIVE', '?limit=100&status=ACTIVE', '?limit=100&search=Sai']) {
      const l = await list(m.devKey, q);
      assert.ok(!l.body.products.some((x: { id: string }) => x.id === gone.id), q);
    }
    assert.equal((await get(m.devKey, keep.id)).status, 200);
  });

  test('an unknown id is 404', async () => {
    assert404(await del(m.devKey, '01900000-0000-7000-8000-000000000000'));
  });
});
