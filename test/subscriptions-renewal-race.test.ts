// One renewal, two instances (docs/subscriptions.md, "A charge interrupted by a crash"): a card
// renewal reaches the provider once and no request fails when two instances run it at once
// (simulated clock jumps on PostgreSQL), when a worker still holds an attempt another took over,
// and when the worker that took an attempt over records its transaction first.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CHARGE_LEASE_MS } from '../src/modules/subscriptions/agenda.ts';
import { issueCharge } from '../src/modules/subscriptions/issuing.ts';
import { advanceDue } from '../src/modules/subscriptions/sweep.ts';
import type { App } from '../src/deps.ts';
import type { Subscription, Transaction } from '../src/db/types.ts';
import type { Connector } from '../src/payments/connector.ts';
import { call, cpf, onPostgres, type Merchant, type TestContext } from './helpers.ts';
import { undo, useTwoInstances } from './two-instances-kit.ts';

const GOOD = { number: '4242424242424242', holderName: 'Ana Souza', expMonth: 12, expYear: 2035, cvv: '123' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The references a provider was asked to charge by token (one entry per call). Undone after each test. */
function cardCalls(provider: Connector): string[] {
  const calls: string[] = [];
  const real = provider.chargeToken!;
  provider.chargeToken = (req) => (calls.push(req.reference), real.call(provider, req));
  undo.push(() => (provider.chargeToken = real));
  return calls;
}

/** Makes an instance's transaction creations wait (`held` once one is waiting) until `release`; `restore` lets later ones through. */
function holdCreations(app: App) {
  const creations = app.deps.transactions.creations;
  const insert = creations.insert;
  let open: () => void = () => {};
  const gate = new Promise<void>((r) => (open = r));
  const restore = () => (creations.insert = insert);
  const h = { held: false, release: () => open(), restore };
  creations.insert = async (draft: Transaction) => ((h.held = true), await gate, insert.call(creations, draft));
  undo.push(restore);
  return h;
}

describe('subscriptions: one renewal raced by two instances reaches the provider once', () => {
  const w = useTwoInstances();
  let ctx: TestContext;
  let second: App;
  let m: Merchant;
  before(() => ({ ctx, second, m } = w));

  const db = () => ctx.app.deps.db;
  const cardPlan = async () => {
    const r = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY', trialDays: 1, paymentMethods: ['CARD'] } });
    assert.equal(r.status, 201, r.raw);
    return r.body.plan.id as string;
  };
  const subscribe = async (planId: string) => {
    const r = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId, paymentMethod: 'CARD', card: GOOD, client: { name: 'Ana Souza', email: `ana.${Math.random().toString(36).slice(2)}@example.com`, document: cpf() } } });
    assert.equal(r.status, 201, r.raw);
    return r.body.subscription.id as string;
  };
  const simulate = (app: App, id: string, advanceDays: number) => call(app, 'POST', `/api/v1/subscriptions/${id}/simulate`, { key: m.devKey, body: { advanceDays } });
  const state = async (id: string) => ({
    cycles: await db().selectFrom('subscription_cycles').selectAll().where('subscription_id', '=', id).orderBy('number').execute(),
    txs: await db().selectFrom('transactions').selectAll().where('subscription_id', '=', id).execute(),
    receipts: (await db().selectFrom('emails').select('template').where('related_id', '=', id).where('template', '=', 'receipt').execute()).length,
  });
  const paidOnce = async (id: string) => {
    const s = await state(id);
    assert.equal(s.txs.length, 1, 'one transaction');
    assert.equal(s.txs[0].status, 'PAID');
    assert.deepEqual(s.cycles.map((c) => [c.status, c.attempts, c.charge_tx_id]), [['PAID', 1, null]]);
    assert.equal(s.receipts, 1);
    return s.txs[0].id;
  };

  test('both instances jump the clock over the same renewal at once, 12 times: every answer 200, each renewal charged once (PostgreSQL)', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)' }, async () => {
    const p = await cardPlan();
    const calls = cardCalls(ctx.app.deps.connectors.sandbox);
    const otherCalls = cardCalls(second.deps.connectors.sandbox);
    for (let round = 0; round < 12; round++) {
      const id = await subscribe(p);
      const answers = await Promise.all([simulate(ctx.app, id, 3), simulate(second, id, 3)]);
      assert.deepEqual(answers.map((a) => a.status), [200, 200], answers.map((a) => a.raw.slice(0, 300)).join('\n'));
      const txId = await paidOnce(id);
      assert.deepEqual([...calls, ...otherCalls].filter((r) => r === txId), [txId], `round ${round}: the renewal was sent to the provider once`);
    }
    assert.equal(calls.length + otherCalls.length, 12);
  });

  test('a worker still holding an attempt that another took over does not send it', async () => {
    const id = await subscribe(await cardPlan());
    const calls = cardCalls(ctx.app.deps.connectors.sandbox);
    const otherCalls = cardCalls(second.deps.connectors.sandbox);
    // The first worker takes the renewal's attempt and stops before recording it.
    const first = holdCreations(ctx.app);
    const due = new Date(Date.now() + 86_400_000 + 60_000);
    void advanceDue(ctx.app.deps.subscriptions, due).catch(() => {});
    for (let i = 0; i < 600 && !first.held; i++) await sleep(50);
    assert.ok(first.held);
    const given = (await state(id)).cycles[0];
    // Its lease ended: a second worker takes the attempt over and is still issuing it.
    const other = holdCreations(second);
    void advanceDue(second.deps.subscriptions, new Date(due.getTime() + CHARGE_LEASE_MS + 60_000)).catch(() => {});
    for (let i = 0; i < 600 && !other.held; i++) await sleep(50);
    assert.ok(other.held);
    // A worker holding the attempt as it was before the takeover (the first lease) issues nothing.
    first.restore();
    const sub = (await db().selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow()) as Subscription;
    const plan = await db().selectFrom('subscription_plans').selectAll().where('id', '=', sub.plan_id).executeTakeFirstOrThrow();
    assert.equal(await issueCharge(ctx.app.deps.subscriptions, sub, plan, given, due), null);
    assert.deepEqual([calls, otherCalls], [[], []]);
    assert.equal((await state(id)).txs.length, 0);
  });

  test('the worker that took an attempt over records it first: the original one answers 200 and sends nothing', async () => {
    const id = await subscribe(await cardPlan());
    const calls = cardCalls(ctx.app.deps.connectors.sandbox);
    const otherCalls = cardCalls(second.deps.connectors.sandbox);
    // A clock jump renews the subscription; its creation waits (a slow database, a stalled process).
    const first = holdCreations(ctx.app);
    const jumped = simulate(ctx.app, id, 2);
    for (let i = 0; i < 600 && !first.held; i++) await sleep(50);
    assert.ok(first.held);
    // Past its lease, the sweep of the other instance takes the attempt over and finishes it.
    await advanceDue(second.deps.subscriptions, new Date(Date.now() + CHARGE_LEASE_MS + 60_000));
    const txId = await paidOnce(id);
    assert.deepEqual(otherCalls, [txId]);
    first.release();
    const answer = await jumped;
    assert.equal(answer.status, 200, answer.raw);
    assert.equal(answer.body.subscription.status, 'ACTIVE');
    assert.equal(await paidOnce(id), txId);
    assert.deepEqual(calls, [], 'the original worker did not send the charge again');
  });
});
