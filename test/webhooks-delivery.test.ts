// Webhooks end to end: signed deliveries of a sale's events to a real local HTTPS receiver and to its
// postback URL, the delivery log and its filters, event selection, the test event.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uuidv7 } from '../src/db/ids.ts';
import { call, merchant } from './helpers.ts';
import { useMerchant } from './kit/app.ts';
import { validSignature } from './webhook-receiver.ts';
import { deliveriesOf, pix, SCHEDULE, sleep, subscribe, until, useReceiver, useWebhookApp } from './webhooks-kit.ts';

const receiver = useReceiver();
const ctx = useWebhookApp(receiver, { allowPrivate: true }); // the receiver on localhost is reachable
const m = useMerchant(ctx);

type Sub = { id: string; secret: string; url: string };
type Tx = { id: string; client: { document: string } };

/** The subscription's four deliveries of a paid PIX: envelope, headers, signature, masked document, data. */
async function assertSignedEvents(sub: Sub, tx: Tx) {
  const got = await receiver.waitFor('/all', 4);
  await sleep(200); // nothing more should come
  assert.equal(receiver.at('/all').length, 4);
  assert.deepEqual(got.map((r) => r.body.type).sort(), ['balance.updated', 'transaction.completed', 'transaction.created', 'transaction.updated']);
  for (const r of got) {
    assert.ok(validSignature(r, sub.secret), `signature of ${r.body.type}`);
    assert.match(String(r.headers['x-webhook-signature']), /^sha256=[0-9a-f]{64}$/);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['user-agent'], 'Cofre-Webhooks/2.30.0');
    assert.equal(r.headers['x-webhook-id'], r.body.id);
    assert.equal(r.headers['x-webhook-event'], r.body.type);
    assert.equal(r.headers['x-webhook-timestamp'], r.body.timestamp);
    assert.ok(Math.abs(Date.parse(r.body.timestamp) - r.at) < 5000, 'timestamp is the time of the attempt');
    assert.deepEqual(r.body.subscription, { id: sub.id, url: sub.url });
    assert.deepEqual(Object.keys(r.body).slice(0, 5), ['id', 'type', 'data', 'timestamp', 'subscription']);
    assert.equal(r.body.livemode, false);
    // Masked document, never the full one, anywhere in the payload.
    assert.ok(!r.raw.toString().includes(tx.client.document), 'document is masked');
  }
  assert.equal(new Set(got.map((r) => r.body.id)).size, 4, 'one event id per event');
  const completed = got.find((r) => r.body.type === 'transaction.completed')!.body.data;
  for (const f of ['id', 'status', 'amountCents', 'paymentMethod', 'clientEmail', 'createdAt', 'paidAt']) assert.ok(f in completed, `data.${f}`);
  assert.equal(completed.id, tx.id);
  assert.equal(completed.status, 'PAID');
  assert.equal(completed.amountCents, 5000);
  assert.equal(completed.paymentMethod, 'PIX');
  assert.equal(completed.clientEmail, 'maria@example.com');
  assert.ok(!Number.isNaN(Date.parse(completed.paidAt)));
  assert.match(completed.clientDocument, /\*/);
  const balance = got.find((r) => r.body.type === 'balance.updated')!.body.data;
  assert.equal(balance.availableCents, 5000 - 50); // PIX fee 0.99% of 5000, rounded
}

