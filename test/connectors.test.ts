// The connector registry and the janitor: a stored payment goes back to the connector that made it
// whatever the configuration says now, and an operation whose outcome was never recorded (the
// provider's answer lost, or the write after it failed) is settled once by asking the connector
// by our reference, on one instance or on two racing ones.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../src/deps.ts';
import type { Db } from '../src/db/index.ts';
import { settleUnknownCharges, settleUnknownRefunds } from '../src/modules/transactions/service.ts';
import { followPayouts } from '../src/modules/withdrawals/payouts.ts';
import type { CardChargeRequest, PayoutRequest, RefundRequest } from '../src/payments/connector.ts';
import { SandboxConnector } from '../src/payments/sandbox/connector.ts';
import { appConfig, appOver, approveKyc, call, cpf, merchant, secondInstance, startApp, type Merchant, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { Writable } from 'node:stream';

const YEAR = new Date().getUTCFullYear();
const CARD = { number: '4242424242424242', holderName: 'ANA SOUZA', expMonth: 12, expYear: YEAR + 3, cvv: '123' };
const PIX_CONFIG = { pix: { key: 'pix@cofre.com.br', merchantName: 'COFRE', merchantCity: 'SAO PAULO', ttlSeconds: 3600 }, boleto: { bankCode: '000', defaultDueDays: 3, daysAfterDue: 0, reconcileMinutes: 60 } };

/** A sandbox under another name that counts what it is asked, and loses its answers on demand (after acting). */
class Counted extends SandboxConnector {
  override readonly name: string;
  charges: string[] = [];
  refunds: string[] = [];
  payouts: string[] = [];
  /** Lose the answer of the next call of each kind (the provider acted; we never heard). */
  lose = { charge: false, refund: false, refundBefore: false, payout: false };
  constructor(name: string, db: Db) {
    super(PIX_CONFIG, db, 0);
    this.name = name;
  }
  override async chargeCard(req: CardChargeRequest) {
    this.charges.push(req.reference);
    const r = await super.chargeCard(req);
    if (this.lose.charge) {
      this.lose.charge = false;
      throw new Error('timeout');
    }
    return r;
  }
  override async refund(req: RefundRequest) {
    this.refunds.push(req.refundId);
    if (this.lose.refundBefore) {
      this.lose.refundBefore = false;
      throw new Error('connection reset before the provider read it');
    }
    const r = await super.refund(req);
    if (this.lose.refund) {
      this.lose.refund = false;
      throw new Error('timeout');
    }
    return r;
  }
  override async sendPayout(req: PayoutRequest) {
    this.payouts.push(req.externalId);
    const r = await super.sendPayout(req);
    if (this.lose.payout) {
      this.lose.payout = false;
      throw new Error('timeout');
    }
    return r;
  }
}

const quiet = () => new Writable({ write: (_c, _e, cb) => cb() });
const cardBody = (extra: object = {}) => ({ product: 'Curso', amountCents: 10_000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'CARD', card: CARD, ...extra });
const later = (ctx: TestContext) => new Date(Date.now() + ctx.config.janitorGraceSeconds * 1000 + 1000);

describe('a stored payment goes back to the connector that made it', () => {
  let ctx: TestContext;
  let alpha: Counted;
  let beta: Counted;
  let m: Merchant;
  /** The same gateway after its operator moved cards from alpha to beta (both still configured). */
  let moved: App;
  before(async () => {
    ctx = await startApp({
      deps: {
        connectors: { extra: [(db) => (alpha = new Counted('alpha', db)), (db) => (beta = new Counted('beta', db))], production: { CARD: ['alpha'] } },
      },
    });
    moved = await appOver(appConfig(), ctx.database, { limiter: new MemoryLimiter(), logStream: quiet(), connectors: { extra: [alpha, beta], production: { CARD: ['beta'] } } });
    m = await merchant(ctx.app, { live: true });
    await approveKyc(ctx.app, m.id);
  });
  after(async () => {
    await moved.close();
    await ctx.close();
  });

  test('charge with alpha, switch cards to beta: capture and refund go to alpha; a new charge goes to beta', async () => {
    const authorised = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.liveKey, body: cardBody({ capture: false }) });
    assert.equal(authorised.status, 201, authorised.raw);
    assert.equal(authorised.body.transaction.status, 'AUTHORIZED');
    const id = authorised.body.transaction.id;
    assert.deepEqual(alpha.charges, [id]);
    const row = await ctx.database.db.selectFrom('transactions').select('provider').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.provider, 'alpha');

    const captured = await call(moved, 'POST', `/api/v1/transactions/${id}/capture`, { key: m.liveKey, body: {} });
    assert.equal(captured.status, 200, captured.raw);
    assert.equal(captured.body.transaction.status, 'PAID');
    const refunded = await call(moved, 'POST', `/api/v1/transactions/${id}/refund`, { key: m.liveKey, body: { amountCents: 2500 } });
    assert.equal(refunded.status, 200, refunded.raw);
    assert.equal(alpha.refunds.length, 1);
    assert.deepEqual(beta.refunds, []);
    const refundRow = await ctx.database.db.selectFrom('refunds').select(['provider', 'status']).where('transaction_id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(refundRow, { provider: 'alpha', status: 'SUCCEEDED' });

    const fresh = await call(moved, 'POST', '/api/v1/transactions', { key: m.liveKey, body: cardBody() });
    assert.equal(fresh.body.transaction.status, 'PAID', fresh.raw);
    assert.deepEqual(beta.charges, [fresh.body.transaction.id]);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a payment of a connector no longer configured answers 503 on refund and changes nothing', async () => {
    const made = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.liveKey, body: cardBody() });
    const id = made.body.transaction.id;
    const without = await appOver(appConfig(), ctx.database, { limiter: new MemoryLimiter(), logStream: quiet(), connectors: { extra: [beta], production: { CARD: ['beta'] } } });
    try {
      const refund = await call(without, 'POST', `/api/v1/transactions/${id}/refund`, { key: m.liveKey, body: {} });
      // Recorded (the money is owed back) and PENDING until a gateway with alpha settles it.
      assert.equal(refund.status, 200, refund.raw);
      const r = await ctx.database.db.selectFrom('refunds').select(['status', 'provider']).where('transaction_id', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual(r, { status: 'PENDING', provider: 'alpha' });
      // The janitor of a gateway that has alpha again finishes it.
      await settleUnknownRefunds(ctx.app.deps.transactions, later(ctx));
      const after = await ctx.database.db.selectFrom('refunds').select('status').where('transaction_id', '=', id).executeTakeFirstOrThrow();
      assert.equal(after.status, 'SUCCEEDED');
    } finally {
      await without.close();
    }
  });
});

