// Webhooks: retries with a compressed schedule, 410 and failure disabling, redirects and timeouts,
// manual redelivery, and the attempt log across a worker that dies mid-send.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { uuidv7 } from '../src/db/ids.ts';
import { attempt, claimDue, recordOutcome, retryOffsetMs, type ClaimedDelivery } from '../src/modules/webhooks/deliveries.ts';
import { call, merchant } from './helpers.ts';
import { validSignature } from './webhook-receiver.ts';
import { deliveriesOf, pix, SCHEDULE, sleep, subscribe, TIMEOUT_MS, until, useReceiver, useWebhookApp } from './webhooks-kit.ts';

const receiver = useReceiver();
const ctx = useWebhookApp(receiver, { allowPrivate: true }); // the receiver on localhost is reachable

describe('retries and failures', () => {
  // A process's first deliveries are slower (TLS to the receiver, the dispatcher's first claims), and
  // the schedule below is measured from the first try's arrival: one delivery first warms them up, as
  // the tests before these did when one file held them all.
  before(async () => {
    const mm = await merchant(ctx.app);
    const sub = await subscribe(ctx, mm.devKey, receiver.url('/warm-up'), ['transaction.created']);
    await pix(ctx, mm.devKey);
    await receiver.waitFor('/warm-up', 1);
    await until('the warm-up delivered', async () => (await deliveriesOf(ctx, mm.devKey, sub.id)).filter((d) => d.status === 'SUCCEEDED'));
  });

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
    const [d] = await until('succeeded', async () => (await deliveriesOf(ctx, mm.devKey, sub.id)).filter((x) => x.status === 'SUCCEEDED'));
    // Each retry arrives once due (when the attempt before it said), never earlier, and soon after.
    // Measured from the recorded due time, not the first try's arrival: a first try slow to arrive
    // (a loaded machine) would make a punctual retry look early.
    for (let i = 1; i < 4; i++) {
      const due = Date.parse(d.attempts[i - 1].nextRetryAt);
      assert.ok(got[i].at >= due - 5, `retry ${i} came ${due - got[i].at} ms before it was due`);
      assert.ok(got[i].at < due + 1500, `retry ${i} came ${got[i].at - due} ms after it was due (late)`);
    }
    assert.equal(d.attemptCount, 4);
    assert.deepEqual(d.attempts.map((a: any) => [a.attempt, a.statusCode]), [[1, 500], [2, 500], [3, 500], [4, 200]]);
    // The due times follow the cumulative schedule from the first try's claim (first + the sum of the
    // first i entries), or are "at once" when an attempt ended past that: never earlier, and not
    // much later (the 500 ms allow for a loaded machine between an attempt's end and its record).
    const row = await ctx.database.db.selectFrom('webhook_deliveries').select('first_attempt_at').where('id', '=', d.id).executeTakeFirstOrThrow();
    const first = row.first_attempt_at!.getTime();
    for (let i = 0; i < 3; i++) {
      const attempt = d.attempts[i];
      const due = Date.parse(attempt.nextRetryAt) - first;
      const ended = Date.parse(attempt.createdAt) + attempt.durationMs - first;
      const scheduled = retryOffsetMs(SCHEDULE, i + 1)!;
      assert.ok(due >= scheduled - 1, `attempt ${i + 1} scheduled the next at +${due} ms, before +${scheduled}`);
      assert.ok(due <= Math.max(scheduled, ended) + 500, `attempt ${i + 1} (ended at +${ended} ms) scheduled the next at +${due} ms, not +${scheduled}`);
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

describe('attempt log across a worker that dies mid-send', () => {
  const quiet = useWebhookApp(receiver, { allowPrivate: true, dispatcher: false }); // this test plays the workers itself

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
