// Transactions through the API's contract: idempotency, listing, tenant isolation, production keys.
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { appConfig, appOver, call, cpf, merchant, type Merchant, type Res, type TestContext } from './helpers.ts';
import { DAY, assert400, assertMessageOnly, balance, body, card, cardFee, count, create, ctx, eventsFor, get, list, pay, post, refund, simulate, txCount, useTransactionsApp } from './transactions-kit.ts';

useTransactionsApp();

describe('idempotency', () => {
  const idem = (key: string) => ({ 'idempotency-key': key });

  test('same key and body -> the first response replayed with Idempotent-Replayed: true, one transaction', async () => {
    const i = await merchant(ctx.app);
    const b = body({ amountCents: 777 });
    const first = await post(i.devKey, b, idem('order-1'));
    assert.equal(first.status, 201, first.raw);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const second = await post(i.devKey, b, idem('order-1'));
    assert.equal(second.status, 201, second.raw);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.body, first.body);
    assert.equal(await txCount(i.id), 1);
    assert.equal((await eventsFor(first.body.transaction.id)).length, 1);
    // Without a key every POST is a new transaction.
    await post(i.devKey, b);
    assert.equal(await txCount(i.id), 2);
  });

  test('a replay compressed for the client (claimed path) is the stored response, and the work is not done again', async () => {
    const i = await merchant(ctx.app);
    const cardBody = body({ amountCents: 4321, card: card(), paymentMethod: 'CARD' }); // claimed before the work
    const first = await post(i.devKey, cardBody, idem('gzip-replay'));
    assert.equal(first.status, 201, first.raw);
    assert.ok(Buffer.byteLength(first.raw) > 1024, 'large enough to be compressed');
    const events = (await eventsFor(first.body.transaction.id)).length;
    const replay = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/transactions',
      headers: { 'api-key': i.devKey, 'content-type': 'application/json', 'accept-encoding': 'gzip', ...idem('gzip-replay') },
      payload: JSON.stringify(cardBody),
    });
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers['content-encoding'], 'gzip');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(JSON.parse(gunzipSync(replay.rawPayload).toString('utf8')).transaction, first.body.transaction);
    assert.equal(await txCount(i.id), 1);
    assert.equal((await eventsFor(first.body.transaction.id)).length, events);
  });

  test('a key claimed by a request that never answered (its process died) holds for a minute, then a retry proceeds', async () => {
    const i = await merchant(ctx.app);
    // What a request leaves when its process dies after the claim: the key, with no response.
    const unanswered = async (key: string, b: unknown, agoMs: number) => {
      const first = await post(i.devKey, b, idem(key));
      assert.equal(first.status, 201, first.raw);
      await ctx.database.db
        .updateTable('idempotency_keys')
        .set({ response_status: null, response_body: null, created_at: new Date(Date.now() - agoMs) })
        .where('user_id', '=', i.id)
        .where('key', '=', key)
        .execute();
    };
    const cardBody = body({ amountCents: 1234, card: card(), paymentMethod: 'CARD' }); // the claimed path
    await unanswered('crashed-recently', cardBody, 5_000);
    assertMessageOnly(await post(i.devKey, cardBody, idem('crashed-recently')), 409);
    await unanswered('crashed-long-ago', cardBody, 61_000);
    const retry = await post(i.devKey, cardBody, idem('crashed-long-ago'));
    assert.equal(retry.status, 201, retry.raw);
    assert.equal(retry.headers['idempotent-replayed'], undefined, 'taken over, not replayed');
    const again = await post(i.devKey, cardBody, idem('crashed-long-ago'));
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body.transaction.id, retry.body.transaction.id);
    // The inline path (PIX) falls back to the same claim.
    const pixBody = body();
    await unanswered('crashed-pix', pixBody, 61_000);
    const pix = await post(i.devKey, pixBody, idem('crashed-pix'));
    assert.equal(pix.status, 201, pix.raw);
    assert.equal(pix.headers['idempotent-replayed'], undefined);
  });

  test('with a key, the response (stored by the creation statement) is the transaction as stored: an existing client keeps its id and phone', async () => {
    const i = await merchant(ctx.app);
    const doc = cpf();
    const first = await post(i.devKey, body({ clientDocument: doc, clientPhone: '(11) 4002-8922' }));
    assert.equal(first.status, 201, first.raw);
    const client = first.body.transaction.client;
    // No phone given: the client's stored one is shown; metadata keys come back in jsonb's order.
    const b = body({ clientDocument: doc, clientName: 'Ana Maria', metadata: { zeta: 'ção ✓ "q" \\ </script>', a: 1.5, 'longer-key': true, b: null }, trackingParams: { utm_source: 'x' } });
    const res = await post(i.devKey, b, idem('stored-1'));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    const t = res.body.transaction;
    assert.deepEqual(t.client, { ...client, name: 'Ana Maria', email: b.clientEmail });
    assert.equal(t.client.phone, '(11) 4002-8922');
    // The text stored before the statement ran carries the envelope too (data: the same transaction).
    const stored = (await get(i.devKey, t.id)).body.transaction;
    assert.equal(res.raw, JSON.stringify({ message: 'Transaction created', transaction: stored, success: true, data: stored }));
    const replay = await post(i.devKey, b, idem('stored-1'));
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.raw, res.raw);
    // The event carries the same client.
    const [created] = await eventsFor(t.id);
    assert.equal(created.data.clientId, client.id);
    // A new client without a phone: null.
    const fresh = await post(i.devKey, body(), idem('stored-2'));
    assert.equal(fresh.body.transaction.client.phone, null);
    assert.notEqual(fresh.body.transaction.client.id, client.id);
    assert.deepEqual(fresh.body.transaction, (await get(i.devKey, fresh.body.transaction.id)).body.transaction);
  });

  test('a refusal is stored and replayed too; a retry is replayed even once its input would be refused; a card charge with a key is charged once', async () => {
    const i = await merchant(ctx.app);
    const b0 = body({ paymentLinkId: '01890000-0000-7000-8000-000000000000' });
    const refused = await post(i.devKey, b0, idem('err-1'));
    assert400(refused, 'VALIDATION_ERROR');
    const again = await post(i.devKey, b0, idem('err-1'));
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.raw, refused.raw);
    const { paymentLinkId: _, ...other } = b0;
    assert400(await post(i.devKey, other, idem('err-1')), 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(await txCount(i.id), 0);

    // Paid with a link that is then archived: the retry replays the 201 rather than refusing the link.
    const link = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: i.devKey, body: { title: 'Ebook', amountCents: 3000 } });
    assert.equal(link.status, 201, link.raw);
    const withLink = body({ paymentLinkId: link.body.paymentLink.id, amountCents: 3000 });
    const ok = await post(i.devKey, withLink, idem('link-1'));
    assert.equal(ok.status, 201, ok.raw);
    assert.equal((await call(ctx.app, 'DELETE', `/api/v1/payment-links/${link.body.paymentLink.id}`, { key: i.devKey })).status, 200);
    assert400(await post(i.devKey, body({ paymentLinkId: link.body.paymentLink.id }), idem('link-2')), 'VALIDATION_ERROR');
    const retry0 = await post(i.devKey, withLink, idem('link-1'));
    assert.equal(retry0.headers['idempotent-replayed'], 'true');
    assert.equal(retry0.raw, ok.raw);
    assert.equal(await txCount(i.id), 1);

    const b = body({ paymentMethod: 'CARD', card: card() });
    const paid = await post(i.devKey, b, idem('card-1'));
    assert.equal(paid.status, 201, paid.raw);
    assert.equal(paid.body.transaction.status, 'PAID');
    const retry = await post(i.devKey, b, idem('card-1'));
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.body, paid.body);
    assert.equal(await txCount(i.id), 2);
    assert.ok(!retry.raw.includes('4242424242424242'));
  });

  test('same key with another body -> 400 IDEMPOTENCY_KEY_REUSED; the same body in another key order is the same body', async () => {
    const i = await merchant(ctx.app);
    const b = body({ amountCents: 1500, metadata: { a: 1, b: 'x' } });
    const first = await post(i.devKey, b, idem('k-order'));
    assert.equal(first.status, 201);
    assert400(await post(i.devKey, { ...b, amountCents: 1501 }, idem('k-order')), 'IDEMPOTENCY_KEY_REUSED');
    const reversed = Object.fromEntries(Object.entries({ ...b, metadata: { b: 'x', a: 1 } }).reverse());
    assert.notEqual(JSON.stringify(reversed), JSON.stringify(b));
    const replay = await post(i.devKey, reversed, idem('k-order'));
    assert.equal(replay.status, 201, replay.raw);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.transaction.id, first.body.transaction.id);
    assert.equal(await txCount(i.id), 1);
  });

  test('an expired key (past its 24 h) is usable again; the stored row is given 24 h', async () => {
    const i = await merchant(ctx.app);
    const first = await post(i.devKey, body({ amountCents: 100 }), idem('reuse-me'));
    assert.equal(first.status, 201);
    const row = await ctx.database.db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', i.id).where('key', '=', 'reuse-me').executeTakeFirstOrThrow();
    const life = new Date(row.expires_at).getTime() - new Date(row.created_at).getTime();
    assert.ok(Math.abs(life - DAY) < 1000, `key life ${life} ms`);
    await ctx.database.db.updateTable('idempotency_keys').set({ expires_at: new Date(Date.now() - 1000) }).where('user_id', '=', i.id).where('key', '=', 'reuse-me').execute();
    const again = await post(i.devKey, body({ amountCents: 200 }), idem('reuse-me'));
    assert.equal(again.status, 201, again.raw);
    assert.equal(again.headers['idempotent-replayed'], undefined);
    assert.notEqual(again.body.transaction.id, first.body.transaction.id);
    assert.equal(again.body.transaction.amountCents, 200);
    assert.equal(await txCount(i.id), 2);
  });

  test('a key over 255 characters -> 400; 255 accepted', async () => {
    const i = await merchant(ctx.app);
    const long = await post(i.devKey, body(), idem('k'.repeat(256)));
    assert400(long, 'VALIDATION_ERROR', ['Idempotency-Key']);
    assert.equal(await txCount(i.id), 0);
    assert.equal((await post(i.devKey, body(), idem('k'.repeat(255)))).status, 201);
  });

  test('keys are per merchant: another merchant with the same key gets its own transaction', async () => {
    const a = await merchant(ctx.app);
    const b = await merchant(ctx.app);
    const payload = body({ amountCents: 999 });
    const ra = await post(a.devKey, payload, idem('shared-key'));
    const rb = await post(b.devKey, payload, idem('shared-key'));
    assert.equal(ra.status, 201);
    assert.equal(rb.status, 201, rb.raw);
    assert.equal(rb.headers['idempotent-replayed'], undefined);
    assert.notEqual(rb.body.transaction.id, ra.body.transaction.id);
    assert.equal(await txCount(b.id), 1);
    assertMessageOnly(await get(b.devKey, ra.body.transaction.id), 404);
  });

  test('a retried refund with the same key is replayed, not refunded twice; the key cannot be reused on another path', async () => {
    const i = await merchant(ctx.app);
    await pay(i.devKey, (await create(i.devKey, { amountCents: 50000 })).id);
    const t = await pay(i.devKey, (await create(i.devKey, { amountCents: 10000 })).id);
    const first = await refund(i.devKey, t.id, 1000, idem('refund-1'));
    assert.equal(first.status, 200, first.raw);
    const b = await balance(i.devKey);
    const retry = await refund(i.devKey, t.id, 1000, idem('refund-1'));
    assert.equal(retry.status, 200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.body, first.body);
    assert.equal((await get(i.devKey, t.id)).body.transaction.refundedCents, 1000);
    assert.deepEqual(await balance(i.devKey), b);
    assert400(await post(i.devKey, body(), idem('refund-1')), 'IDEMPOTENCY_KEY_REUSED');
  });
});

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

