// Clients: reading one, updating (PATCH) and deleting.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDocument } from '../src/payments/documents.ts';
import { cpf } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assert400, assert404 } from './kit/assert.ts';
import { body, clientApi, ids, ON_CLIENTS, sleep } from './clients-kit.ts';

const ctx = useApp();
const m = useMerchant(ctx);
const { create, get, patch, del, list, total } = clientApi(ctx);

describe('get one', () => {
  test('returns { message, client }; an unknown id is 404 { message }', async () => {
    const c = await create(m.devKey);
    const res = await get(m.devKey, c.id);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['client', 'message']);
    assert.deepEqual(res.body.client, c);
    assert404(await get(m.devKey, '01900000-0000-7000-8000-000000000000'));
  });
});

describe('update (PATCH)', () => {
  test('changes only the fields sent', async () => {
    const c = await create(m.devKey, body({ phone: '11912345678' }));
    await sleep(5);
    const res = await patch(m.devKey, c.id, { name: 'Novo Nome', email: 'NOVO@Example.com' });
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual(Object.keys(res.body).sort(), ['client', 'message']);
    const u = res.body.client;
    assert.deepEqual({ ...u, updatedAt: c.updatedAt }, { ...c, name: 'Novo Nome', email: 'novo@example.com' });
    assert.equal(u.createdAt, c.createdAt);
    assert.ok(Date.parse(u.updatedAt) > Date.parse(c.updatedAt));
    assert.deepEqual((await get(m.devKey, c.id)).body.client, u);
    const cleared = await patch(m.devKey, c.id, { phone: null });
    assert.equal(cleared.body.client.phone, null);
    assert.equal(cleared.body.client.name, 'Novo Nome');
  });

  test('a new document is validated and normalised', async () => {
    const c = await create(m.devKey);
    const before = (await get(m.devKey, c.id)).body.client;
    assert400(await patch(m.devKey, c.id, { document: '123.456.789-00' }), 'INVALID_DOCUMENT', ['document'], ON_CLIENTS);
    assert400(await patch(m.devKey, c.id, { document: '11111111111' }), 'INVALID_DOCUMENT', ['document'], ON_CLIENTS);
    assert400(await patch(m.devKey, c.id, { document: '123' }), 'VALIDATION_ERROR', ['document'], ON_CLIENTS);
    assert.deepEqual((await get(m.devKey, c.id)).body.client, before);
    const doc = cpf();
    const res = await patch(m.devKey, c.id, { document: formatDocument(doc) });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.client.document, doc);
  });

  test("another client's document is CLIENT_ALREADY_EXISTS; the client's own document is fine", async () => {
    const a = await create(m.devKey);
    const b = await create(m.devKey);
    assert400(await patch(m.devKey, b.id, { document: a.document }), 'CLIENT_ALREADY_EXISTS', ['document'], ON_CLIENTS);
    assert400(await patch(m.devKey, b.id, { document: formatDocument(a.document) }), 'CLIENT_ALREADY_EXISTS', ['document'], ON_CLIENTS);
    assert.equal((await get(m.devKey, b.id)).body.client.document, b.document);
    const same = await patch(m.devKey, b.id, { document: formatDocument(b.document), name: 'Mesmo doc' });
    assert.equal(same.status, 200, same.raw);
    assert.equal(same.body.client.document, b.document);
  });

  test('field rules apply on update; an empty body is 400; a refused update changes nothing', async () => {
    const c = await create(m.devKey);
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'not-an-email' }, 'email'],
      [{ phone: 'abc' }, 'phone'],
      [{ phone: '1'.repeat(21) }, 'phone'],
      [{ name: '' }, 'name'],
      [{ name: '<b></b>' }, 'name'],
      [{ name: null }, 'name'],
      [{ document: null }, 'document'],
      [{ nickname: 'x' }, 'nickname'],
      [{}, 'body'],
    ];
    for (const [b, field] of cases) assert400(await patch(m.devKey, c.id, b), 'VALIDATION_ERROR', [field], ON_CLIENTS);
    assert.deepEqual((await get(m.devKey, c.id)).body.client, c);
  });

  test('an unknown id is 404', async () => {
    assert404(await patch(m.devKey, '01900000-0000-7000-8000-000000000000', { name: 'X' }));
  });
});

describe('delete', () => {
  test('then GET, PATCH and DELETE are 404 and lists do not show it; the document can be registered again', async () => {
    const doc = cpf();
    const c = await create(m.devKey, body({ document: doc }));
    const before = await total(m.devKey);
    const res = await del(m.devKey, c.id);
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual(Object.keys(res.body), ['message']);
    assert404(await get(m.devKey, c.id));
    assert404(await patch(m.devKey, c.id, { name: 'Volta' }));
    assert404(await del(m.devKey, c.id));
    assert.equal(await total(m.devKey), before - 1);
    assert.ok(!ids(await list(m.devKey, '?limit=100')).includes(c.id));
    assert.deepEqual(ids(await list(m.devKey, `?search=${doc}`)), []);
    const again = await create(m.devKey, body({ document: formatDocument(doc) }));
    assert.notEqual(again.id, c.id);
    assert.equal(again.document, doc);
    assert.deepEqual(ids(await list(m.devKey, `?search=${doc}`)), [again.id]);
    // and a remaining client can take the document of a deleted one
    const other = await create(m.devKey);
    await del(m.devKey, again.id);
    const moved = await patch(m.devKey, other.id, { document: doc });
    assert.equal(moved.status, 200, moved.raw);
    assert.equal(moved.body.client.document, doc);
  });

  test('an unknown id is 404', async () => {
    assert404(await del(m.devKey, '01900000-0000-7000-8000-000000000000'));
  });
});
