// Subscriptions under concurrency (meant for PostgreSQL; runs on PGlite too, serialised there):
// maxSubscribers counted race-safely 50-way, a renewal racing a cancel, two sweeps racing over the
// same due subscriptions. The ledger is checked after each.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { advanceDue } from '../src/modules/subscriptions/sweep.ts';
import { call, cpf, merchant, secondInstance, startApp, type Merchant, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import type { App } from '../src/deps.ts';

const GOOD = { number: '4242424242424242', holderName: 'Ana Souza', expMonth: 12, expYear: 2035, cvv: '123' };

describe('subscriptions under concurrency', () => {
  let ctx: TestContext;
  let second: App;
  let m: Merchant;
  before(async () => {
    ctx = await startApp();
    // A second instance on the same database: requests and sweeps race across processes' pools.
    second = await secondInstance(ctx);
    m = await merchant(ctx.app);
  });
  after(async () => {
    await second.close();
    await ctx.close();
  });

  const plan = async (body: Record<string, unknown>) => (await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'Vagas', amountCents: 1000, interval: 'MONTHLY', ...body } })).body.plan;

  test('maxSubscribers: 50 checkouts at once for 10 seats -> exactly 10 subscriptions, the rest PLAN_FULL', async () => {
    const p = await plan({ maxSubscribers: 10, paymentMethods: ['CARD'] });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(i % 2 ? second : ctx.app, 'POST', '/api/subscriptions/checkout', {
          body: { planId: p.id, clientName: `Cliente ${i}`, clientEmail: `c${i}@example.com`, clientDocument: cpf(), paymentMethod: 'CARD', card: GOOD },
        }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    const full = results.filter((r) => r.status === 400 && r.body.code === 'PLAN_FULL');
    assert.equal(created.length, 10, JSON.stringify(results.filter((r) => r.status !== 201 && r.body?.code !== 'PLAN_FULL').map((r) => `${r.status} ${r.raw}`)));
    assert.equal(full.length, 40, JSON.stringify(results.filter((r) => r.status !== 201 && r.body?.code !== 'PLAN_FULL').map((r) => r.raw).slice(0, 3)));
    const stored = await ctx.app.deps.db.selectFrom('subscriptions').select('id').where('plan_id', '=', p.id).execute();
    assert.equal(stored.length, 10);
    const row = await ctx.app.deps.db.selectFrom('subscription_plans').select('subscriber_count').where('id', '=', p.id).executeTakeFirstOrThrow();
    assert.equal(row.subscriber_count, 10);
    const paid = await ctx.app.deps.db.selectFrom('transactions').select('id').where('subscription_id', 'in', stored.map((s) => s.id)).where('status', '=', 'PAID').execute();
    assert.equal(paid.length, 10, 'one charge per subscription, none for the refused');
    await assertLedgerBalanced(ctx.app.deps.db);
  });

  test('a coupon of usageLimit 3: 20 trial checkouts at once with it -> exactly 3 get it, the rest INVALID_COUPON', async () => {
    const p = await plan({ trialDays: 7, paymentMethods: ['CARD'] });
    const code = `TRES${Date.now()}`;
    const made = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code, discountType: 'PERCENTAGE', discountValue: 20, usageLimit: 3 } });
    assert.equal(made.status, 201, made.raw);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? second : ctx.app, 'POST', '/api/v1/subscriptions', {
          key: m.devKey,
          body: { planId: p.id, paymentMethod: 'CARD', card: GOOD, couponCode: code, client: { name: `Cupom ${i}`, email: `cupom${i}@example.com`, document: cpf() } },
        }),
      ),
    );
    const unexpected = results.filter((r) => r.status !== 201 && r.body?.code !== 'INVALID_COUPON').map((r) => `${r.status} ${r.raw}`);
    assert.deepEqual(unexpected, []);
    assert.equal(results.filter((r) => r.status === 201).length, 3);
    const coupon = await call(ctx.app, 'GET', `/api/v1/coupons/${made.body.coupon.id}`, { key: m.devKey });
    assert.equal(coupon.body.coupon.usedCount, 3);
    const held = await ctx.app.deps.db.selectFrom('coupon_redemptions').select('subscription_id').where('coupon_id', '=', made.body.coupon.id).where('status', '=', 'RESERVED').execute();
    assert.equal(held.length, 3);
  });

  test('a renewal racing a cancel: never a charge after the cancel committed, never two charges', async (t) => {
    const p = await plan({ trialDays: 1, paymentMethods: ['CARD'] });
    const subs = [];
    for (let i = 0; i < 12; i++) {
      const r = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: p.id, paymentMethod: 'CARD', card: GOOD, client: { name: `R${i}`, email: `r${i}@example.com`, document: cpf() } } });
      assert.equal(r.status, 201, r.raw);
      subs.push(r.body.subscription.id as string);
    }
    const due = new Date(Date.now() + 86_400_000 + 60_000);
    const cancelledAt = new Map<string, number>();
    await Promise.all([
      advanceDue(ctx.app.deps.subscriptions, due, 50),
      advanceDue(second.deps.subscriptions, due, 50),
      // Staggered, so that some cancels land before their renewal and some after.
      ...subs.map(async (id, i) => {
        await new Promise((r) => setTimeout(r, i * 60));
        const res = await call(i % 2 ? second : ctx.app, 'PATCH', `/api/v1/subscriptions/${id}/cancel`, { key: m.devKey });
        assert.equal(res.status, 200, res.raw);
        cancelledAt.set(id, Date.now());
      }),
    ]);
    let renewed = 0;
    for (const id of subs) {
      const s = await ctx.app.deps.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(s.status, 'CANCELLED');
      const cycles = await ctx.app.deps.db.selectFrom('subscription_cycles').selectAll().where('subscription_id', '=', id).execute();
      const txs = await ctx.app.deps.db.selectFrom('transactions').selectAll().where('subscription_id', '=', id).execute();
      assert.ok(cycles.length <= 1, 'one renewal at most');
      assert.ok(txs.length <= 1, 'one charge at most');
      // A renewal step that took the row before the cancel made the cycle; one after it found the
      // subscription CANCELLED and made none. A charge under way when the cancel committed
      // finishes (its cycle paid); one not yet started when the cancel withdrew its cycle is not made.
      if (txs.length) {
        renewed++;
        assert.equal(txs[0].status, 'PAID');
        assert.equal(cycles[0].status, 'PAID');
      } else if (cycles.length) assert.equal(cycles[0].status, 'VOID');
    }
    t.diagnostic(`renewed before the cancel: ${renewed} of ${subs.length}`);
    // Nothing is left scheduled for any of them.
    const scheduled = await ctx.app.deps.db.selectFrom('subscriptions').select('id').where('id', 'in', subs).where('next_action_at', 'is not', null).execute();
    assert.deepEqual(scheduled, []);
    await assertLedgerBalanced(ctx.app.deps.db);
  });

  test('two workers sweeping the same 30 due renewals charge each exactly once', async () => {
    const p = await plan({ trialDays: 1, paymentMethods: ['CARD'] });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: p.id, paymentMethod: 'CARD', card: GOOD, client: { name: `W${i}`, email: `w${i}@example.com`, document: cpf() } } });
      ids.push(r.body.subscription.id);
    }
    const due = new Date(Date.now() + 86_400_000 + 60_000);
    await Promise.all([advanceDue(ctx.app.deps.subscriptions, due, 10), advanceDue(second.deps.subscriptions, due, 10), advanceDue(ctx.app.deps.subscriptions, due, 10), advanceDue(second.deps.subscriptions, due, 10)]);
    // Whatever the first rounds left (leases held by the other worker) is picked up when they end.
    await advanceDue(ctx.app.deps.subscriptions, new Date(due.getTime() + 10 * 60_000), 50);
    const txs = await ctx.app.deps.db.selectFrom('transactions').select(['subscription_id', 'status']).where('subscription_id', 'in', ids).execute();
    assert.equal(txs.length, 30);
    assert.equal(new Set(txs.map((t) => t.subscription_id)).size, 30);
    assert.ok(txs.every((t) => t.status === 'PAID'));
    await assertLedgerBalanced(ctx.app.deps.db);
  });
});
