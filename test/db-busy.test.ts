// A PostgreSQL server out of connections (every process's pools together beyond max_connections:
// "sorry, too many clients already") is waited for a moment, then answered 503 with Retry-After,
// never 500 (this made the 50-way subscription checkout race answer 500s on a shared server).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { databaseBusy, retryWhenBusy } from '../src/db/index.ts';
import { call, merchant } from './helpers.ts';
import { useApp } from './kit/app.ts';

const busy = () => Object.assign(new Error('sorry, too many clients already'), { code: '53300', severity: 'FATAL' });

describe('a database out of connections', () => {
  test('a connection refused as busy is asked for again after a pause; other failures are not', async () => {
    let calls = 0;
    const flaky = retryWhenBusy(async () => (++calls <= 2 ? Promise.reject(busy()) : 'client'), [1, 1, 1]);
    assert.equal(await flaky(), 'client');
    assert.equal(calls, 3);

    calls = 0;
    const full = retryWhenBusy(async () => (++calls, Promise.reject(busy())), [1, 1, 1]);
    await assert.rejects(full(), (err) => databaseBusy(err));
    assert.equal(calls, 4, 'given up after the pauses');

    calls = 0;
    const down = retryWhenBusy(async () => (++calls, Promise.reject(Object.assign(new Error('password authentication failed'), { code: '28P01' }))), [1, 1, 1]);
    await assert.rejects(down(), /password/);
    assert.equal(calls, 1);
    assert.ok(databaseBusy({ code: '57P03' }));
    assert.ok(!databaseBusy(new Error('x')));
  });

  describe('through the API', () => {
    const ctx = useApp();

    test('a request the database has no connection for answers 503 with Retry-After, not 500', async () => {
      const m = await merchant(ctx.app);
      const plan = (await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY' } })).body.plan;
      const db = ctx.app.deps.db;
      const selectFrom = db.selectFrom;
      db.selectFrom = (() => {
        throw busy();
      }) as never;
      try {
        const res = await call(ctx.app, 'GET', `/api/subscriptions/public/${plan.id}`);
        assert.equal(res.status, 503, res.raw);
        assert.equal(res.headers['retry-after'], '1');
        assert.match(res.body.message, /busy/);
      } finally {
        db.selectFrom = selectFrom;
      }
      assert.equal((await call(ctx.app, 'GET', `/api/subscriptions/public/${plan.id}`)).status, 200);
    });
  });
});
