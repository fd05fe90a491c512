// Transactions through the API's contract: listing (cursor pages, filters, cursors bound to their list).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { call, cpf, merchant, type Merchant, type Res } from './helpers.ts';
import { assert400 } from './kit/assert.ts';
import { DAY, create, ctx, list, pay, refund, simulate, useTransactionsApp } from './transactions-kit.ts';

useTransactionsApp();

describe('listing', () => {
  let l: Merchant;
  let all: any[]; // the merchant's transactions in their final state
  const clientIds: string[] = [];

  /** Walks every page; returns the rows in the order served. */
  async function walk(key: string, query: string, limit: number, between?: () => Promise<void>) {
    const rows: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Res = await list(key, `?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(res.status, 200, res.raw);
      assert.ok(res.body.transactions.length <= limit);
      assert.equal(res.body.pagination.limit, limit);
      assert.equal(res.body.pagination.cursor, cursor);
      cursor = res.body.pagination.nextCursor;
      assert.equal(res.body.pagination.hasMore, cursor !== null);
      rows.push(...res.body.transactions);
      if (between) await between();
      assert.ok(++pages < 100, 'the walk ends');
    } while (cursor);
    return rows;
  }

  const keyOf = (orderBy: string, t: any) => (orderBy === 'createdAt' ? Date.parse(t.createdAt) : orderBy === 'amountCents' ? t.amountCents : t.status);
  function cmp(orderBy: string, a: any, b: any) {
    const ka = keyOf(orderBy, a);
    const kb = keyOf(orderBy, b);
    if (ka !== kb) return ka < kb ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  }

  before(async () => {
    l = await merchant(ctx.app);
    const docs = [cpf(), cpf(), cpf()];
    const amounts = [1500, 990, 25000, 1, 7777, 1500, 42];
    await pay(l.devKey, (await create(l.devKey, { amountCents: 100000, clientDocument: docs[0] })).id); // cushion for refunds
    for (let i = 0; i < 44; i++) {
      const method = ['PIX', 'BOLETO', 'CARD'][i % 3];
      const t = await create(l.devKey, { amountCents: amounts[i % amounts.length], paymentMethod: method, clientDocument: docs[Math.floor(i / 5) % 3] });
      if (i % 4 === 0) await pay(l.devKey, t.id);
      else if (i % 4 === 1) await simulate(l.devKey, t.id, 'FAILED');
      else if (i % 4 === 3) await simulate(l.devKey, t.id, 'EXPIRED');
      if (i % 8 === 0 && t.amountCents >= 990) await refund(l.devKey, t.id, i % 16 === 0 ? undefined : 100);
    }
    const res = await list(l.devKey, '?limit=100');
    all = res.body.transactions;
    for (const t of all) if (!clientIds.includes(t.client.id)) clientIds.push(t.client.id);
  });

  test('{ message, transactions, pagination { limit, cursor, hasMore, nextCursor } }; default limit 20, newest first', async () => {
    assert.equal(all.length, 45);
    const statuses = new Set(all.map((t) => t.status));
    for (const s of ['PENDING', 'PAID', 'FAILED', 'EXPIRED', 'REFUNDED', 'PARTIALLY_REFUNDED']) assert.ok(statuses.has(s), `dataset has ${s}`);
    const res = await list(l.devKey);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'pagination', 'transactions']);
    assert.deepEqual(Object.keys(res.body.pagination).sort(), ['cursor', 'hasMore', 'limit', 'nextCursor']);
    assert.equal(res.body.pagination.limit, 20);
    assert.equal(res.body.pagination.cursor, null);
    assert.equal(res.body.pagination.hasMore, true);
    assert.equal(typeof res.body.pagination.nextCursor, 'string');
    assert.equal(res.body.transactions.length, 20);
    const newest = [...all].sort((a, b) => -cmp('createdAt', a, b)).slice(0, 20);
    assert.deepEqual(res.body.transactions.map((t: any) => t.id), newest.map((t) => t.id));
    const last = await list(l.devKey, '?limit=100');
    assert.equal(last.body.pagination.hasMore, false);
    assert.equal(last.body.pagination.nextCursor, null);
  });

  test('limit bounds: 0 and 101 -> 400; 1 and 100 accepted', async () => {
    for (const limit of ['0', '101', '-1', 'abc']) assert400(await list(l.devKey, `?limit=${limit}`), 'VALIDATION_ERROR');
    assert.equal((await list(l.devKey, '?limit=1')).body.transactions.length, 1);
    assert.equal((await list(l.devKey, '?limit=100')).body.transactions.length, 45);
    assert400(await list(l.devKey, '?orderBy=product'), 'VALIDATION_ERROR');
    assert400(await list(l.devKey, '?orderDirection=up'), 'VALIDATION_ERROR');
  });

  for (const orderBy of ['createdAt', 'amountCents', 'status']) {
    for (const dir of ['asc', 'desc']) {
      test(`orderBy=${orderBy} ${dir}: walking pages of 7 returns every row exactly once, in order`, async () => {
        const rows = await walk(l.devKey, `&orderBy=${orderBy}&orderDirection=${dir}`, 7);
        assert.equal(rows.length, all.length);
        assert.deepEqual(new Set(rows.map((t) => t.id)), new Set(all.map((t) => t.id)));
        const expected = [...all].sort((a, b) => (dir === 'asc' ? 1 : -1) * cmp(orderBy, a, b));
        assert.deepEqual(rows.map((t) => t.id), expected.map((t) => t.id));
      });
    }
  }

  test('filters: status, paymentMethod and its alias method, clientId, createdFrom/createdTo (inclusive), combined', async () => {
    const ids = (rows: any[]) => rows.map((t) => t.id).sort();
    for (const status of ['PAID', 'PENDING', 'FAILED', 'EXPIRED', 'REFUNDED', 'PARTIALLY_REFUNDED']) {
      const rows = await walk(l.devKey, `&status=${status}`, 5);
      assert.deepEqual(ids(rows), ids(all.filter((t) => t.status === status)), status);
    }
    for (const method of ['PIX', 'CARD', 'BOLETO']) {
      const expected = ids(all.filter((t) => t.paymentMethod === method));
      assert.deepEqual(ids(await walk(l.devKey, `&paymentMethod=${method}`, 100)), expected);
      assert.deepEqual(ids(await walk(l.devKey, `&method=${method}`, 6)), expected, `method=${method}`);
    }
    for (const clientId of clientIds) {
      assert.deepEqual(ids(await walk(l.devKey, `&clientId=${clientId}`, 100)), ids(all.filter((t) => t.client.id === clientId)));
    }
    const byTime = [...all].sort((a, b) => cmp('createdAt', a, b));
    const mid = byTime[20].createdAt;
    const q = encodeURIComponent(mid);
    assert.deepEqual(ids(await walk(l.devKey, `&createdFrom=${q}`, 100)), ids(all.filter((t) => Date.parse(t.createdAt) >= Date.parse(mid))));
    assert.deepEqual(ids(await walk(l.devKey, `&createdTo=${q}`, 100)), ids(all.filter((t) => Date.parse(t.createdAt) <= Date.parse(mid))));
    const from = byTime[10].createdAt;
    const to = byTime[30].createdAt;
    const window = all.filter((t) => Date.parse(t.createdAt) >= Date.parse(from) && Date.parse(t.createdAt) <= Date.parse(to));
    assert.ok(window.length >= 21 && window.length < 45);
    assert.deepEqual(ids(await walk(l.devKey, `&createdFrom=${encodeURIComponent(from)}&createdTo=${encodeURIComponent(to)}&orderBy=amountCents`, 4)), ids(window));
    assert.deepEqual(ids(await walk(l.devKey, `&createdFrom=${encodeURIComponent(new Date(Date.now() + DAY).toISOString())}`, 10)), []);
    const combined = all.filter((t) => t.status === 'PAID' && t.paymentMethod === 'CARD');
    assert.ok(combined.length > 0);
    assert.deepEqual(ids(await walk(l.devKey, '&status=PAID&method=CARD&orderBy=amountCents&orderDirection=asc', 2)), ids(combined));
    for (const bad of ['status=DONE', 'paymentMethod=CASH', 'method=cash', 'clientId=123', 'createdFrom=yesterday', 'createdTo=2024-13-01']) {
      assert400(await list(l.devKey, `?${bad}`), 'VALIDATION_ERROR');
    }
  });

  test('walking while new rows are inserted between pages still returns every pre-existing row exactly once', async () => {
    const w = await merchant(ctx.app);
    const amounts = [300, 100, 200, 100, 500];
    for (let i = 0; i < 15; i++) await create(w.devKey, { amountCents: amounts[i % 5], paymentMethod: i % 2 ? 'BOLETO' : 'PIX' });
    let n = 0;
    for (const query of ['&orderBy=createdAt&orderDirection=desc', '&orderBy=createdAt&orderDirection=asc', '&orderBy=amountCents&orderDirection=asc', '&orderBy=amountCents&orderDirection=desc', '&orderBy=status&orderDirection=asc']) {
      const existing = (await walk(w.devKey, '', 100)).map((t) => t.id);
      const rows = await walk(w.devKey, query, 5, async () => {
        await create(w.devKey, { amountCents: amounts[n++ % 5], paymentMethod: n % 2 ? 'CARD' : 'PIX' });
      });
      const served = rows.map((t) => t.id);
      assert.equal(new Set(served).size, served.length, `${query}: no row twice`);
      for (const id of existing) assert.equal(served.filter((x) => x === id).length, 1, `${query}: ${id} exactly once`);
    }
  });

  test('a tampered cursor (any one character changed) -> 400 INVALID_CURSOR; a cursor of another ordering -> 400', async () => {
    const page = await list(l.devKey, '?limit=7');
    const cursor: string = page.body.pagination.nextCursor;
    assert.equal((await list(l.devKey, `?limit=7&cursor=${encodeURIComponent(cursor)}`)).status, 200);
    for (let i = 0; i < cursor.length; i++) {
      const flipped = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
      assert400(await list(l.devKey, `?limit=7&cursor=${encodeURIComponent(flipped)}`), 'INVALID_CURSOR');
    }
    for (const junk of ['abc', 'abc.def', '.', cursor + 'x', cursor.split('.')[0]]) assert400(await list(l.devKey, `?cursor=${encodeURIComponent(junk)}`), 'INVALID_CURSOR');
    assert400(await list(l.devKey, `?limit=7&orderBy=amountCents&cursor=${encodeURIComponent(cursor)}`), 'INVALID_CURSOR', ['querystring.cursor']);
    assert400(await list(l.devKey, `?limit=7&orderDirection=asc&cursor=${encodeURIComponent(cursor)}`), 'INVALID_CURSOR', ['querystring.cursor']);
    const amountCursor = (await list(l.devKey, '?limit=7&orderBy=amountCents')).body.pagination.nextCursor;
    assert400(await list(l.devKey, `?limit=7&orderBy=status&cursor=${encodeURIComponent(amountCursor)}`), 'INVALID_CURSOR', ['querystring.cursor']);
  });

  test('createdFrom / createdTo before 1900 -> 400 naming the field, for the list and the export alike (not a 500 or a cut-off file)', async () => {
    for (const [query, field] of [['createdFrom=0000-01-01T00:00:00Z', 'querystring.createdFrom'], ['createdTo=0001-01-01T00:00:00Z', 'querystring.createdTo']]) {
      assert400(await list(l.devKey, `?${query}`), 'VALIDATION_ERROR', [field]);
      assert400(await call(ctx.app, 'GET', `/api/v1/transactions/export?format=csv&${query}`, { key: l.devKey }), 'VALIDATION_ERROR', [field]);
    }
    assert.equal((await list(l.devKey, '?createdFrom=1900-01-01T00:00:00Z')).status, 200);
  });

  test('a cursor works only on the list, merchant and environment that it came from: anywhere else -> 400 INVALID_CURSOR', async () => {
    const w = await merchant(ctx.app, { live: true });
    const other = await merchant(ctx.app);
    for (let i = 0; i < 3; i++) await create(w.devKey);
    const cursor: string = (await list(w.devKey, '?limit=1')).body.pagination.nextCursor;
    const q = `?limit=1&cursor=${encodeURIComponent(cursor)}`;
    assert.equal((await list(w.devKey, q)).status, 200);
    assert400(await list(other.devKey, q), 'INVALID_CURSOR', ['querystring.cursor']); // another merchant
    assert400(await list(w.liveKey!, q), 'INVALID_CURSOR', ['querystring.cursor']); // the same merchant's production
    for (const path of ['/api/v1/payment-links', '/api/v1/webhooks/subscriptions', '/api/v1/webhooks/deliveries', '/api/v1/cart-abandonments', '/api/v1/balance/entries']) {
      assert400(await call(ctx.app, 'GET', `${path}${q}`, { key: w.devKey }), 'INVALID_CURSOR', ['querystring.cursor']); // another list
    }
  });
});