describe('the janitor settles what was never recorded, once', () => {
  let ctx: TestContext;
  let second: App;
  let sandbox: Counted;
  let m: Merchant;
  before(async () => {
    ctx = await startApp({ env: { SANDBOX_PAYOUT_DELAY_MS: '0' }, deps: { connectors: { sandbox: (db) => (sandbox = new Counted('sandbox', db)) } } });
    second = await secondInstance(ctx);
    m = await merchant(ctx.app);
  });
  after(async () => {
    await second.close();
    await ctx.close();
  });
  const db = () => ctx.database.db;
  const events = (id: string) => db().selectFrom('events').select('type').where('data', '@>', JSON.stringify({ id }) as never).execute();
  /** Both instances' janitors at once, as two processes' job runners would. */
  const race = (run: (app: App) => Promise<number>) => Promise.all([run(ctx.app), run(second)]);

  test('a card charge whose answer was lost: PENDING until the grace, then PAID from the provider, never charged again', async () => {
    sandbox.lose.charge = true;
    const made = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: cardBody() });
    assert.equal(made.status, 201, made.raw);
    const id = made.body.transaction.id;
    assert.equal(made.body.transaction.status, 'PENDING');
    // Within the grace period nobody touches it (the call may still be under way).
    await race((app) => settleUnknownCharges(app.deps.transactions, new Date()));
    assert.equal((await db().selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status, 'PENDING');
    await race((app) => settleUnknownCharges(app.deps.transactions, later(ctx)));
    const tx = await db().selectFrom('transactions').select(['status', 'provider_ref']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(tx.status, 'PAID');
    assert.match(tx.provider_ref!, /^sbx_/);
    assert.deepEqual(sandbox.charges.filter((r) => r === id), [id], 'charged once');
    const types = (await events(id)).map((e) => e.type);
    assert.equal(types.filter((t) => t === 'transaction.completed').length, 1, types.join());
    await assertLedgerBalanced(db());
  });

  test('a card charge the provider never made (no record of the reference) fails; nothing is credited', async () => {
    const made = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: { ...cardBody(), card: undefined } });
    const id = made.body.transaction.id;
    // The card was claimed on the row, then the process died before it called the provider.
    await db().updateTable('transactions').set({ card_brand: 'visa', card_last4: '4242' }).where('id', '=', id).execute();
    await race((app) => settleUnknownCharges(app.deps.transactions, later(ctx)));
    const tx = await db().selectFrom('transactions').select(['status', 'failure_reason']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(tx, { status: 'FAILED', failure_reason: 'PROCESSING_ERROR' });
    assert.equal(sandbox.charges.filter((r) => r === id).length, 0);
    await assertLedgerBalanced(db());
  });

  test('a refund whose answer was lost is found at the provider and recorded once, not sent again', async () => {
    const paid = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: cardBody() });
    const id = paid.body.transaction.id;
    sandbox.lose.refund = true;
    const refund = await call(ctx.app, 'POST', `/api/v1/transactions/${id}/refund`, { key: m.devKey, body: {} });
    assert.equal(refund.status, 200, refund.raw);
    const r = await db().selectFrom('refunds').select(['id', 'status']).where('transaction_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(r.status, 'PENDING');
    await race((app) => settleUnknownRefunds(app.deps.transactions, later(ctx)));
    assert.equal((await db().selectFrom('refunds').select('status').where('id', '=', r.id).executeTakeFirstOrThrow()).status, 'SUCCEEDED');
    assert.deepEqual(sandbox.refunds.filter((x) => x === r.id), [r.id], 'sent once');
    await assertLedgerBalanced(db());
  });

  test('a refund the provider never received is sent again under the same id', async () => {
    const paid = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: cardBody() });
    const id = paid.body.transaction.id;
    sandbox.lose.refundBefore = true;
    await call(ctx.app, 'POST', `/api/v1/transactions/${id}/refund`, { key: m.devKey, body: {} });
    const r = await db().selectFrom('refunds').select(['id', 'status']).where('transaction_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(r.status, 'PENDING');
    await settleUnknownRefunds(ctx.app.deps.transactions, later(ctx));
    assert.equal((await db().selectFrom('refunds').select('status').where('id', '=', r.id).executeTakeFirstOrThrow()).status, 'SUCCEEDED');
    assert.deepEqual(sandbox.refunds.filter((x) => x === r.id), [r.id, r.id], 'the same id both times');
    await assertLedgerBalanced(db());
  });

  test('a payout whose answer was lost stays PROCESSING, then is COMPLETED from the provider, paid once', async () => {
    const paid = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: { product: 'Curso', amountCents: 20_000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'PIX' } });
    await call(ctx.app, 'POST', `/api/v1/transactions/${paid.body.transaction.id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
    const w = await call(ctx.app, 'POST', '/api/withdraws', { key: m.devKey, body: { amountCents: 5000, pixKeyType: 'email', pixKey: 'loja@example.com' } });
    assert.equal(w.status, 201, w.raw);
    const wid = w.body.data?.id ?? w.body.withdrawal?.id;
    sandbox.lose.payout = true;
    const { processPayouts } = await import('../src/modules/withdrawals/payouts.ts');
    await processPayouts(ctx.app.deps.withdrawals, new Date());
    const stuck = await db().selectFrom('withdrawals').select(['status', 'external_id']).where('id', '=', wid).executeTakeFirstOrThrow();
    assert.equal(stuck.status, 'PROCESSING');
    await Promise.all([followPayouts(ctx.app.deps.withdrawals, later(ctx)), followPayouts(second.deps.withdrawals, later(ctx))]);
    assert.equal((await db().selectFrom('withdrawals').select('status').where('id', '=', wid).executeTakeFirstOrThrow()).status, 'COMPLETED');
    assert.deepEqual(sandbox.payouts.filter((x) => x === stuck.external_id), [stuck.external_id], 'sent once');
    const completed = await db().selectFrom('events').select('type').where('type', '=', 'withdrawal.completed').where('data', '@>', JSON.stringify({ id: wid }) as never).execute();
    assert.equal(completed.length, 1);
    await assertLedgerBalanced(db());
  });
});
