// Products: the page-style list (pages, search, status filter).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { merchant, type Res } from './helpers.ts';
import { useApp } from './kit/app.ts';
import { assert400 } from './kit/assert.ts';
import { P, productApi, sleep } from './products-kit.ts';

const ctx = useApp();
const { create, list } = productApi(ctx);

describe('list (page style)', () => {
  let key: string;
  const created: { id: string; name: string }[] = [];
  before(async () => {
    key = (await merchant(ctx.app)).devKey;
    const specs = [
      { name: 'Camiseta Azul', description: 'Algodão penteado', price: 5990 },
      { name: 'Caneca', description: 'Estampa AZUL royal', price: 2990 },
      { name: 'Boné', price: 3990, status: 'INACTIVE' },
      { name: '100% algodão', description: 'Malha', price: 4990 },
      { name: 'produto_especial', price: 100 },
      { name: 'produtoXespecial', price: 100, status: 'INACTIVE' },
      { name: 'Adesivo', description: 'Desconto de 50% no segundo', price: 500 },
    ];
    for (const s of specs) {
      created.push(await create(key, s));
      await sleep(3); // distinct createdAt so "newest first" has one right answer
    }
  });

  const names = (res: Res) => res.body.products.map((p: { name: string }) => p.name);

  test('{ message, products, pagination: { page, limit, total, totalPages } } with page 1 / limit 20 by default', async () => {
    const res = await list(key);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'pagination', 'products']);
    assert.deepEqual(res.body.pagination, { page: 1, limit: 20, total: 7, totalPages: 1 });
    assert.equal(res.body.products.length, 7);
    assert.deepEqual(Object.keys(res.body.products[0]).sort(), Object.keys(created[0]).sort());
  });

  test('newest first', async () => {
    const res = await list(key);
    assert.deepEqual(
      res.body.products.map((p: { id: string }) => p.id),
      created.map((p) => p.id).reverse(),
    );
  });

  test('walking the pages returns every product exactly once', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await list(key, `?page=${page}&limit=3`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.pagination, { page, limit: 3, total: 7, totalPages: 3 });
      assert.equal(res.body.products.length, page < 3 ? 3 : 1);
      seen.push(...res.body.products.map((p: { id: string }) => p.id));
    }
    assert.deepEqual(seen, created.map((p) => p.id).reverse());
    const past = await list(key, '?page=4&limit=3');
    assert.equal(past.status, 200);
    assert.deepEqual(past.body.products, []);
    assert.deepEqual(past.body.pagination, { page: 4, limit: 3, total: 7, totalPages: 3 });
  });

  test('limit 1 and 100 are accepted', async () => {
    const one = await list(key, '?limit=1');
    assert.deepEqual(one.body.pagination, { page: 1, limit: 1, total: 7, totalPages: 7 });
    assert.deepEqual(names(one), ['Adesivo']);
    assert.equal((await list(key, '?limit=100')).body.pagination.limit, 100);
  });

  test('limit outside 1..100, page < 1 and non-numbers are 400', async () => {
    assert400(await list(key, '?limit=0'), 'VALIDATION_ERROR', ['querystring.limit'], { path: P });
    assert400(await list(key, '?limit=101'), 'VALIDATION_ERROR', ['querystring.limit']);
    assert400(await list(key, '?limit=abc'), 'VALIDATION_ERROR', ['querystring.limit']);
    assert400(await list(key, '?limit=2.5'), 'VALIDATION_ERROR', ['querystring.limit']);
    assert400(await list(key, '?page=0'), 'VALIDATION_ERROR', ['querystring.page']);
    assert400(await list(key, '?page=-1'), 'VALIDATION_ERROR', ['querystring.page']);
    assert400(await list(key, '?page=x'), 'VALIDATION_ERROR', ['querystring.page']);
  });

  test('search matches name OR description, case-insensitively', async () => {
    const res = await list(key, '?search=azul');
    assert.deepEqual(names(res), ['Caneca', 'Camiseta Azul']);
    assert.equal(res.body.pagination.total, 2);
    assert.deepEqual(names(await list(key, '?search=ALGOD%C3%83O')), ['100% algodão', 'Camiseta Azul']);
    assert.deepEqual(names(await list(key, '?search=malha')), ['100% algodão']);
    const none = await list(key, '?search=inexistente');
    assert.deepEqual(none.body.products, []);
    assert.deepEqual(none.body.pagination, { page: 1, limit: 20, total: 0, totalPages: 0 });
  });

  test('% and _ in the search text are literal characters, not wildcards', async () => {
    assert.deepEqual(names(await list(key, '?search=%25')), ['Adesivo', '100% algodão']);
    assert.deepEqual(names(await list(key, '?search=0%25')), ['Adesivo', '100% algodão']);
    assert.deepEqual(names(await list(key, '?search=_')), ['produto_especial']);
    assert.deepEqual(names(await list(key, '?search=o_e')), ['produto_especial']);
    assert.deepEqual(names(await list(key, '?search=%5C')), []);
  });

  test('status filter, alone and with search; an unknown status is 400', async () => {
    const active = await list(key, '?status=ACTIVE');
    assert.deepEqual(names(active), ['Adesivo', 'produto_especial', '100% algodão', 'Caneca', 'Camiseta Azul']);
    assert.equal(active.body.pagination.total, 5);
    const inactive = await list(key, '?status=INACTIVE');
    assert.deepEqual(names(inactive), ['produtoXespecial', 'Boné']);
    assert.equal(inactive.body.pagination.total, 2);
    assert.deepEqual(names(await list(key, '?status=INACTIVE&search=especial')), ['produtoXespecial']);
    assert.deepEqual(names(await list(key, '?status=ACTIVE&search=especial')), ['produto_especial']);
    assert400(await list(key, '?status=DELETED'), 'VALIDATION_ERROR', ['querystring.status']);
    assert400(await list(key, '?status=active'), 'VALIDATION_ERROR', ['querystring.status']);
  });

  test('search paginates over the matches only', async () => {
    const res = await list(key, '?search=especial&limit=1&page=2');
    assert.deepEqual(res.body.pagination, { page: 2, limit: 1, total: 2, totalPages: 2 });
    assert.deepEqual(names(res), ['produto_especial']);
  });
});
