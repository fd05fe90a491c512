// Transactions through the API's contract: isolation between merchants, and production keys with and without a payment provider.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { appConfig, appOver, cpf, merchant, type Merchant, type TestContext } from './helpers.ts';
import { assertMessageOnly } from './kit/assert.ts';
import { balance, body, card, cardFee, count, create, ctx, eventsFor, get, list, pay, post, refund, simulate, useTransactionsApp } from './transactions-kit.ts';

useTransactionsApp();

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
