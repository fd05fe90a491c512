// Clients: the page-style list (pages, search over name, e-mail and document).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { cpf, merchant, type Res } from './helpers.ts';
import { useApp } from './kit/app.ts';
import { assert400 } from './kit/assert.ts';
import { clientApi, ids, NUMERIC_CNPJ, ON_CLIENTS, sleep } from './clients-kit.ts';

const ctx = useApp();
const { create, list } = clientApi(ctx);

describe('list (page style)', () => {
  let key: string;
  const created: { id: string; name: string; email: string; document: string }[] = [];
  before(async () => {
    key = (await merchant(ctx.app)).devKey;
    const specs = [
      { name: 'Ana Souza', email: 'ana@loja.com.br', document: '529.982.247-25' },
      { name: 'Bruno Lima', email: 'bruno@example.com', document: NUMERIC_CNPJ },
      { name: 'Carla Dias', email: 'carla.souza@example.com', document: '12.abc.345/01de-35' },
      { name: 'Diego_Rocha', email: 'diego@example.com', document: cpf() },
      { name: 'Eva 100%', email: 'eva@example.com', document: cpf() },
    ];
    for (const s of specs) {
      created.push(await create(key, s));
      await sleep(3);
    }
  });
  const names = (res: Res) => res.body.clients.map((c: { name: string }) => c.name);

  test('{ message, clients, pagination: { page, limit, total, totalPages } }, newest first', async () => {
    const res = await list(key);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['clients', 'message', 'pagination']);
    assert.deepEqual(res.body.pagination, { page: 1, limit: 20, total: 5, totalPages: 1 });
    assert.deepEqual(ids(res), created.map((c) => c.id).reverse());
    assert.deepEqual(res.body.clients[4], created[0]);
  });

  test('walking the pages returns every client exactly once', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await list(key, `?limit=2&page=${page}`);
      assert.deepEqual(res.body.pagination, { page, limit: 2, total: 5, totalPages: 3 });
      seen.push(...ids(res));
    }
    assert.deepEqual(seen, created.map((c) => c.id).reverse());
    assert.deepEqual((await list(key, '?limit=2&page=4')).body.clients, []);
  });

  test('limit outside 1..100 and page < 1 are 400', async () => {
    assert400(await list(key, '?limit=0'), 'VALIDATION_ERROR', ['querystring.limit'], ON_CLIENTS);
    assert400(await list(key, '?limit=101'), 'VALIDATION_ERROR', ['querystring.limit'], ON_CLIENTS);
    assert400(await list(key, '?page=0'), 'VALIDATION_ERROR', ['querystring.page'], ON_CLIENTS);
    assert.equal((await list(key, '?limit=100')).status, 200);
  });

  test('search by name, e-mail or document, case-insensitively', async () => {
    assert.deepEqual(names(await list(key, '?search=souza')), ['Carla Dias', 'Ana Souza']); // name or e-mail
    assert.deepEqual(names(await list(key, '?search=BRUNO%40EXAMPLE')), ['Bruno Lima']);
    assert.deepEqual(names(await list(key, '?search=loja.com')), ['Ana Souza']);
    assert.deepEqual(names(await list(key, '?search=52998224725')), ['Ana Souza']);
    assert.deepEqual(names(await list(key, '?search=222333')), ['Bruno Lima']);
    assert.deepEqual(names(await list(key, '?search=12abc345')), ['Carla Dias']);
    const none = await list(key, '?search=ninguem');
    assert.deepEqual(none.body.clients, []);
    assert.deepEqual(none.body.pagination, { page: 1, limit: 20, total: 0, totalPages: 0 });
  });

  test('a document searched as it is printed (with punctuation) is found', async () => {
    assert.deepEqual(names(await list(key, '?search=529.982.247-25')), ['Ana Souza']);
    assert.deepEqual(names(await list(key, `?search=${encodeURIComponent('11.222.333/0001-81')}`)), ['Bruno Lima']);
    assert.deepEqual(names(await list(key, `?search=${encodeURIComponent('12.ABC.345/01DE-35')}`)), ['Carla Dias']);
  });

  test('% and _ in the search text are literal', async () => {
    assert.deepEqual(names(await list(key, '?search=_')), ['Diego_Rocha']);
    assert.deepEqual(names(await list(key, '?search=%25')), ['Eva 100%']);
    assert.deepEqual(names(await list(key, '?search=a_S')), []);
  });

  test('search paginates over the matches only', async () => {
    const res = await list(key, '?search=example&limit=2&page=2');
    assert.deepEqual(res.body.pagination, { page: 2, limit: 2, total: 4, totalPages: 2 });
    assert.deepEqual(names(res), ['Carla Dias', 'Bruno Lima']);
  });
});
