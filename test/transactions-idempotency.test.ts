// Transactions through the API's contract: idempotency (Idempotency-Key on creations and refunds).
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { call, cpf, merchant } from './helpers.ts';
import { assert400, assertMessageOnly } from './kit/assert.ts';
import { DAY, balance, body, card, create, ctx, eventsFor, get, pay, post, refund, txCount, useTransactionsApp } from './transactions-kit.ts';

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
    assert.equal(retry.raw, paid.raw);
    assert.equal(await txCount(i.id), 2);
    assert.ok(!retry.raw.includes('4242424242424242'));
  });

  test('card payments charged together: each retry replays its own final answer, byte for byte', async () => {
    const i = await merchant(ctx.app);
    // Their outcomes are recorded in shared batches, the answers stored with them (storeAnswer).
    const bodies = Array.from({ length: 12 }, (_, n) => body({ paymentMethod: 'CARD', card: card(), amountCents: 1000 + n }));
    const first = await Promise.all(bodies.map((b, n) => post(i.devKey, b, idem(`batch-card-${n}`))));
    for (const r of first) assert.equal(r.body.transaction?.status, 'PAID', r.raw);
    const retries = await Promise.all(bodies.map((b, n) => post(i.devKey, b, idem(`batch-card-${n}`))));
    retries.forEach((r, n) => {
      assert.equal(r.headers['idempotent-replayed'], 'true');
      assert.equal(r.status, 201);
      assert.equal(r.raw, first[n].raw);
    });
    assert.equal(await txCount(i.id), 12);
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
