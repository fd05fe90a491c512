// Subscription plans: every rule of the plan resource, both path families, permissions, tenancy,
// events, and DELETE deactivating a plan with subscribers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, cpf, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';

describe('subscription plans', () => {
  let ctx: TestContext;
  let m: Merchant;
  before(async () => {
    ctx = await startApp();
    m = await merchant(ctx.app);
  });
  after(() => ctx.close());

  const plan = (body: Record<string, unknown>, key = m.devKey, prefix = '/api/subscriptions') => call(ctx.app, 'POST', `${prefix}/plans`, { key, body });

  test('creation with defaults; YEARLY is ANNUAL, CREDIT_CARD is CARD; both prefixes serve the same plans', async () => {
    const res = await plan({ name: 'Ouro', amountCents: 4990, interval: 'YEARLY', paymentMethods: ['CREDIT_CARD', 'PIX'] });
    assert.equal(res.status, 201, res.raw);
    const p = res.body.plan;
    assert.equal(p.interval, 'ANNUAL');
    assert.deepEqual(p.paymentMethods, ['CARD', 'PIX']);
    assert.equal(p.intervalCount, 1);
    assert.equal(p.trialDays, 0);
    assert.equal(p.maxSubscribers, null);
    assert.equal(p.status, 'ACTIVE');
    assert.deepEqual(p.dunning, { retryDays: [1, 3, 5, 7], finalAction: 'CANCEL', pixDaysBefore: 3, boletoDaysBefore: 5, pixAutomaticoDaysBefore: 3 });
    assert.match(p.publicUrl, new RegExp(`/subscribe/${p.id}$`));
    const v1 = await call(ctx.app, 'GET', `/api/v1/subscriptions/plans/${p.id}`, { key: m.devKey });
    assert.equal(v1.status, 200);
    assert.deepEqual(v1.body.plan, p);
    const list = await call(ctx.app, 'GET', '/api/subscriptions/plans', { key: m.devKey });
    assert.ok(list.body.plans.some((x: { id: string }) => x.id === p.id));
    assert.equal(typeof list.body.pagination.hasMore, 'boolean');
    const token = await call(ctx.app, 'GET', `/api/subscriptions/plans/${p.id}`, { token: m.token });
    assert.equal(token.status, 200, 'a dashboard token works too');
  });

  test('bad input is a 400 in the spec shape and creates nothing', async () => {
    const before = (await call(ctx.app, 'GET', '/api/subscriptions/plans?limit=100', { key: m.devKey })).body.plans.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x', amountCents: 499, interval: 'MONTHLY' }, 'amountCents'],
      [{ name: 'x', amountCents: 500, interval: 'HOURLY' }, 'interval'],
      [{ name: 'x', amountCents: 500, interval: 'MONTHLY', intervalCount: 0 }, 'intervalCount'],
      [{ name: 'x', amountCents: 500, interval: 'MONTHLY', trialDays: -1 }, 'trialDays'],
      [{ name: 'x', amountCents: 500, interval: 'MONTHLY', maxSubscribers: 0 }, 'maxSubscribers'],
      [{ name: 'x', amountCents: 500, interval: 'MONTHLY', paymentMethods: [] }, 'paymentMethods'],
      [{ name: 'x', amountCents: 500, interval: 'MONTHLY', dunning: { retryDays: [3, 1] } }, 'dunning.retryDays'],
      [{ name: 'x', amountCents: 500, interval: 'MONTHLY', dunning: { finalAction: 'EXPLODE' } }, 'dunning'],
      [{ name: '<b></b>', amountCents: 500, interval: 'MONTHLY' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await plan(body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.raw}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(res.body.timestamp && res.body.path && Array.isArray(res.body.errors));
      assert.ok(res.body.errors.some((e: { field: string }) => e.field.startsWith(field)), `${field} named: ${res.raw}`);
    }
    assert.equal((await call(ctx.app, 'GET', '/api/subscriptions/plans?limit=100', { key: m.devKey })).body.plans.length, before);
    assert.equal((await plan({ name: 'ok', amountCents: 500, interval: 'DAILY', intervalCount: 3, trialDays: 7, maxSubscribers: 1, dunning: { retryDays: [], finalAction: 'PAUSE' } })).status, 201);
  });

  test('PATCH answers {message, plan}; events plan.created and plan.updated are recorded', async () => {
    const p = (await plan({ name: 'Prata', amountCents: 1990, interval: 'MONTHLY' })).body.plan;
    const res = await call(ctx.app, 'PATCH', `/api/subscriptions/plans/${p.id}`, { key: m.devKey, body: { amountCents: 2490, description: 'Novo preço' } });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.message, 'Plan updated');
    assert.equal(res.body.plan.amountCents, 2490);
    assert.equal(res.body.plan.description, 'Novo preço');
    assert.equal((await call(ctx.app, 'PATCH', `/api/v1/subscriptions/plans/${p.id}`, { key: m.devKey, body: {} })).status, 400, 'an empty update');
    const events = await ctx.app.deps.db.selectFrom('events').select(['type', 'data']).where('user_id', '=', m.id).where('type', 'in', ['plan.created', 'plan.updated']).execute();
    assert.ok(events.some((e) => e.type === 'plan.created' && (e.data as { id: string }).id === p.id));
    assert.ok(events.some((e) => e.type === 'plan.updated' && (e.data as { amountCents: number }).amountCents === 2490));
  });

  test('permissions: subscriptions:read lists but cannot write (403); no credentials 401', async () => {
    const reader = await merchant(ctx.app, { permissions: ['subscriptions:read'] });
    assert.equal((await call(ctx.app, 'GET', '/api/subscriptions/plans', { key: reader.devKey })).status, 200);
    assert.equal((await plan({ name: 'x', amountCents: 500, interval: 'MONTHLY' }, reader.devKey)).status, 403);
    const other = await merchant(ctx.app, { permissions: ['products:read'] });
    assert.equal((await call(ctx.app, 'GET', '/api/subscriptions/plans', { key: other.devKey })).status, 403);
    assert.equal((await call(ctx.app, 'GET', '/api/subscriptions/plans')).status, 401);
  });

  test("another merchant's or environment's plan is a 404", async () => {
    const p = (await plan({ name: 'Meu', amountCents: 900, interval: 'WEEKLY' })).body.plan;
    const other = await merchant(ctx.app);
    for (const [method, body] of [['GET'], ['PATCH', { name: 'roubado' }], ['DELETE']] as const) {
      assert.equal((await call(ctx.app, method, `/api/subscriptions/plans/${p.id}`, { key: other.devKey, body })).status, 404, method);
    }
    assert.equal((await call(ctx.app, 'GET', `/api/subscriptions/plans/${p.id}`, { token: m.token, headers: { 'x-environment': 'production' } })).status, 404);
  });

  test('DELETE removes a plan nobody subscribed to, and deactivates one with subscribers (they go on)', async () => {
    const empty = (await plan({ name: 'Vazio', amountCents: 900, interval: 'MONTHLY' })).body.plan;
    const del = await call(ctx.app, 'DELETE', `/api/subscriptions/plans/${empty.id}`, { key: m.devKey });
    assert.equal(del.status, 200);
    assert.equal((await call(ctx.app, 'GET', `/api/subscriptions/plans/${empty.id}`, { key: m.devKey })).status, 404);

    const used = (await plan({ name: 'Usado', amountCents: 900, interval: 'MONTHLY', paymentMethods: ['PIX'] })).body.plan;
    const sub = await call(ctx.app, 'POST', '/api/v1/subscriptions', {
      key: m.devKey,
      body: { planId: used.id, paymentMethod: 'PIX', client: { name: 'Ana', email: 'ana@example.com', document: cpf() } },
    });
    assert.equal(sub.status, 201, sub.raw);
    const res = await call(ctx.app, 'DELETE', `/api/v1/subscriptions/plans/${used.id}`, { key: m.devKey });
    assert.equal(res.status, 200);
    assert.match(res.body.message, /deactivated/);
    const after = await call(ctx.app, 'GET', `/api/subscriptions/plans/${used.id}`, { key: m.devKey });
    assert.equal(after.body.plan.status, 'INACTIVE');
    assert.equal(after.body.plan.subscriberCount, 1);
    const again = await call(ctx.app, 'POST', '/api/v1/subscriptions', {
      key: m.devKey,
      body: { planId: used.id, paymentMethod: 'PIX', client: { name: 'Bia', email: 'bia@example.com', document: cpf() } },
    });
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 'PLAN_UNAVAILABLE');
    assert.equal((await call(ctx.app, 'GET', `/api/v1/subscriptions/${sub.body.subscription.id}`, { key: m.devKey })).body.subscription.status, 'INCOMPLETE', 'the existing one goes on');
  });

  test('maxSubscribers cannot go below the current subscribers; the cadence cannot change under subscribers', async () => {
    const p = (await plan({ name: 'Limite', amountCents: 900, interval: 'MONTHLY', paymentMethods: ['PIX'] })).body.plan;
    for (const name of ['A', 'B']) {
      const r = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: p.id, paymentMethod: 'PIX', client: { name, email: `${name}@example.com`, document: cpf() } } });
      assert.equal(r.status, 201, r.raw);
    }
    const res = await call(ctx.app, 'PATCH', `/api/subscriptions/plans/${p.id}`, { key: m.devKey, body: { maxSubscribers: 1 } });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'maxSubscribers');
    const cadence = await call(ctx.app, 'PATCH', `/api/subscriptions/plans/${p.id}`, { key: m.devKey, body: { interval: 'WEEKLY' } });
    assert.equal(cadence.status, 400, 'the cadence is fixed once anyone subscribed');
    assert.equal(cadence.body.errors[0].field, 'interval');
  });
});
