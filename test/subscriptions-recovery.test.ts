// A renewal interrupted by a crash is finished by the sweep, once (docs/subscriptions.md, "A charge
// interrupted by a crash"). A worker "crashes" here by never coming back from a call (the provider's,
// or the database write that records the transaction): its database work up to that point is
// committed, nothing after it happens, as when the process is killed. Another worker (a second
// instance over the same database, with its own sandbox provider instance) finishes the attempt once
// its lease has ended, with the same transaction id, so the provider never charges twice.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CHARGE_LEASE_MS } from '../src/modules/subscriptions/agenda.ts';
import { advanceDue } from '../src/modules/subscriptions/sweep.ts';
import type { App } from '../src/deps.ts';
import type { CardResult, ChargeLookup, Connector } from '../src/payments/connector.ts';
import type { TransactionHooks } from '../src/modules/transactions/hooks.ts';
import { call, cpf, type Merchant, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { undo, useTwoInstances } from './two-instances-kit.ts';

const GOOD = { number: '4242424242424242', holderName: 'Ana Souza', expMonth: 12, expYear: 2035, cvv: '123' };
const DAY = 86_400_000;
const never = () => new Promise<never>(() => {});

/** Counts a provider's card calls by reference; `crash` makes the calls charge and then never answer. Undone after each test. */
function spy(provider: Connector) {
  const real = { chargeToken: provider.chargeToken!.bind(provider), findCharge: provider.findCharge!.bind(provider) };
  undo.push(() => Object.assign(provider, { chargeToken: real.chargeToken, findCharge: real.findCharge }));
  const s = { charged: new Map<string, CardResult[]>(), found: new Map<string, (ChargeLookup | null)[]>(), crash: false };
  provider.chargeToken = async (req) => {
    const r = await real.chargeToken(req);
    s.charged.set(req.reference, [...(s.charged.get(req.reference) ?? []), r]);
    return s.crash ? never() : r;
  };
  provider.findCharge = async (ref, method) => {
    const r = await real.findCharge(ref, method);
    s.found.set(ref, [...(s.found.get(ref) ?? []), r]);
    return r;
  };
  return s;
}

describe('subscriptions: a renewal interrupted by a crash is finished once', () => {
  const w = useTwoInstances();
  let ctx: TestContext;
  let second: App;
  let m: Merchant;
  before(() => ({ ctx, second, m } = w));

  const db = () => ctx.app.deps.db;
  const plan = async (body: Record<string, unknown>) => {
    const r = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY', ...body } });
    assert.equal(r.status, 201, r.raw);
    return r.body.plan.id as string;
  };
  const subscribe = async (planId: string, body: Record<string, unknown>) => {
    const r = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId, client: { name: 'Ana Souza', email: `ana.${Math.random().toString(36).slice(2)}@example.com`, document: cpf() }, ...body } });
    assert.equal(r.status, 201, r.raw);
    return r.body.subscription.id as string;
  };
  const state = async (id: string) => ({
    sub: await db().selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
    cycles: await db().selectFrom('subscription_cycles').selectAll().where('subscription_id', '=', id).orderBy('number').execute(),
    txs: await db().selectFrom('transactions').selectAll().where('subscription_id', '=', id).execute(),
    renewed: (await db().selectFrom('events').select('data').where('user_id', '=', m.id).where('type', '=', 'subscription.renewed').execute()).filter((e) => (e.data as { id: string }).id === id).length,
    emails: (await db().selectFrom('emails').select('template').where('related_id', '=', id).execute()).map((e) => e.template),
  });
  /** Starts a sweep that will not come back (its worker "crashes" inside), and lets it run until it is stuck. */
  const crashingSweep = async (app: App, at: Date, stuck: () => Promise<boolean>) => {
    void advanceDue(app.deps.subscriptions, at).catch(() => {});
    for (let i = 0; i < 600 && !(await stuck()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(await stuck(), 'the crashing worker got as far as the crash');
  };

  test('the worker dies after the provider charged the card: the sweep asks the provider for the outcome of the same reference, and records it once', async () => {
    const p = await plan({ trialDays: 1, paymentMethods: ['CARD'] });
    const id = await subscribe(p, { paymentMethod: 'CARD', card: GOOD });
    const first = spy(ctx.app.deps.connectors.sandbox);
    const other = spy(second.deps.connectors.sandbox);
    const due = new Date(Date.now() + DAY + 60_000);
    first.crash = true;
    await crashingSweep(ctx.app, due, async () => first.charged.size > 0);

    // What the crash left: the cycle OPEN with its attempt in flight, its card transaction PENDING.
    let s = await state(id);
    assert.equal(s.cycles.length, 1);
    assert.equal(s.cycles[0].status, 'OPEN');
    assert.equal(s.cycles[0].attempts, 1);
    assert.equal(s.txs.length, 1);
    assert.equal(s.txs[0].status, 'PENDING');
    assert.equal(s.cycles[0].charge_tx_id, s.txs[0].id, 'the attempt pays with the transaction id chosen when it was counted');
    assert.deepEqual([...first.charged.keys()], [s.txs[0].id], 'the provider was charged with the transaction id as the reference');
    assert.ok(s.sub.next_action_at && s.sub.next_action_at.getTime() <= due.getTime() + CHARGE_LEASE_MS, 'the sweep looks again when the attempt\'s lease ends');

    // Before the lease ends nobody touches it (the worker may still be waiting for the provider).
    await advanceDue(second.deps.subscriptions, new Date(due.getTime() + CHARGE_LEASE_MS - 60_000));
    assert.equal(other.charged.size + other.found.size, 0);
    assert.equal((await state(id)).txs[0].status, 'PENDING');

    // After it, another worker finishes the attempt: the same reference, one payment.
    await advanceDue(second.deps.subscriptions, new Date(due.getTime() + CHARGE_LEASE_MS + 60_000));
    s = await state(id);
    assert.equal(s.txs.length, 1, 'no second transaction');
    assert.equal(s.txs[0].status, 'PAID');
    const answered = first.charged.get(s.txs[0].id)![0];
    assert.ok(answered.approved);
    assert.equal(s.txs[0].provider_ref, answered.reference, 'recorded as the payment the provider made at the crash');
    assert.deepEqual([...other.found.keys()], [s.txs[0].id], 'the provider was asked for the outcome of the same reference');
    // This sandbox instance does not remember the other's charge: it was charged again with the same
    // reference and answered the same payment (the reference is the provider's idempotency key).
    for (const r of other.charged.get(s.txs[0].id) ?? []) assert.deepEqual(r, answered);
    assert.equal(s.cycles.length, 1);
    assert.equal(s.cycles[0].status, 'PAID');
    assert.equal(s.cycles[0].attempts, 1, 'finishing the attempt is not a new attempt');
    assert.equal(s.cycles[0].transaction_id, s.txs[0].id);
    assert.equal(s.cycles[0].charge_tx_id, null);
    assert.equal(s.sub.status, 'ACTIVE');
    assert.equal(s.renewed, 1);
    assert.equal(s.emails.filter((t) => t === 'receipt').length, 1);

    // Later sweeps leave it alone: the next thing due is the next renewal.
    await advanceDue(ctx.app.deps.subscriptions, new Date(due.getTime() + 2 * CHARGE_LEASE_MS + 60_000));
    const later = await state(id);
    assert.equal(later.txs.length, 1);
    assert.equal(later.renewed, 1);
    assert.ok(later.sub.next_action_at!.getTime() > due.getTime() + 20 * DAY);
    await assertLedgerBalanced(db());
  });

  test('recording the outcome fails after the provider answered (a hook throws): the sweep records it from the provider, without charging again', async () => {
    const p = await plan({ trialDays: 1, paymentMethods: ['CARD'] });
    const id = await subscribe(p, { paymentMethod: 'CARD', card: GOOD });
    const provider = spy(ctx.app.deps.connectors.sandbox);
    // The subscription's hook (inside the status change) throws once: the change rolls back whole.
    const hooks = ctx.app.deps.transactions.hooks as TransactionHooks[];
    const original = [...hooks];
    let thrown = 0;
    hooks.unshift({
      async afterChange(_trx, _before, after) {
        if (after.subscription_id === id && after.status === 'PAID' && thrown++ === 0) throw new Error('the hook failed');
      },
    });
    const due = new Date(Date.now() + DAY + 60_000);
    try {
      await advanceDue(ctx.app.deps.subscriptions, due);
    } finally {
      hooks.splice(0, hooks.length, ...original);
    }
    assert.equal(thrown, 1);
    let s = await state(id);
    assert.equal(s.txs.length, 1);
    assert.equal(s.txs[0].status, 'PENDING', 'nothing of the outcome was recorded');
    assert.equal(s.cycles[0].status, 'OPEN');
    assert.ok(ctx.logs.join('').includes('the outcome could not be recorded'));

    await advanceDue(ctx.app.deps.subscriptions, new Date(due.getTime() + CHARGE_LEASE_MS + 60_000));
    s = await state(id);
    assert.equal(s.txs.length, 1);
    assert.equal(s.txs[0].status, 'PAID');
    assert.equal(provider.charged.get(s.txs[0].id)?.length, 1, 'the card was charged once');
    assert.equal(provider.found.get(s.txs[0].id)?.length, 1, 'the outcome was asked of the provider');
    assert.equal(s.txs[0].provider_ref, (provider.charged.get(s.txs[0].id)![0] as { reference: string }).reference);
    assert.equal(s.cycles[0].status, 'PAID');
    assert.equal(s.cycles[0].attempts, 1);
    assert.equal(s.renewed, 1);
    assert.equal(s.emails.filter((t) => t === 'receipt').length, 1);
    await assertLedgerBalanced(db());
  });

  test('the worker dies before the transaction was recorded: the sweep issues the attempt with the id chosen for it', async () => {
    const p = await plan({ trialDays: 1, paymentMethods: ['CARD'] });
    const id = await subscribe(p, { paymentMethod: 'CARD', card: GOOD });
    const provider = spy(ctx.app.deps.connectors.sandbox);
    const creations = ctx.app.deps.transactions.creations;
    const insert = creations.insert;
    creations.insert = never;
    const due = new Date(Date.now() + DAY + 60_000);
    try {
      await crashingSweep(ctx.app, due, async () => (await state(id)).cycles.length === 1);
      // (the step committed; give the worker the time to reach the write that never comes back)
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      creations.insert = insert;
    }
    let s = await state(id);
    assert.equal(s.txs.length, 0);
    assert.equal(s.cycles[0].status, 'OPEN');
    const chosen = s.cycles[0].charge_tx_id;
    assert.ok(chosen);
    assert.equal(provider.charged.size, 0);

    await advanceDue(second.deps.subscriptions, new Date(due.getTime() + CHARGE_LEASE_MS + 60_000));
    s = await state(id);
    assert.equal(s.txs.length, 1);
    assert.equal(s.txs[0].id, chosen);
    assert.equal(s.txs[0].status, 'PAID');
    assert.equal(s.cycles[0].status, 'PAID');
    assert.equal(s.cycles[0].attempts, 1);
    assert.equal(s.renewed, 1);
    await assertLedgerBalanced(db());
  });

  test('two workers recovering the same 8 interrupted renewals at once (PostgreSQL: in parallel) finish each once', async () => {
    const p = await plan({ trialDays: 1, paymentMethods: ['CARD'] });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await subscribe(p, { paymentMethod: 'CARD', card: GOOD }));
    const first = spy(ctx.app.deps.connectors.sandbox);
    const other = spy(second.deps.connectors.sandbox);
    first.crash = true;
    const due = new Date(Date.now() + DAY + 60_000);
    const pending = async () => (await db().selectFrom('transactions').select('id').where('subscription_id', 'in', ids).where('status', '=', 'PENDING').execute()).length;
    // Every renewal charged at the provider, none recorded (the sweep's 8 lanes all hang after the provider answered).
    await crashingSweep(ctx.app, due, async () => first.charged.size === ids.length);
    assert.equal(first.charged.size, ids.length);
    assert.equal(await pending(), ids.length);
    const at = new Date(due.getTime() + CHARGE_LEASE_MS + 60_000);
    await Promise.all([advanceDue(ctx.app.deps.subscriptions, at, 5), advanceDue(second.deps.subscriptions, at, 5), advanceDue(ctx.app.deps.subscriptions, at, 5), advanceDue(second.deps.subscriptions, at, 5)]);
    // Whatever a sweep's claim kept from the others is done when its lease ends.
    await advanceDue(second.deps.subscriptions, new Date(at.getTime() + 6 * 60_000));
    for (const id of ids) {
      const s = await state(id);
      assert.equal(s.txs.length, 1, 'one transaction');
      assert.equal(s.txs[0].status, 'PAID');
      const answered = first.charged.get(s.txs[0].id)![0] as { reference: string };
      assert.equal(s.txs[0].provider_ref, answered.reference, 'the payment the provider made, not another');
      assert.equal(s.cycles.length, 1);
      assert.equal(s.cycles[0].status, 'PAID');
      assert.equal(s.cycles[0].attempts, 1);
      assert.equal(s.renewed, 1, 'renewed once');
      assert.equal(s.emails.filter((t) => t === 'receipt').length, 1);
    }
    // Each attempt was finished by one worker: asked of the provider once in all.
    assert.equal([...first.found.values(), ...other.found.values()].reduce((n, v) => n + v.length, 0), ids.length);
    await assertLedgerBalanced(db());
  });

  test('Pix Automático: a first charge interrupted before it was recorded is not sent again blindly; the subscription expires', async () => {
    const p = await plan({ paymentMethods: ['PIX_AUTOMATICO'] });
    // PIX charges asked of the provider, by either instance.
    let pixCalls = 0;
    for (const sandbox of [ctx.app.deps.connectors.sandbox, second.deps.connectors.sandbox]) {
      const createPix = sandbox.createPix;
      sandbox.createPix = async (req) => (pixCalls++, createPix!.call(sandbox, req));
      undo.push(() => (sandbox.createPix = createPix));
    }
    const creations = ctx.app.deps.transactions.creations;
    const insert = creations.insert;
    creations.insert = never;
    let id = '';
    try {
      // The subscribe request's worker dies after the PSP made the charge, before recording it.
      void call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: p, paymentMethod: 'PIX_AUTOMATICO', client: { name: 'Ana Souza', email: 'ana.rec@example.com', document: cpf() } } });
      for (let i = 0; i < 600 && pixCalls === 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(pixCalls, 1);
      id = (await db().selectFrom('subscriptions').select('id').where('plan_id', '=', p).executeTakeFirstOrThrow()).id;
    } finally {
      creations.insert = insert;
    }
    const start = Date.now();
    await advanceDue(second.deps.subscriptions, new Date(start + CHARGE_LEASE_MS + 60_000));
    let s = await state(id);
    assert.equal(pixCalls, 1, 'no second request to the PSP (it would make a second authorisation)');
    assert.equal(s.txs.length, 0);
    assert.equal(s.cycles[0].charge_tx_id, null, 'the attempt was given up');
    assert.equal(s.sub.status, 'INCOMPLETE');
    // As any unpaid first charge: expired after 23 h, its seat given back.
    await advanceDue(second.deps.subscriptions, new Date(start + 24 * 3600_000));
    s = await state(id);
    assert.equal(s.sub.status, 'EXPIRED');
    assert.equal(s.cycles[0].status, 'VOID');
  });

  test('PIX: the worker dies before the charge was recorded: issued once, e-mailed once', async () => {
    const p = await plan({ trialDays: 7, paymentMethods: ['PIX'] });
    const id = await subscribe(p, { paymentMethod: 'PIX' });
    const creations = ctx.app.deps.transactions.creations;
    const insert = creations.insert;
    creations.insert = never;
    // Issued 3 days before the trial ends.
    const issueAt = new Date(Date.now() + 4 * DAY + 60_000);
    try {
      await crashingSweep(ctx.app, issueAt, async () => (await state(id)).cycles.length === 1);
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      creations.insert = insert;
    }
    assert.equal((await state(id)).txs.length, 0);
    // Two workers at once after the lease: one issues it.
    const at = new Date(issueAt.getTime() + CHARGE_LEASE_MS + 60_000);
    await Promise.all([advanceDue(ctx.app.deps.subscriptions, at), advanceDue(second.deps.subscriptions, at)]);
    const s = await state(id);
    assert.equal(s.txs.length, 1);
    assert.equal(s.txs[0].payment_method, 'PIX');
    assert.equal(s.txs[0].status, 'PENDING');
    assert.equal(s.cycles[0].transaction_id, s.txs[0].id);
    assert.equal(s.cycles[0].charge_tx_id, null);
    assert.equal(s.cycles[0].attempts, 1);
    assert.equal(s.emails.filter((t) => t === 'charge_issued').length, 1);
    assert.equal(s.sub.status, 'TRIALING');
  });
});