describe('isolation between merchants', () => {
  test('merchant B gets 404 for A\'s transaction (GET, refund, simulate) and never sees it in lists', async () => {
    const a = await merchant(ctx.app);
    const b = await merchant(ctx.app);
    const pending = await create(a.devKey);
    const paid = await pay(a.devKey, (await create(a.devKey, { amountCents: 5000 })).id);
    await create(b.devKey);
    for (const t of [pending, paid]) {
      assertMessageOnly(await get(b.devKey, t.id), 404);
      assertMessageOnly(await refund(b.devKey, t.id, 100), 404);
      assertMessageOnly(await refund(b.devKey, t.id), 404);
      assertMessageOnly(await simulate(b.devKey, t.id, 'PAID'), 404);
    }
    assert.equal((await get(a.devKey, pending.id)).body.transaction.status, 'PENDING');
    assert.equal((await get(a.devKey, paid.id)).body.transaction.refundedCents, 0);
    const seen = (await list(b.devKey, '?limit=100')).body.transactions.map((t: any) => t.id);
    assert.equal(seen.length, 1);
    assert.ok(!seen.includes(pending.id) && !seen.includes(paid.id));
    assert.deepEqual((await list(b.devKey, `?clientId=${pending.client.id}`)).body.transactions, []);
    assert.deepEqual(await balance(b.devKey), { available: 0, receivable: 0, reserved: 0 });
  });
});

