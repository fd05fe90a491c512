// Webhooks end to end: subscriptions, signed deliveries to a real local HTTPS receiver, retries with
// a compressed schedule, 410 and failure disabling, postbacks, manual redelivery, the test event,
// and the SSRF guard at creation and at delivery time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { uuidv7 } from '../src/db/ids.ts';
import { ATTEMPT_STARTED, attempt, claimDue, decide, recordOutcome, retryOffsetMs, type ClaimedDelivery } from '../src/modules/webhooks/deliveries.ts';
import { call, cpf, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';
import { startReceiver, validSignature, type Receiver } from './webhook-receiver.ts';

const SCHEDULE = [100, 200, 300, 400, 500, 600, 700];
const TIMEOUT_MS = 1500;

let receiver: Receiver;
let ctx: TestContext; // WEBHOOK_ALLOW_PRIVATE_TARGETS=true: the receiver on localhost is reachable
let guarded: TestContext; // the SSRF guard on, as in production
let m: Merchant;

function env(allowPrivate: boolean): Record<string, string> {
  return {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: String(allowPrivate),
    WEBHOOK_CA_FILE: receiver.certFile,
    WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(','),
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_LOCK_MS: '5000',
    WEBHOOK_POLL_MS: '100',
    LOG_LEVEL: 'warn',
  };
}

before(async () => {
  receiver = await startReceiver();
  ctx = await startApp({ env: env(true) });
  guarded = await startApp({ env: env(false) });
  await ctx.app.deps.webhooks.dispatcher.start();
  await guarded.app.deps.webhooks.dispatcher.start();
  m = await merchant(ctx.app);
});

after(async () => {
  await ctx?.close();
  await guarded?.close();
  await receiver?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v && !(Array.isArray(v) && v.length === 0)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function subscribe(c: TestContext, key: string, url: string, events: string[], extra: Record<string, unknown> = {}) {
  const res = await call(c.app, 'POST', '/api/v1/webhooks/subscriptions', { key, body: { url, events, ...extra } });
  assert.equal(res.status, 201, res.raw);
  return res.body.subscription as { id: string; secret: string; url: string; events: string[]; status: string };
}

async function pix(c: TestContext, key: string, extra: Record<string, unknown> = {}) {
  const res = await call(c.app, 'POST', '/api/v1/transactions', {
    key,
    body: { product: 'Camiseta', amountCents: 5000, clientName: 'Maria Souza', clientEmail: 'maria@example.com', clientDocument: cpf(), paymentMethod: 'PIX', ...extra },
  });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction as { id: string; client: { document: string } };
}

async function deliveriesOf(c: TestContext, key: string, subscriptionId: string) {
  const res = await call(c.app, 'GET', `/api/v1/webhooks/subscriptions/${subscriptionId}/deliveries?limit=100`, { key });
  assert.equal(res.status, 200, res.raw);
  return res.body.deliveries as any[];
}

describe('configuration', () => {
  test('defaults follow the spec and bad values are refused by name', () => {
    const base = { JWT_SECRET: 'x'.repeat(40) };
    const c = loadConfig(base).webhooks;
    assert.deepEqual(c.retryScheduleMs, [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    assert.equal(c.timeoutMs, 10_000);
    assert.equal(c.disableAfterMs, 5 * 86_400_000);
    assert.equal(c.allowPrivateTargets, false);
    assert.ok(c.lockMs > c.timeoutMs);
    assert.throws(() => loadConfig({ ...base, WEBHOOK_RETRY_SCHEDULE_MS: '5,abc' }), /WEBHOOK_RETRY_SCHEDULE_MS/);
    assert.throws(() => loadConfig({ ...base, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' }), /WEBHOOK_ALLOW_PRIVATE_TARGETS/);
    assert.throws(() => loadConfig({ ...base, WEBHOOK_CA_FILE: '/nonexistent/ca.pem' }), /WEBHOOK_CA_FILE/);
    assert.throws(() => loadConfig({ ...base, WEBHOOK_TIMEOUT_MS: '20000', WEBHOOK_LOCK_MS: '5000' }), /WEBHOOK_LOCK_MS/);
    assert.throws(() => loadConfig({ ...base, DATABASE_SCHEMA: 'Bad-Name' }), /DATABASE_SCHEMA/);
  });

  test('retry schedule is cumulative from the first try, then the delivery fails', () => {
    const s = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((n) => retryOffsetMs(s, n)), [5_000, 305_000, 2_105_000, 9_305_000, 27_305_000, 63_305_000, 99_305_000]);
    assert.equal(retryOffsetMs(s, 8), null);
    const fail = { ok: false, statusCode: 500 };
    assert.deepEqual(decide({ status: 'PENDING', attempts: 1 }, fail, 'scheduled', s), { status: 'PENDING', nextOffsetMs: 5_000, subscription: 'failed' });
    assert.deepEqual(decide({ status: 'PENDING', attempts: 8 }, fail, 'scheduled', s), { status: 'FAILED', nextOffsetMs: null, subscription: 'failed' });
    assert.deepEqual(decide({ status: 'PENDING', attempts: 2 }, { ok: false, statusCode: 410 }, 'scheduled', s), { status: 'FAILED', nextOffsetMs: null, subscription: 'gone' });
    assert.deepEqual(decide({ status: 'FAILED', attempts: 9 }, fail, 'manual', s), { status: 'FAILED', nextOffsetMs: null, subscription: 'failed' });
    assert.deepEqual(decide({ status: 'FAILED', attempts: 9 }, { ok: true, statusCode: 200 }, 'manual', s), { status: 'SUCCEEDED', nextOffsetMs: null, subscription: 'succeeded' });
  });
});

describe('subscriptions', () => {
  test('secrets are never stored for Idempotency-Key replays: subscription, rotation, postback secret, API key', async () => {
    const owner = await merchant(ctx.app);
    const headers = { 'idempotency-key': 'same-key' };
    const body = { url: receiver.url('/idem'), events: ['transaction.created'] };
    const a = await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { key: owner.devKey, body, headers });
    const b = await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { key: owner.devKey, body, headers });
    assert.equal(a.status, 201, a.raw);
    assert.equal(b.status, 201, b.raw);
    assert.equal(b.headers['idempotent-replayed'], undefined);
    assert.notEqual(b.body.subscription.secret, a.body.subscription.secret);
    const rotated = await call(ctx.app, 'POST', `/api/v1/webhooks/subscriptions/${a.body.subscription.id}/rotate-secret`, { key: owner.devKey, headers: { 'idempotency-key': 'rot' } });
    assert.equal(rotated.status, 200, rotated.raw);
    assert.equal((await call(ctx.app, 'POST', '/api/v1/webhooks/postback-secret/rotate', { key: owner.devKey, headers: { 'idempotency-key': 'pb' } })).status, 200);
    const key = await call(ctx.app, 'POST', '/api/credentials', { token: owner.token, body: { name: 'erp', environment: 'DEVELOPMENT' }, headers: { 'idempotency-key': 'cred' } });
    assert.equal(key.status, 201, key.raw);
    const stored = await ctx.database.db.selectFrom('idempotency_keys').select(['key', 'response_body']).where('user_id', '=', owner.id).execute();
    assert.deepEqual(stored, []);
    // (The two subscriptions also show the list's order: newest first, or oldest with orderDirection=asc.)
    const ids = async (q: string) => (await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions${q}`, { key: owner.devKey })).body.subscriptions.map((x: { id: string }) => x.id);
    assert.deepEqual(await ids(''), [b.body.subscription.id, a.body.subscription.id]);
    assert.deepEqual(await ids('?orderDirection=asc'), [a.body.subscription.id, b.body.subscription.id]);
  });

  test('create returns the secret once; get, list, update, rotate, delete', async () => {
    const created = await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', {
      key: m.devKey,
      body: { url: receiver.url('/crud'), events: ['transaction.completed', 'balance.updated'], description: 'ERP' },
    });
    assert.equal(created.status, 201, created.raw);
    const sub = created.body.subscription;
    assert.match(sub.secret, /^whsec_[A-Za-z0-9_-]{43}$/); // 32 random bytes
    assert.equal(sub.status, 'ACTIVE');
    assert.deepEqual(sub.events, ['transaction.completed', 'balance.updated']);
    assert.equal(sub.description, 'ERP');
    assert.equal(sub.livemode, false);

    const got = await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey });
    assert.equal(got.status, 200);
    assert.equal(got.body.subscription.secret, undefined);
    assert.ok(!got.raw.includes(sub.secret));
    const list = await call(ctx.app, 'GET', '/api/v1/webhooks/subscriptions', { key: m.devKey });
    assert.equal(list.status, 200);
    assert.ok(list.body.subscriptions.some((s: { id: string }) => s.id === sub.id));
    assert.ok(!list.raw.includes(sub.secret));

    const patched = await call(ctx.app, 'PATCH', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey, body: { events: ['transaction.created'], description: null, status: 'DISABLED' } });
    assert.equal(patched.status, 200, patched.raw);
    assert.deepEqual(patched.body.subscription.events, ['transaction.created']);
    assert.equal(patched.body.subscription.description, null);
    assert.equal(patched.body.subscription.status, 'DISABLED');
    assert.equal(patched.body.subscription.disabledReason, 'Disabled by request');
    const marked = await call(ctx.app, 'PATCH', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey, body: { description: '<script>alert(1)</script>ERP <b>novo</b>' } });
    assert.equal(marked.body.subscription.description, 'ERP novo', 'markup stripped from the stored text the dashboard shows');
    const enabled = await call(ctx.app, 'PATCH', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey, body: { status: 'ACTIVE' } });
    assert.equal(enabled.body.subscription.status, 'ACTIVE');
    assert.equal(enabled.body.subscription.disabledReason, null);

    const rotated = await call(ctx.app, 'POST', `/api/v1/webhooks/subscriptions/${sub.id}/rotate-secret`, { key: m.devKey });
    assert.equal(rotated.status, 200, rotated.raw);
    assert.match(rotated.body.subscription.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(rotated.body.subscription.secret, sub.secret);

    const del = await call(ctx.app, 'DELETE', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey });
    assert.equal(del.status, 200);
    assert.deepEqual(Object.keys(del.body), ['message']);
    assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'DELETE', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey })).status, 404);
    const after = await call(ctx.app, 'GET', '/api/v1/webhooks/subscriptions', { key: m.devKey });
    assert.ok(!after.body.subscriptions.some((s: { id: string }) => s.id === sub.id));
  });

  // (ctx allows private targets, hence http too: http without the setting is in the SSRF guard tests)
  test('validation: http(s) only, known non-empty event types, no credentials, no unknown fields', async () => {
    const cases: [unknown, string][] = [
      [{ url: 'ftp://localhost/hook', events: ['transaction.created'] }, 'url'],
      [{ url: 'https://user:pw@localhost/hook', events: ['transaction.created'] }, 'url'],
      [{ url: 'not a url', events: ['transaction.created'] }, 'url'],
      [{ url: receiver.url('/v'), events: ['transaction.exploded'] }, 'events.0'],
      [{ url: receiver.url('/v'), events: [] }, 'events'],
      [{ url: receiver.url('/v') }, 'events'],
      [{ events: ['transaction.created'] }, 'url'],
      [{ url: receiver.url('/v'), events: ['transaction.created'], secret: 'mine' }, 'secret'],
    ];
    for (const [body, field] of cases) {
      const res = await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.raw}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(res.body.errors.some((e: { field: string }) => e.field === field), `${JSON.stringify(body)}: ${res.raw}`);
    }
    const sub = await subscribe(ctx, m.devKey, receiver.url('/v'), ['transaction.created']);
    const badPatch = await call(ctx.app, 'PATCH', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey, body: { url: 'ftp://localhost/x' } });
    assert.equal(badPatch.status, 400);
    assert.equal(badPatch.body.errors[0].field, 'url');
    assert.equal((await call(ctx.app, 'PATCH', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey, body: {} })).status, 400);
    assert.equal((await call(ctx.app, 'PATCH', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey, body: { events: ['nope'] } })).status, 400);
    await call(ctx.app, 'DELETE', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey });
  });

  test('permissions: webhooks:read to look, webhooks:write to change and to read the postback secret', async () => {
    const reader = await merchant(ctx.app, { permissions: ['webhooks:read'] });
    const none = await merchant(ctx.app, { permissions: ['transactions:read'] });
    assert.equal((await call(ctx.app, 'GET', '/api/v1/webhooks/subscriptions', { key: reader.devKey })).status, 200);
    const secret = await call(ctx.app, 'GET', '/api/v1/webhooks/postback-secret', { key: reader.devKey });
    assert.equal(secret.status, 403, 'the postback secret signs postbacks: reading it needs webhooks:write');
    assert.deepEqual(secret.body, { message: 'This API key lacks the webhooks:write permission' });
    const post = await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { key: reader.devKey, body: { url: receiver.url('/p'), events: ['transaction.created'] } });
    assert.equal(post.status, 403);
    assert.equal((await call(ctx.app, 'POST', '/api/v1/webhooks/postback-secret/rotate', { key: reader.devKey })).status, 403);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/webhooks/subscriptions', { key: none.devKey })).status, 403);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/webhooks/subscriptions')).status, 401);
  });

  test("tenant isolation: another merchant's or environment's ids are 404", async () => {
    const other = await merchant(ctx.app, { live: true });
    const sub = await subscribe(ctx, m.devKey, receiver.url('/iso'), ['transaction.created']);
    await pix(ctx, m.devKey);
    const [delivery] = await until('a delivery', async () => (await deliveriesOf(ctx, m.devKey, sub.id)).filter((d) => d.status === 'SUCCEEDED'));
    for (const key of [other.devKey, other.liveKey!]) {
      assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${sub.id}`, { key })).status, 404);
      assert.equal((await call(ctx.app, 'PATCH', `/api/v1/webhooks/subscriptions/${sub.id}`, { key, body: { status: 'DISABLED' } })).status, 404);
      assert.equal((await call(ctx.app, 'POST', `/api/v1/webhooks/subscriptions/${sub.id}/rotate-secret`, { key })).status, 404);
      assert.equal((await call(ctx.app, 'POST', `/api/v1/webhooks/subscriptions/${sub.id}/test`, { key })).status, 404);
      assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${sub.id}/deliveries`, { key })).status, 404);
      assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries/${delivery.id}`, { key })).status, 404);
      assert.equal((await call(ctx.app, 'POST', `/api/v1/webhooks/deliveries/${delivery.id}/retry`, { key })).status, 404);
      assert.equal((await call(ctx.app, 'DELETE', `/api/v1/webhooks/subscriptions/${sub.id}`, { key })).status, 404);
      const list = await call(ctx.app, 'GET', '/api/v1/webhooks/deliveries', { key });
      assert.equal(list.body.deliveries.length, 0);
    }
    // The owner's production key does not see development subscriptions either.
    const mine = await merchant(ctx.app, { live: true });
    const devSub = await subscribe(ctx, mine.devKey, receiver.url('/iso2'), ['transaction.created']);
    assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${devSub.id}`, { key: mine.liveKey })).status, 404);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/webhooks/subscriptions', { key: mine.liveKey })).body.subscriptions.length, 0);
    await call(ctx.app, 'DELETE', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: m.devKey });
  });
});

describe('delivery', () => {
  test('a paid PIX delivers created, updated, completed and balance.updated, signed, to the subscription and the postback URL', async () => {
    const mm = await merchant(ctx.app);
    const sub = await subscribe(ctx, mm.devKey, receiver.url('/all'), ['transaction.created', 'transaction.updated', 'transaction.completed', 'balance.updated']);
    const tx = await pix(ctx, mm.devKey, { postbackUrl: receiver.url('/postback') });
    const paid = await call(ctx.app, 'POST', `/api/v1/transactions/${tx.id}/simulate`, { key: mm.devKey, body: { outcome: 'PAID' } });
    assert.equal(paid.status, 200, paid.raw);

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

    // Postbacks: the transaction's own events (not balance.updated), signed with the postback secret.
    const postbacks = await receiver.waitFor('/postback', 3);
    await sleep(200);
    assert.equal(receiver.at('/postback').length, 3);
    assert.deepEqual(postbacks.map((r) => r.body.type).sort(), ['transaction.completed', 'transaction.created', 'transaction.updated']);
    const secret = await call(ctx.app, 'GET', '/api/v1/webhooks/postback-secret', { key: mm.devKey });
    assert.equal(secret.status, 200);
    assert.match(secret.body.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    for (const r of postbacks) {
      assert.ok(validSignature(r, secret.body.secret), `postback signature of ${r.body.type}`);
      assert.ok(!validSignature(r, sub.secret));
      assert.deepEqual(r.body.subscription, { id: null, url: receiver.url('/postback') });
      assert.equal(r.body.data.id, tx.id);
    }
    // The same secret is returned until rotated.
    assert.equal((await call(ctx.app, 'GET', '/api/v1/webhooks/postback-secret', { key: mm.devKey })).body.secret, secret.body.secret);

    // The delivery log: one successful attempt each.
    const log = await until('log complete', async () => {
      const ds = await deliveriesOf(ctx, mm.devKey, sub.id);
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
    const pb = await call(ctx.app, 'GET', '/api/v1/webhooks/deliveries?kind=postback', { key: mm.devKey });
    assert.equal(pb.body.deliveries.length, 3);
    assert.ok(pb.body.deliveries.every((d: { subscriptionId: string | null }) => d.subscriptionId === null));
    const detail = await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries/${log[0].id}`, { key: mm.devKey });
    assert.equal(detail.status, 200);
    assert.equal(detail.body.delivery.payload.id, log[0].eventId);

    // Rotating the postback secret: later postbacks use the new one.
    const rotated = await call(ctx.app, 'POST', '/api/v1/webhooks/postback-secret/rotate', { key: mm.devKey });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.secret, secret.body.secret);
    const tx2 = await pix(ctx, mm.devKey, { postbackUrl: receiver.url('/postback') });
    const [next] = (await receiver.waitFor('/postback', 4)).slice(3);
    assert.equal(next.body.data.id, tx2.id);
    assert.ok(validSignature(next, rotated.body.secret));

    // One sale's deliveries (its page in the dashboard): its events' deliveries to the subscription
    // and to its postback URL, not balance.updated, not the other sale's.
    const ofTx = await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?transactionId=${tx.id}&limit=100`, { key: mm.devKey });
    assert.equal(ofTx.status, 200, ofTx.raw);
    const mine = ofTx.body.deliveries as { eventType: string; kind: string }[];
    assert.deepEqual(mine.map((d) => `${d.kind} ${d.eventType}`).sort(), ['postback transaction.completed', 'postback transaction.created', 'postback transaction.updated', 'subscription transaction.completed', 'subscription transaction.created', 'subscription transaction.updated']);
    const ofTx2 = await until('tx2 deliveries', async () => (await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?transactionId=${tx2.id}`, { key: mm.devKey })).body.deliveries as { eventId: string }[]);
    const tx2Events = new Set(ofTx2.map((d) => d.eventId));
    assert.ok(mine.every((d) => !tx2Events.has((d as unknown as { eventId: string }).eventId)));
    // Another merchant's sale, an unknown id: 404; not an id: 400.
    assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?transactionId=${tx.id}`, { key: m.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?transactionId=${uuidv7()}`, { key: mm.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/webhooks/deliveries?transactionId=nope', { key: mm.devKey })).status, 400);
    // The other filters say so too: another merchant's or an unknown subscription is 404, an unknown event type 400.
    const bySub = await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?subscriptionId=${sub.id}&eventType=transaction.created`, { key: mm.devKey });
    assert.equal(bySub.status, 200, bySub.raw);
    assert.ok(bySub.body.deliveries.length >= 1 && bySub.body.deliveries.every((d: { eventType: string }) => d.eventType === 'transaction.created'));
    assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?subscriptionId=${sub.id}`, { key: m.devKey })).status, 404);
    assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?subscriptionId=${uuidv7()}`, { key: mm.devKey })).status, 404);
    const badType = await call(ctx.app, 'GET', '/api/v1/webhooks/deliveries?eventType=transaction.creatd', { key: mm.devKey });
    assert.equal(badType.status, 400, badType.raw);
    assert.equal(badType.body.errors[0].field, 'querystring.eventType');
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

describe('retries and failures', () => {
  test('fails three times, then succeeds: attempts follow the cumulative schedule and the log records each', async () => {
    const mm = await merchant(ctx.app);
    receiver.on('/flaky', (_r, n) => (n <= 3 ? 500 : 200));
    const sub = await subscribe(ctx, mm.devKey, receiver.url('/flaky'), ['transaction.created']);
    await pix(ctx, mm.devKey);
    const got = await receiver.waitFor('/flaky', 4);
    assert.equal(new Set(got.map((r) => r.body.id)).size, 1, 'the same event each time');
    assert.deepEqual(got.map((r) => r.headers['x-webhook-attempt']), ['1', '2', '3', '4']);
    for (const r of got) assert.ok(validSignature(r, sub.secret));
    assert.equal(new Set(got.map((r) => r.body.timestamp)).size, 4, 'each attempt is re-stamped');
    // Retry i is due at first try + sum of the first i entries (cumulative), never earlier.
    for (let i = 1; i < 4; i++) {
      const offset = got[i].at - got[0].at;
      assert.ok(offset >= retryOffsetMs(SCHEDULE, i)! - 30, `retry ${i} came ${offset} ms after the first try`);
      assert.ok(offset < retryOffsetMs(SCHEDULE, i)! + 1500, `retry ${i} came ${offset} ms after the first try (late)`);
    }
    const [d] = await until('succeeded', async () => (await deliveriesOf(ctx, mm.devKey, sub.id)).filter((x) => x.status === 'SUCCEEDED'));
    assert.equal(d.attemptCount, 4);
    assert.deepEqual(d.attempts.map((a: any) => [a.attempt, a.statusCode]), [[1, 500], [2, 500], [3, 500], [4, 200]]);
    const first = Date.parse(d.attempts[0].createdAt);
    for (let i = 0; i < 3; i++) {
      const due = Date.parse(d.attempts[i].nextRetryAt) - first;
      assert.ok(Math.abs(due - retryOffsetMs(SCHEDULE, i + 1)!) < 100, `attempt ${i + 1} scheduled the next at +${due} ms`);
    }
    assert.equal(d.attempts[3].nextRetryAt, null);
    assert.equal(d.nextAttemptAt, null);
    const sub2 = await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: mm.devKey });
    assert.equal(sub2.body.subscription.failingSince, null, 'a success clears the failing streak');
  });

  test('5xx until the schedule is exhausted -> FAILED; a manual retry then delivers it', async () => {
    const mm = await merchant(ctx.app);
    let up = false;
    receiver.on('/down', () => (up ? 200 : 503));
    const sub = await subscribe(ctx, mm.devKey, receiver.url('/down'), ['transaction.created']);
    await pix(ctx, mm.devKey);
    const total = SCHEDULE.length + 1;
    await receiver.waitFor('/down', total, 15_000);
    const [d] = await until('failed', async () => (await deliveriesOf(ctx, mm.devKey, sub.id)).filter((x) => x.status === 'FAILED'));
    assert.equal(d.attemptCount, total);
    assert.equal(d.attempts.length, total);
    assert.ok(d.attempts.every((a: any) => a.statusCode === 503));
    assert.equal(d.attempts[total - 1].nextRetryAt, null);
    assert.equal(d.lastStatusCode, 503);
    await sleep(800);
    assert.equal(receiver.at('/down').length, total, 'nothing after the last retry');
    const failing = await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: mm.devKey });
    assert.ok(failing.body.subscription.failingSince, 'failing streak recorded');
    assert.equal(failing.body.subscription.status, 'ACTIVE', 'not disabled before WEBHOOK_DISABLE_AFTER_MS');

    up = true;
    const retry = await call(ctx.app, 'POST', `/api/v1/webhooks/deliveries/${d.id}/retry`, { key: mm.devKey });
    assert.equal(retry.status, 200, retry.raw);
    assert.equal(retry.body.success, true);
    assert.equal(retry.body.attempt.attempt, total + 1);
    assert.equal(retry.body.attempt.statusCode, 200);
    assert.equal(retry.body.delivery.status, 'SUCCEEDED');
    assert.equal(retry.body.delivery.attempts.length, total + 1);
    const last = receiver.at('/down').at(-1)!;
    assert.equal(last.body.id, d.eventId);
    assert.ok(validSignature(last, sub.secret));
    assert.equal((await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: mm.devKey })).body.subscription.failingSince, null);
  });

  test('a URL fixed with PATCH receives the pending retries of earlier events', async () => {
    const mm = await merchant(ctx.app);
    receiver.on('/moved-old', () => 503);
    const sub = await subscribe(ctx, mm.devKey, receiver.url('/moved-old'), ['transaction.created']);
    await pix(ctx, mm.devKey);
    const [first] = await receiver.waitFor('/moved-old', 1);
    const patched = await call(ctx.app, 'PATCH', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: mm.devKey, body: { url: receiver.url('/moved-new') } });
    assert.equal(patched.status, 200);
    const [moved] = await receiver.waitFor('/moved-new', 1);
    assert.equal(moved.body.id, first.body.id);
    assert.deepEqual(moved.body.subscription, { id: sub.id, url: receiver.url('/moved-new') });
    assert.ok(validSignature(moved, sub.secret));
    const [d] = await until('succeeded', async () => (await deliveriesOf(ctx, mm.devKey, sub.id)).filter((x) => x.status === 'SUCCEEDED'));
    assert.equal(d.url, receiver.url('/moved-new'));
  });

  test('410 Gone fails the delivery at once and disables the subscription', async () => {
    const mm = await merchant(ctx.app);
    receiver.on('/gone', () => 410);
    const sub = await subscribe(ctx, mm.devKey, receiver.url('/gone'), ['transaction.created']);
    await pix(ctx, mm.devKey);
    await receiver.waitFor('/gone', 1);
    const [d] = await until('failed', async () => (await deliveriesOf(ctx, mm.devKey, sub.id)).filter((x) => x.status === 'FAILED'));
    assert.equal(d.attemptCount, 1);
    assert.equal(d.attempts[0].statusCode, 410);
    const s = await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${sub.id}`, { key: mm.devKey });
    assert.equal(s.body.subscription.status, 'DISABLED');
    assert.match(s.body.subscription.disabledReason, /410/);
    await pix(ctx, mm.devKey);
    await sleep(SCHEDULE[0] + 400);
    assert.equal(receiver.at('/gone').length, 1, 'a disabled subscription receives nothing more');
  });

  test('a subscription failing for longer than WEBHOOK_DISABLE_AFTER_MS is disabled; a success resets the streak', async () => {
    const mm = await merchant(ctx.app);
    receiver.on('/dying', () => 500);
    const dying = await subscribe(ctx, mm.devKey, receiver.url('/dying'), ['transaction.created']);
    const healthy = await subscribe(ctx, mm.devKey, receiver.url('/healthy'), ['transaction.created']);
    const db = ctx.database.db;
    await db.updateTable('webhook_subscriptions').set({ failing_since: new Date(Date.now() - 6 * 86_400_000) }).where('id', '=', dying.id).execute();
    await db.updateTable('webhook_subscriptions').set({ failing_since: new Date(Date.now() - 86_400_000) }).where('id', '=', healthy.id).execute();
    await pix(ctx, mm.devKey);
    const s = await until('disabled', async () => {
      const r = await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${dying.id}`, { key: mm.devKey });
      return r.body.subscription.status === 'DISABLED' && r.body.subscription;
    });
    assert.equal(s.disabledReason, 'Every delivery failed for 5 days');
    await until('healthy reset', async () => {
      const r = await call(ctx.app, 'GET', `/api/v1/webhooks/subscriptions/${healthy.id}`, { key: mm.devKey });
      return r.body.subscription.failingSince === null;
    });
    // Pending retries of a disabled subscription are dropped, not sent.
    await sleep(SCHEDULE[0] + SCHEDULE[1] + 400);
    assert.equal(receiver.at('/dying').length, 1);
    const [d] = await deliveriesOf(ctx, mm.devKey, dying.id);
    assert.equal(d.status, 'FAILED');
    assert.equal(d.attempts.at(-1).error, 'not sent: subscription disabled');
    // Re-enabling clears the record.
    const again = await call(ctx.app, 'PATCH', `/api/v1/webhooks/subscriptions/${dying.id}`, { key: mm.devKey, body: { status: 'ACTIVE' } });
    assert.equal(again.body.subscription.failingSince, null);
    assert.equal(again.body.subscription.disabledReason, null);
  });

  test('redirects are not followed; a slow endpoint times out', async () => {
    const mm = await merchant(ctx.app);
    receiver.on('/redirect', () => ({ status: 302, headers: { location: receiver.url('/redirect-target') } }));
    receiver.on('/slow', () => ({ status: 200, delayMs: TIMEOUT_MS + 1000 }));
    const a = await subscribe(ctx, mm.devKey, receiver.url('/redirect'), ['transaction.created']);
    const b = await subscribe(ctx, mm.devKey, receiver.url('/slow'), ['transaction.created']);
    await pix(ctx, mm.devKey);
    const [ra] = await until('redirect attempt', async () => (await deliveriesOf(ctx, mm.devKey, a.id)).filter((d) => d.attempts.length >= 1));
    assert.equal(ra.attempts[0].statusCode, 302);
    assert.match(ra.attempts[0].error, /redirect not followed/);
    assert.equal(ra.status, 'PENDING');
    const [rb] = await until('timeout attempt', async () => (await deliveriesOf(ctx, mm.devKey, b.id)).filter((d) => d.attempts.length >= 1), 10_000);
    assert.equal(rb.attempts[0].statusCode, null);
    assert.equal(rb.attempts[0].error, `timed out after ${TIMEOUT_MS} ms`);
    assert.ok(rb.attempts[0].durationMs >= TIMEOUT_MS - 50 && rb.attempts[0].durationMs < TIMEOUT_MS + 500, `duration ${rb.attempts[0].durationMs}`);
    assert.equal(receiver.at('/redirect-target').length, 0);
    await call(ctx.app, 'DELETE', `/api/v1/webhooks/subscriptions/${a.id}`, { key: mm.devKey });
    await call(ctx.app, 'DELETE', `/api/v1/webhooks/subscriptions/${b.id}`, { key: mm.devKey });
  });

  test('a manual retry while a worker holds the delivery is a 409; an unknown id is a 404', async () => {
    const mm = await merchant(ctx.app);
    receiver.on('/held', () => ({ status: 200, delayMs: 600 }));
    const sub = await subscribe(ctx, mm.devKey, receiver.url('/held'), ['transaction.created']);
    await pix(ctx, mm.devKey);
    await receiver.waitFor('/held', 1);
    const [d] = await deliveriesOf(ctx, mm.devKey, sub.id);
    const busy = await call(ctx.app, 'POST', `/api/v1/webhooks/deliveries/${d.id}/retry`, { key: mm.devKey });
    assert.equal(busy.status, 409);
    assert.equal((await call(ctx.app, 'POST', `/api/v1/webhooks/deliveries/${uuidv7()}/retry`, { key: mm.devKey })).status, 404);
  });
});

describe('SSRF guard (WEBHOOK_ALLOW_PRIVATE_TARGETS unset)', () => {
  let g: Merchant;
  before(async () => {
    g = await merchant(guarded.app);
  });

  test('private, loopback, link-local, metadata and internal targets are refused at creation', async () => {
    const port = receiver.port;
    const refused = [
      `https://127.0.0.1:${port}/x`,
      'https://10.0.0.1/x',
      'https://172.16.5.4/x',
      'https://192.168.0.10/x',
      'https://169.254.169.254/latest/meta-data/',
      'https://100.64.0.1/x',
      'https://0.0.0.0/x',
      'https://224.0.0.1/x',
      `https://[::1]:${port}/x`,
      'https://[::ffff:127.0.0.1]/x',
      'https://[fd00::1]/x',
      'https://[fe80::1]/x',
      'https://2130706433/x', // 127.0.0.1 as one number
      `https://localhost:${port}/x`,
      'https://metadata.google.internal/computeMetadata/v1/',
      'http://example.com/x',
    ];
    for (const url of refused) {
      const res = await call(guarded.app, 'POST', '/api/v1/webhooks/subscriptions', { key: g.devKey, body: { url, events: ['transaction.created'] } });
      assert.equal(res.status, 400, `${url} -> ${res.status} ${res.raw}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.equal(res.body.errors[0].field, 'url', url);
    }
    // The same rule for a transaction's postbackUrl.
    for (const url of [`https://127.0.0.1:${port}/pb`, 'https://169.254.169.254/pb', `https://localhost:${port}/pb`]) {
      const res = await call(guarded.app, 'POST', '/api/v1/transactions', {
        key: g.devKey,
        body: { product: 'X', amountCents: 100, clientName: 'A', clientEmail: 'a@example.com', clientDocument: cpf(), paymentMethod: 'PIX', postbackUrl: url },
      });
      assert.equal(res.status, 400, `${url} -> ${res.raw}`);
      assert.equal(res.body.errors[0].field, 'postbackUrl');
    }
  });

  test('every delivery checks again: rows pointing inside are never sent', async () => {
    const port = receiver.port;
    const targets = [`https://localhost:${port}/ssrf-name`, `https://127.0.0.1:${port}/ssrf-ip`, `https://[::1]:${port}/ssrf-v6`, 'https://10.0.0.1/ssrf', 'https://169.254.169.254/ssrf'];
    const db = guarded.database.db;
    const now = new Date();
    const ids: string[] = [];
    for (const url of targets) {
      const id = uuidv7();
      ids.push(id);
      // As if the URL had passed at creation (DNS changed since): inserted directly.
      await db
        .insertInto('webhook_subscriptions')
        .values({ id, user_id: g.id, livemode: false, url, events: JSON.stringify(['transaction.created']), secret: 'whsec_test', status: 'ACTIVE', created_at: now, updated_at: now })
        .execute();
    }
    const tx = await call(guarded.app, 'POST', '/api/v1/transactions', {
      key: g.devKey,
      body: { product: 'X', amountCents: 100, clientName: 'A', clientEmail: 'a@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
    });
    assert.equal(tx.status, 201);
    // A postback row pointing at loopback, too.
    const rows = await until('attempts on every target', async () => {
      const r = await sql<{ url: string; error: string | null; status_code: number | null; attempt: number }>`
        SELECT d.url, a.error, a.status_code, a.attempt FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
        WHERE d.user_id = ${g.id} AND a.attempt >= 2 AND a.error IS DISTINCT FROM ${ATTEMPT_STARTED}`.execute(db); // (not an attempt under way)
      return new Set(r.rows.map((x) => x.url)).size === targets.length && r.rows;
    });
    for (const r of rows) {
      assert.equal(r.status_code, null, r.url);
      assert.match(String(r.error), /^not sent: URL /, `${r.url}: ${r.error}`);
    }
    const errors = Object.fromEntries(rows.map((r) => [r.url, r.error]));
    assert.match(errors[`https://127.0.0.1:${port}/ssrf-ip`]!, /loopback/);
    assert.match(errors['https://169.254.169.254/ssrf']!, /link-local/);
    assert.match(errors[`https://[::1]:${port}/ssrf-v6`]!, /loopback/);
    assert.match(errors['https://10.0.0.1/ssrf']!, /private/);
    assert.equal(receiver.requests.filter((r) => r.path.startsWith('/ssrf')).length, 0, 'the receiver got nothing');
    // The test endpoint obeys the guard as well.
    const t = await call(guarded.app, 'POST', `/api/v1/webhooks/subscriptions/${ids[1]}/test`, { key: g.devKey });
    assert.equal(t.body.success, false);
    assert.match(t.body.attempt.error, /^not sent: URL points to a loopback address/);
    assert.equal(receiver.requests.filter((r) => r.path.startsWith('/ssrf')).length, 0);
    for (const id of ids) await call(guarded.app, 'DELETE', `/api/v1/webhooks/subscriptions/${id}`, { key: g.devKey });
  });
});

describe('attempt log across a worker that dies mid-send', () => {
  let quiet: TestContext; // no dispatcher running: this test plays the workers itself

  before(async () => {
    quiet = await startApp({ env: env(true) });
  });
  after(async () => {
    await quiet?.close();
  });

  test('the attempt is logged when it starts: a cut-off attempt stays in the log, the next claim is the next number, no duplicates', async () => {
    const db = quiet.database.db;
    const wh = quiet.app.deps.webhooks;
    const mm = await merchant(quiet.app);
    const sub = await subscribe(quiet, mm.devKey, receiver.url('/cutoff'), ['transaction.created']);
    await pix(quiet, mm.devKey);
    const mine = (rows: ClaimedDelivery[]) => rows.filter((r) => r.subscription_id === sub.id);

    // Worker A claims attempt 1 and dies while sending (nothing after the claim runs).
    const [a] = mine(await claimDue(db, 100, 60_000));
    assert.ok(a, 'claimed');
    assert.equal(a.attempts, 1);
    // While A's lease holds, the attempt under way is not listed (it has no outcome yet).
    assert.deepEqual((await deliveriesOf(quiet, mm.devKey, sub.id))[0].attempts, []);

    // A's lease runs out: the cut-off attempt shows in the log, and worker B's claim is attempt 2.
    await db.updateTable('webhook_deliveries').set({ locked_until: new Date(Date.now() - 1000) }).where('id', '=', a.id).execute();
    const [cut] = (await deliveriesOf(quiet, mm.devKey, sub.id))[0].attempts;
    assert.equal(cut.attempt, 1);
    assert.equal(cut.statusCode, null);
    assert.match(cut.error, /cut off/);
    const [b] = mine(await claimDue(db, 100, 60_000));
    assert.equal(b.attempts, 2);
    const recorded = await attempt({ db, config: wh.config.webhooks, sender: wh.sender }, b, 'scheduled');
    assert.equal(recorded?.delivery.status, 'SUCCEEDED');

    // A was only slow, not dead, and reports late: its own row is completed; the delivery stays B's.
    const late = await recordOutcome(db, wh.config.webhooks, { claimed: a, url: a.url, result: { ok: false, statusCode: 503, durationMs: 1234, error: null }, mode: 'scheduled', startedAt: new Date() });
    assert.equal(late, null, 'fenced: the delivery state belongs to the newer claim');

    const [d] = await deliveriesOf(quiet, mm.devKey, sub.id);
    assert.equal(d.status, 'SUCCEEDED');
    assert.equal(d.attemptCount, 2);
    assert.deepEqual(
      d.attempts.map((x: any) => [x.attempt, x.statusCode]),
      [
        [1, 503],
        [2, 200],
      ],
    );
    const rows = await db.selectFrom('webhook_attempts').select('attempt').where('delivery_id', '=', a.id).execute();
    assert.deepEqual(rows.map((r) => r.attempt).sort(), [1, 2], 'one row per attempt number');
  });
});