/** Postbacks: the transaction's own events (not balance.updated), signed with the postback secret, which it returns. */
async function assertPostbacks(key: string, sub: Sub, tx: Tx): Promise<string> {
  const postbacks = await receiver.waitFor('/postback', 3);
  await sleep(200);
  assert.equal(receiver.at('/postback').length, 3);
  assert.deepEqual(postbacks.map((r) => r.body.type).sort(), ['transaction.completed', 'transaction.created', 'transaction.updated']);
  const secret = await call(ctx.app, 'GET', '/api/v1/webhooks/postback-secret', { key });
  assert.equal(secret.status, 200);
  assert.match(secret.body.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  for (const r of postbacks) {
    assert.ok(validSignature(r, secret.body.secret), `postback signature of ${r.body.type}`);
    assert.ok(!validSignature(r, sub.secret));
    assert.deepEqual(r.body.subscription, { id: null, url: receiver.url('/postback') });
    assert.equal(r.body.data.id, tx.id);
  }
  // The same secret is returned until rotated.
  assert.equal((await call(ctx.app, 'GET', '/api/v1/webhooks/postback-secret', { key })).body.secret, secret.body.secret);
  return secret.body.secret;
}

/** The delivery log: one successful attempt each; postbacks listed by kind; one delivery in detail. */
async function assertDeliveryLog(key: string, sub: Sub) {
  const log = await until('log complete', async () => {
    const ds = await deliveriesOf(ctx, key, sub.id);
    return ds.length === 4 && ds.every((d) => d.status === 'SUCCEEDED') && ds;
  });
  for (const d of log) {
    assert.equal(d.kind, 'subscription');
    assert.equal(d.attemptCount, 1);
    assert.equal(d.attempts.length, 1);
    assert.equal(d.attempts[0].attempt, 1);
    assert.equal(d.attempts[0].statusCode, 200);
    assert.equal(d.attempts[0].error, null);
    assert.equal(d.attempts[0].nextRetryAt, null);
    assert.equal(typeof d.attempts[0].durationMs, 'number');
  }
  const pb = await call(ctx.app, 'GET', '/api/v1/webhooks/deliveries?kind=postback', { key });
  assert.equal(pb.body.deliveries.length, 3);
  assert.ok(pb.body.deliveries.every((d: { subscriptionId: string | null }) => d.subscriptionId === null));
  const detail = await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries/${log[0].id}`, { key });
  assert.equal(detail.status, 200);
  assert.equal(detail.body.delivery.payload.id, log[0].eventId);
}

/**
 * One sale's deliveries (its page in the dashboard): its events' deliveries to the subscription and
 * to its postback URL, not balance.updated, not the other sale's; and the log's other filters.
 */
async function assertDeliveriesOfSale(key: string, sub: Sub, tx: Tx, tx2: Tx) {
  const ofTx = await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?transactionId=${tx.id}&limit=100`, { key });
  assert.equal(ofTx.status, 200, ofTx.raw);
  const mine = ofTx.body.deliveries as { eventType: string; kind: string }[];
  assert.deepEqual(mine.map((d) => `${d.kind} ${d.eventType}`).sort(), ['postback transaction.completed', 'postback transaction.created', 'postback transaction.updated', 'subscription transaction.completed', 'subscription transaction.created', 'subscription transaction.updated']);
  const ofTx2 = await until('tx2 deliveries', async () => (await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?transactionId=${tx2.id}`, { key })).body.deliveries as { eventId: string }[]);
  const tx2Events = new Set(ofTx2.map((d) => d.eventId));
  assert.ok(mine.every((d) => !tx2Events.has((d as unknown as { eventId: string }).eventId)));
  // Another merchant's sale, an unknown id: 404; not an id: 400.
  assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?transactionId=${tx.id}`, { key: m.devKey })).status, 404);
  assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?transactionId=${uuidv7()}`, { key })).status, 404);
  assert.equal((await call(ctx.app, 'GET', '/api/v1/webhooks/deliveries?transactionId=nope', { key })).status, 400);
  // The other filters say so too: another merchant's or an unknown subscription is 404, an unknown event type 400.
  const bySub = await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?subscriptionId=${sub.id}&eventType=transaction.created`, { key });
  assert.equal(bySub.status, 200, bySub.raw);
  assert.ok(bySub.body.deliveries.length >= 1 && bySub.body.deliveries.every((d: { eventType: string }) => d.eventType === 'transaction.created'));
  assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?subscriptionId=${sub.id}`, { key: m.devKey })).status, 404);
  assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?subscriptionId=${uuidv7()}`, { key })).status, 404);
  const badType = await call(ctx.app, 'GET', '/api/v1/webhooks/deliveries?eventType=transaction.creatd', { key });
  assert.equal(badType.status, 400, badType.raw);
  assert.equal(badType.body.errors[0].field, 'querystring.eventType');
}