describe('production keys without a payment provider', () => {
  test('a production create -> 503 { message } and nothing is written, with or without Idempotency-Key', async () => {
    const p = await merchant(ctx.app, { live: true });
    const tables = ['transactions', 'clients', 'events', 'idempotency_keys', 'ledger_journals', 'receivables'];
    const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const)));
    const before_ = await counts();
    for (const b of [body(), body({ paymentMethod: 'BOLETO' }), body({ paymentMethod: 'CARD', card: card() })]) {
      for (const headers of [{}, { 'idempotency-key': 'live-1' }, { 'idempotency-key': 'live-1' }] as Record<string, string>[]) {
        const res = await post(p.liveKey!, b, headers);
        assertMessageOnly(res, 503);
        assert.equal(res.headers['idempotent-replayed'], undefined);
        assert.ok(!res.raw.includes('4242424242424242'));
      }
    }
    assert.deepEqual(await counts(), before_);
    // The development key of the same merchant still works.
    assert.equal((await post(p.devKey, body())).status, 201);
  });
});

/**
 * A second app over the same database, configured with PAYMENT_PROVIDER. (A second startApp() would
 * migrate a second PostgreSQL schema, which src/db's migrate() cannot do while another schema of
 * the same database already holds Kysely's migration tables.)
 */
