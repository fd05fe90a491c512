// Crash safety of webhook delivery on real PostgreSQL: two `worker` processes deliver ~50 events to
// a slow HTTPS receiver; one is killed with SIGKILL in the middle of its deliveries and a fresh one
// is started. Every event must reach the receiver (at least once), and no delivery may ever be in
// flight from two workers at the same time (the receiver watches X-Webhook-Delivery); the attempt
// log has every attempt once, the ones the kill cut off included.
// PostgreSQL only (TEST_DATABASE_URL): PGlite is one in-process connection, no second process.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ATTEMPT_STARTED } from '../../src/modules/webhooks/deliveries.ts';
import { call, cpf, merchant, onPostgres, startApp, type TestContext } from '../helpers.ts';
import { makeCertificate } from '../webhook-receiver.ts';
import { cleanups, startWorker, until } from './workers-kit.ts';

const EVENTS = 50;
const REPLY_DELAY_MS = 300;

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_LOCK_MS: '3000',
  WEBHOOK_POLL_MS: '200',
  WEBHOOK_RETRY_SCHEDULE_MS: '200,200,200,200,200',
  WEBHOOK_CONCURRENCY: '4',
};

/** The receiver: answers 200 after REPLY_DELAY_MS and watches for overlapping attempts of one delivery. */
async function slowReceiver() {
  const cert = makeCertificate();
  const seen = { received: new Map<string, number>(), active: new Set<string>(), overlaps: [] as string[], requests: 0 };
  const server = https.createServer({ key: readFileSync(cert.keyFile), cert: readFileSync(cert.certFile) }, (req, res) => {
    const delivery = String(req.headers['x-webhook-delivery']);
    const event = String(req.headers['x-webhook-id']);
    if (seen.active.has(delivery)) seen.overlaps.push(delivery);
    seen.active.add(delivery);
    seen.requests++;
    res.on('close', () => seen.active.delete(delivery));
    req.resume();
    setTimeout(() => {
      seen.received.set(event, (seen.received.get(event) ?? 0) + 1);
      if (!res.destroyed) res.writeHead(200).end('ok');
    }, REPLY_DELAY_MS);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return { seen, certFile: cert.certFile, port: (server.address() as AddressInfo).port };
}

/** ~50 events, each enqueued in its transaction's commit; their ids. */
async function makeEvents(ctx: TestContext, key: string, userId: string): Promise<string[]> {
  for (let i = 0; i < EVENTS; i++) {
    const res = await call(ctx.app, 'POST', '/api/v1/transactions', {
      key,
      body: { product: `Pedido ${i}`, amountCents: 1000 + i, clientName: 'Cliente', clientEmail: 'c@example.com', clientDocument: cpf(), paymentMethod: 'PIX' },
    });
    assert.equal(res.status, 201, res.raw);
  }
  const rows = await ctx.database.db.selectFrom('webhook_deliveries').select(['event_id']).where('user_id', '=', userId).execute();
  assert.equal(rows.length, EVENTS);
  return rows.map((r) => r.event_id);
}

/**
 * The attempt log: one row per attempt number 1..attempts for every delivery (no gap, no duplicate),
 * and the attempts the kill cut off are there, saying so. Returns the highest attempt count.
 */
async function checkAttemptLog(ctx: TestContext, userId: string): Promise<number> {
  const stats = await ctx.database.db
    .selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('attempts').as('maxAttempts')])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  assert.equal(Number(stats.n), EVENTS);
  // The killed worker held deliveries: their lease ran out and another worker claimed them again.
  assert.ok(Number(stats.maxAttempts) >= 2, 'some delivery was re-claimed after the kill');
  const log = await ctx.database.db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select(['d.id', 'd.attempts', 'a.attempt', 'a.error', 'a.status_code'])
    .where('d.user_id', '=', userId)
    .orderBy('d.id')
    .orderBy('a.attempt')
    .execute();
  const byDelivery = new Map<string, { attempts: number; numbers: number[] }>();
  for (const r of log) {
    const e = byDelivery.get(r.id) ?? { attempts: r.attempts, numbers: [] };
    e.numbers.push(r.attempt);
    byDelivery.set(r.id, e);
  }
  assert.equal(byDelivery.size, EVENTS, 'every delivery has its attempts logged');
  for (const [id, e] of byDelivery) assert.deepEqual(e.numbers, Array.from({ length: e.attempts }, (_, i) => i + 1), `attempt log of ${id}`);
  const cutOff = log.filter((r) => r.error === ATTEMPT_STARTED);
  assert.ok(cutOff.length >= 1, 'the attempts in flight in the killed worker are logged as cut off');
  assert.ok(cutOff.every((r) => r.status_code === null && r.attempt < r.attempts), 'a cut-off attempt was followed by another');
  return Number(stats.maxAttempts);
}

test('a worker killed mid-delivery loses nothing, and no delivery is attempted by two workers at once', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)' }, async () => {
  const receiver = await slowReceiver();
  const env = { ...WEBHOOK_ENV, WEBHOOK_CA_FILE: receiver.certFile };
  const ctx: TestContext = await startApp({ env: { ...env, LOG_LEVEL: 'warn' } });
  cleanups.push(() => ctx.close());
  const m = await merchant(ctx.app);
  const sub = await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body: { url: `https://localhost:${receiver.port}/hook`, events: ['transaction.created'] } });
  assert.equal(sub.status, 201, sub.raw);

  const a = startWorker(ctx, env, 'worker A');
  const b = startWorker(ctx, env, 'worker B');
  await Promise.all([a.started, b.started]);
  const eventIds = await makeEvents(ctx, m.devKey, m.id);

  // Kill A while both workers are busy (each holds up to 4 deliveries for 300 ms).
  await until('deliveries under way', () => receiver.seen.requests >= 10, 20_000);
  a.child.kill('SIGKILL');
  await new Promise((r) => a.child.once('exit', r));
  const c = startWorker(ctx, env, 'worker C');
  await c.started;

  const { received, overlaps } = receiver.seen;
  const undelivered = () => ctx.database.db.selectFrom('webhook_deliveries').select('id').where('user_id', '=', m.id).where('status', '!=', 'SUCCEEDED').execute();
  await until('every event delivered and recorded', async () => eventIds.every((id) => received.has(id)) && (await undelivered()).length === 0, 60_000);
  assert.deepEqual(eventIds.filter((id) => !received.has(id)), [], 'every event reached the receiver');
  assert.deepEqual(overlaps, [], 'no delivery was in flight from two workers at once');
  const maxAttempts = await checkAttemptLog(ctx, m.id);
  const duplicates = [...received.values()].filter((n) => n > 1).length;
  console.log(`# ${EVENTS} events, ${receiver.seen.requests} requests, ${duplicates} delivered more than once (at least once), max attempts ${maxAttempts}`);

  for (const w of [b, c]) {
    w.child.kill('SIGTERM');
    await new Promise((r) => (w.child.exitCode !== null ? r(null) : w.child.once('exit', r)));
  }
});
