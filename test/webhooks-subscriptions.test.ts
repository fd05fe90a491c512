// Webhooks: configuration, and subscriptions (create, read, update, rotate, delete; validation,
// permissions, isolation).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { decide, retryOffsetMs } from '../src/modules/webhooks/deliveries.ts';
import { call, merchant } from './helpers.ts';
import { useMerchant } from './kit/app.ts';
import { deliveriesOf, pix, subscribe, until, useReceiver, useWebhookApp } from './webhooks-kit.ts';

const receiver = useReceiver();
const ctx = useWebhookApp(receiver, { allowPrivate: true }); // the receiver on localhost is reachable
const m = useMerchant(ctx);

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