async function siblingApp(env: Record<string, string>): Promise<TestContext> {
  const config = appConfig(env);
  const limiter = new MemoryLimiter();
  const logs: string[] = [];
  const logStream = { write: (chunk: string) => void logs.push(String(chunk)) };
  const app = await appOver(config, ctx.database, { limiter, logStream });
  return {
    ...ctx,
    app,
    config,
    limiter,
    logs,
    async close() {
      await app.close();
      await limiter.close();
    },
  };
}

describe('production keys with the sandbox provider configured (PAYMENT_PROVIDER=sandbox)', () => {
  let live: TestContext;
  let p: Merchant;
  before(async () => {
    live = await siblingApp({ PAYMENT_PROVIDER: 'sandbox' });
    p = await merchant(live.app, { live: true });
  });
  after(() => live.close());

  test('production transactions are created (livemode true) and a card is charged', async () => {
    const t = await create(p.liveKey!, {}, live);
    assert.equal(t.livemode, true);
    assert.equal(t.status, 'PENDING');
    const c = await create(p.liveKey!, { paymentMethod: 'CARD', amountCents: 20000, card: card() }, live);
    assert.equal(c.status, 'PAID');
    assert.deepEqual(await balance(p.liveKey!, live), { available: 0, receivable: 20000 - cardFee(20000), reserved: 0 });
    assert.deepEqual(await balance(p.devKey, live), { available: 0, receivable: 0, reserved: 0 });
    const events = await eventsFor(c.id, live);
    assert.ok(events.length >= 4 && events.every((e) => e.livemode === true));
  });

  test('simulate with a production key -> 403 { message }; the transaction is unchanged', async () => {
    const t = await create(p.liveKey!, {}, live);
    for (const outcome of ['PAID', 'FAILED', 'EXPIRED']) assertMessageOnly(await simulate(p.liveKey!, t.id, outcome, live), 403);
    assert.equal((await get(p.liveKey!, t.id, live)).body.transaction.status, 'PENDING');
    assert.equal((await eventsFor(t.id, live)).length, 1);
  });

  test('a development key never sees production transactions, and vice versa', async () => {
    const prod = await create(p.liveKey!, {}, live);
    const dev = await create(p.devKey, {}, live);
    assert.equal(dev.livemode, false);
    assertMessageOnly(await get(p.devKey, prod.id, live), 404);
    assertMessageOnly(await get(p.liveKey!, dev.id, live), 404);
    assertMessageOnly(await simulate(p.devKey, prod.id, 'PAID', live), 404);
    const devList = (await list(p.devKey, '?limit=100', live)).body.transactions;
    const liveList = (await list(p.liveKey!, '?limit=100', live)).body.transactions;
    assert.ok(devList.length >= 1 && devList.every((t: any) => t.livemode === false));
    assert.ok(liveList.length >= 3 && liveList.every((t: any) => t.livemode === true));
    assert.ok(!devList.some((t: any) => t.id === prod.id));
    assert.ok(!liveList.some((t: any) => t.id === dev.id));
    // Clients are per environment too: the same document is two clients.
    const doc = cpf();
    const a = await create(p.liveKey!, { clientDocument: doc }, live);
    const b = await create(p.devKey, { clientDocument: doc }, live);
    assert.notEqual(a.client.id, b.client.id);
  });
});