describe('delivery', () => {
  test('a paid PIX delivers created, updated, completed and balance.updated, signed, to the subscription and the postback URL', async () => {
    const mm = await merchant(ctx.app);
    const sub = await subscribe(ctx, mm.devKey, receiver.url('/all'), ['transaction.created', 'transaction.updated', 'transaction.completed', 'balance.updated']);
    const tx = await pix(ctx, mm.devKey, { postbackUrl: receiver.url('/postback') });
    const paid = await call(ctx.app, 'POST', `/api/v1/transactions/${tx.id}/simulate`, { key: mm.devKey, body: { outcome: 'PAID' } });
    assert.equal(paid.status, 200, paid.raw);
    await assertSignedEvents(sub, tx);
    const secret = await assertPostbacks(mm.devKey, sub, tx);
    await assertDeliveryLog(mm.devKey, sub);

    // Rotating the postback secret: later postbacks use the new one.
    const rotated = await call(ctx.app, 'POST', '/api/v1/webhooks/postback-secret/rotate', { key: mm.devKey });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.secret, secret);
    const tx2 = await pix(ctx, mm.devKey, { postbackUrl: receiver.url('/postback') });
    const [next] = (await receiver.waitFor('/postback', 4)).slice(3);
    assert.equal(next.body.data.id, tx2.id);
    assert.ok(validSignature(next, rotated.body.secret));

    await assertDeliveriesOfSale(mm.devKey, sub, tx, tx2);
  });

  test('a subscription receives only the event types it lists; a rotated secret signs the next delivery', async () => {
    const mm = await merchant(ctx.app);
    const sub = await subscribe(ctx, mm.devKey, receiver.url('/filtered'), ['transaction.completed']);
    const tx = await pix(ctx, mm.devKey);
    await call(ctx.app, 'POST', `/api/v1/transactions/${tx.id}/simulate`, { key: mm.devKey, body: { outcome: 'PAID' } });
    const [one] = await receiver.waitFor('/filtered', 1);
    await sleep(300);
    assert.equal(receiver.at('/filtered').length, 1);
    assert.equal(one.body.type, 'transaction.completed');
    assert.ok(validSignature(one, sub.secret));

    const rotated = await call(ctx.app, 'POST', `/api/v1/webhooks/subscriptions/${sub.id}/rotate-secret`, { key: mm.devKey });
    const tx2 = await pix(ctx, mm.devKey);
    await call(ctx.app, 'POST', `/api/v1/transactions/${tx2.id}/simulate`, { key: mm.devKey, body: { outcome: 'PAID' } });
    const [, two] = await receiver.waitFor('/filtered', 2);
    assert.ok(validSignature(two, rotated.body.subscription.secret));
    assert.ok(!validSignature(two, sub.secret));

    // A disabled subscription gets nothing; other merchants' events never reach it.
    await call(ctx.app, 'PATCH', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: mm.devKey, body: { status: 'DISABLED' } });
    const tx3 = await pix(ctx, mm.devKey);
    await call(ctx.app, 'POST', `/api/v1/transactions/${tx3.id}/simulate`, { key: mm.devKey, body: { outcome: 'PAID' } });
    const tx4 = await pix(ctx, m.devKey);
    await call(ctx.app, 'POST', `/api/v1/transactions/${tx4.id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
    await sleep(400);
    assert.equal(receiver.at('/filtered').length, 2);
  });

  test('the test event is signed, delivered now, and its outcome returned', async () => {
    const mm = await merchant(ctx.app);
    const sub = await subscribe(ctx, mm.devKey, receiver.url('/ping'), ['transaction.created']);
    const res = await call(ctx.app, 'POST', `/api/v1/webhooks/subscriptions/${sub.id}/test`, { key: mm.devKey });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.success, true);
    assert.equal(res.body.attempt.statusCode, 200);
    assert.equal(res.body.delivery.status, 'SUCCEEDED');
    assert.equal(res.body.delivery.eventType, 'webhook.test');
    const [r] = receiver.at('/ping');
    assert.equal(r.body.type, 'webhook.test');
    assert.equal(r.headers['x-webhook-event'], 'webhook.test');
    assert.ok(validSignature(r, sub.secret));

    receiver.on('/ping-down', () => 503);
    const down = await subscribe(ctx, mm.devKey, receiver.url('/ping-down'), ['transaction.created']);
    const bad = await call(ctx.app, 'POST', `/api/v1/webhooks/subscriptions/${down.id}/test`, { key: mm.devKey });
    assert.equal(bad.status, 200);
    assert.equal(bad.body.success, false);
    assert.equal(bad.body.attempt.statusCode, 503);
    assert.equal(bad.body.delivery.status, 'FAILED');
    await sleep(SCHEDULE[0] + 300);
    assert.equal(receiver.at('/ping-down').length, 1, 'test events are not retried');
    // Trying a receiver that is not ready is no sign the subscription should stop.
    receiver.on('/ping-gone', () => 410);
    const gone = await subscribe(ctx, mm.devKey, receiver.url('/ping-gone'), ['transaction.created']);
    assert.equal((await call(ctx.app, 'POST', `/api/v1/webhooks/subscriptions/${gone.id}/test`, { key: mm.devKey })).body.attempt.statusCode, 410);
    for (const id of [down.id, gone.id]) {
      const s = (await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${id}`, { key: mm.devKey })).body.subscription;
      assert.deepEqual([s.status, s.failingSince], ['ACTIVE', null], 'a failed test neither starts a failing streak nor disables');
    }
  });
});
