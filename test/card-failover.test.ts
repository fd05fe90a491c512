// Failover between card connectors (CARD_PROVIDER=alpha,beta): a connector that cannot answer and
// confirms it made no sale hands the charge to the next one, the transaction's provider switched
// first; a sale its lookup finds is adopted, never charged again; a decline never fails over; what
// follows the charge (capture, refund, the janitor) goes to the connector that authorised it; a
// connector whose circuit is open is skipped without a call. Every try is an attempt row.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Db } from '../src/db/index.ts';
import { settleUnknownCharges } from '../src/modules/transactions/service.ts';
import { CircuitBreaker } from '../src/payments/breaker.ts';
import type { AuthorizationRequest, CardChargeRequest, RefundRequest } from '../src/payments/connector.ts';
import { SandboxConnector } from '../src/payments/sandbox/connector.ts';
import { call, cpf, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';

const YEAR = new Date().getUTCFullYear();
const CARD = { number: '4242424242424242', holderName: 'ANA SOUZA', expMonth: 12, expYear: YEAR + 3, cvv: '123' };
const DECLINED = { ...CARD, number: '4000000000000002' };
const PIX_CONFIG = { pix: { key: 'pix@cofre.com.br', merchantName: 'COFRE', merchantCity: 'SAO PAULO', ttlSeconds: 3600 }, boleto: { bankCode: '000', defaultDueDays: 3, daysAfterDue: 0, reconcileMinutes: 60 } };

/** A sandbox under another name that counts its calls and fails on demand. */
class Flaky extends SandboxConnector {
  override readonly name: string;
  calls = { charge: [] as string[], capture: [] as string[], void: [] as string[], refund: [] as string[], lookup: [] as string[] };
  /** down: throws before acting (no sale); lose: acts, then throws (a sale whose answer is lost); lookupDown: findCharge throws. */
  mode = { down: false, lose: false, lookupDown: false };
  /** References this connector made a sale for (the sandboxes share their books: each sees only its own). */
  made = new Set<string>();
  constructor(name: string, db: Db) {
    super(PIX_CONFIG, db, 0);
    this.name = name;
  }
  reset() {
    this.calls = { charge: [], capture: [], void: [], refund: [], lookup: [] };
    this.mode = { down: false, lose: false, lookupDown: false };
    this.onCall = undefined;
  }
  /** A sale made after this connector stopped answering and its lookup said none (the acquirer was late). */
  async saleMadeLate(req: CardChargeRequest) {
    this.made.add(req.reference);
    await super.chargeCard(req);
  }
  /** Told of each call before it acts (what is on record at that moment). */
  onCall?: (req: CardChargeRequest) => Promise<void>;
  override async chargeCard(req: CardChargeRequest) {
    this.calls.charge.push(req.reference);
    await this.onCall?.(req);
    if (this.mode.down) throw new Error(`${this.name}: connect ETIMEDOUT`);
    this.made.add(req.reference);
    const r = await super.chargeCard(req);
    if (this.mode.lose) throw new Error(`${this.name}: socket hang up after the sale`);
    return r;
  }
  override async findCharge(reference: string, method: 'PIX' | 'BOLETO' | 'CARD') {
    this.calls.lookup.push(reference);
    if (this.mode.lookupDown) throw new Error(`${this.name}: lookup unavailable`);
    return this.made.has(reference) ? super.findCharge(reference, method) : null;
  }
  override async captureCard(req?: AuthorizationRequest) {
    this.calls.capture.push(req?.transactionId ?? '');
    return super.captureCard();
  }
  override async voidCard(req?: AuthorizationRequest) {
    this.calls.void.push(req?.transactionId ?? '');
    return super.voidCard();
  }
  override async refund(req: RefundRequest) {
    this.calls.refund.push(req.transactionId);
    return super.refund(req);
  }
}

const cardBody = (extra: object = {}) => ({ product: 'Curso', amountCents: 10_000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'CARD', card: CARD, ...extra });

describe('failover between card connectors', () => {
  let ctx: TestContext;
  let alpha: Flaky;
  let beta: Flaky;
  let m: Merchant;
  const pay = (extra: object = {}) => call(ctx.app, 'POST', '/api/v1/transactions', { key: m.liveKey, body: cardBody(extra) });
  const row = (id: string) => ctx.database.db.selectFrom('transactions').select(['provider', 'status', 'provider_ref']).where('id', '=', id).executeTakeFirstOrThrow();
  const attempts = (id: string) =>
    ctx.database.db.selectFrom('card_attempts').select(['connector', 'outcome', 'reason']).where('transaction_id', '=', id).orderBy('created_at').orderBy('id').execute();
  const detail = (id: string) => call(ctx.app, 'GET', `/api/v1/transactions/${id}`, { key: m.liveKey });

  before(async () => {
    ctx = await startApp({
      env: { CARD_BREAKER_FAILURES: '2', CARD_BREAKER_COOLDOWN_SECONDS: '3600' },
      deps: { connectors: { extra: [(db) => (alpha = new Flaky('alpha', db)), (db) => (beta = new Flaky('beta', db))], production: { CARD: ['alpha', 'beta'] } } },
    });
    m = await merchant(ctx.app, { live: true });
  });
  after(() => ctx.close());
  beforeEach(() => {
    alpha.reset();
    beta.reset();
    ctx.app.deps.connectors.breaker('alpha').success();
    ctx.app.deps.connectors.breaker('beta').success();
  });

  test('the first cannot answer and made no sale: the second approves, and owns the payment', async () => {
    alpha.mode.down = true;
    const res = await pay();
    assert.equal(res.status, 201, res.raw);
    const id = res.body.transaction.id;
    assert.equal(res.body.transaction.status, 'PAID');
    assert.deepEqual(alpha.calls.charge, [id]);
    assert.deepEqual(alpha.calls.lookup, [id], 'the first is asked whether it made the sale before any failover');
    assert.deepEqual(beta.calls.charge, [id]);
    assert.equal((await row(id)).provider, 'beta');
    const tries = await attempts(id);
    assert.deepEqual(
      tries.map((a) => [a.connector, a.outcome]),
      [
        ['alpha', 'UNAVAILABLE'],
        ['beta', 'APPROVED'],
      ],
    );
    assert.match(tries[0].reason ?? '', /ETIMEDOUT/);
    const shown = await detail(id);
    assert.equal(shown.status, 200, shown.raw);
    assert.deepEqual(
      shown.body.transaction.attempts.map((a: { connector: string; outcome: string }) => [a.connector, a.outcome]),
      [
        ['alpha', 'UNAVAILABLE'],
        ['beta', 'APPROVED'],
      ],
    );
    assert.ok(!JSON.stringify(tries).includes(CARD.number), 'no card number in an attempt');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('each try is on record, PENDING, before its connector is called (the first with the transaction itself)', async () => {
    const seen: { connector: string; outcome: string; status: string }[][] = [];
    const onRecord = async (req: CardChargeRequest) => {
      const tries = await attempts(req.reference);
      const tx = await row(req.reference);
      seen.push(tries.map((t) => ({ connector: t.connector, outcome: t.outcome, status: tx.status })));
    };
    alpha.mode.down = true;
    alpha.onCall = onRecord;
    beta.onCall = onRecord;
    const res = await pay();
    assert.equal(res.body.transaction.status, 'PAID', res.raw);
    assert.deepEqual(seen, [
      [{ connector: 'alpha', outcome: 'PENDING', status: 'PENDING' }],
      [
        { connector: 'alpha', outcome: 'UNAVAILABLE', status: 'PENDING' },
        { connector: 'beta', outcome: 'PENDING', status: 'PENDING' },
      ],
    ]);
  });

  test('the first lost its answer but its lookup finds the sale: adopted, the second never called', async () => {
    alpha.mode.lose = true;
    const res = await pay();
    const id = res.body.transaction.id;
    assert.equal(res.body.transaction.status, 'PAID', res.raw);
    assert.deepEqual(alpha.calls.charge, [id]);
    assert.deepEqual(beta.calls.charge, [], 'never charged twice');
    const stored = await row(id);
    assert.equal(stored.provider, 'alpha');
    assert.ok(stored.provider_ref, 'the adopted sale keeps the connector reference');
    assert.deepEqual(
      (await attempts(id)).map((a) => [a.connector, a.outcome]),
      [['alpha', 'APPROVED']],
    );
    const shown = await detail(id);
    assert.equal(shown.body.transaction.attempts.length, 1, 'an adopted sale is listed (it did not answer)');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a decline never fails over', async () => {
    const res = await pay({ card: DECLINED });
    const id = res.body.transaction.id;
    assert.equal(res.body.transaction.status, 'FAILED', res.raw);
    assert.equal(res.body.transaction.failureReason, 'CARD_DECLINED');
    assert.deepEqual(beta.calls.charge, []);
    assert.deepEqual(alpha.calls.lookup, []);
    assert.deepEqual(
      (await attempts(id)).map((a) => [a.connector, a.outcome, a.reason]),
      [['alpha', 'DECLINED', 'CARD_DECLINED']],
    );
    const shown = await detail(id);
    assert.equal(shown.body.transaction.attempts, undefined, 'one plain answer: no attempts listed');
  });

  test('capture, then refund, of a failed-over authorisation go to the second', async () => {
    alpha.mode.down = true;
    const res = await pay({ capture: false });
    const id = res.body.transaction.id;
    assert.equal(res.body.transaction.status, 'AUTHORIZED', res.raw);
    alpha.mode.down = false;
    const captured = await call(ctx.app, 'POST', `/api/v1/transactions/${id}/capture`, { key: m.liveKey, body: {} });
    assert.equal(captured.status, 200, captured.raw);
    assert.equal(captured.body.transaction.status, 'PAID');
    const refunded = await call(ctx.app, 'POST', `/api/v1/transactions/${id}/refund`, { key: m.liveKey, body: { amountCents: 4000 } });
    assert.equal(refunded.status, 200, refunded.raw);
    assert.deepEqual(beta.calls.capture, [id]);
    assert.deepEqual(beta.calls.refund, [id]);
    assert.deepEqual([alpha.calls.capture, alpha.calls.refund], [[], []]);
    const r = await ctx.database.db.selectFrom('refunds').select(['provider', 'status']).where('transaction_id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(r, { provider: 'beta', status: 'SUCCEEDED' });
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a void of a failed-over authorisation goes to the second', async () => {
    alpha.mode.down = true;
    const res = await pay({ capture: false });
    const id = res.body.transaction.id;
    const cancelled = await call(ctx.app, 'POST', `/api/v1/transactions/${id}/cancel`, { key: m.liveKey, body: {} });
    assert.equal(cancelled.status, 200, cancelled.raw);
    assert.deepEqual([alpha.calls.void, beta.calls.void], [[], [id]]);
  });

  test('after CARD_BREAKER_FAILURES unanswered calls the circuit opens: the first is skipped without a call', async () => {
    alpha.mode.down = true;
    for (let i = 0; i < 2; i++) assert.equal((await pay()).body.transaction.status, 'PAID');
    assert.equal(alpha.calls.charge.length, 2);
    assert.equal(ctx.app.deps.connectors.breaker('alpha').state(), 'OPEN');
    const res = await pay();
    const id = res.body.transaction.id;
    assert.equal(res.body.transaction.status, 'PAID', res.raw);
    assert.equal(alpha.calls.charge.length, 2, 'not called while open');
    assert.equal((await row(id)).provider, 'beta');
    assert.deepEqual(
      (await attempts(id)).map((a) => [a.connector, a.outcome]),
      [
        ['alpha', 'SKIPPED'],
        ['beta', 'APPROVED'],
      ],
    );
    await assertLedgerBalanced(ctx.database.db);
  });

  test('the first can neither answer nor be asked: no failover, PENDING; the janitor settles it with the first', async () => {
    alpha.mode.down = true;
    alpha.mode.lookupDown = true;
    const res = await pay();
    const id = res.body.transaction.id;
    assert.equal(res.body.transaction.status, 'PENDING', res.raw);
    assert.deepEqual(beta.calls.charge, [], 'it may have charged: never tried elsewhere');
    assert.equal((await row(id)).provider, 'alpha');
    alpha.mode.lookupDown = false;
    await settleUnknownCharges(ctx.app.deps.transactions, new Date(Date.now() + ctx.config.janitorGraceSeconds * 1000 + 1000));
    assert.equal((await row(id)).status, 'FAILED');
    assert.deepEqual(
      alpha.calls.lookup.filter((r) => r === id),
      [id, id],
    );
    await assertLedgerBalanced(ctx.database.db);
  });

  test('both down: PENDING with the last one named, and the janitor asks that one', async () => {
    alpha.mode.down = true;
    beta.mode.lose = true;
    const lost = await pay();
    assert.equal(lost.body.transaction.status, 'PAID', 'the last one lost its answer: its lookup adopts the sale');
    beta.mode = { down: true, lose: false, lookupDown: true };
    const res = await pay();
    const id = res.body.transaction.id;
    assert.equal(res.body.transaction.status, 'PENDING', res.raw);
    assert.equal((await row(id)).provider, 'beta');
    beta.mode.lookupDown = false;
    await settleUnknownCharges(ctx.app.deps.transactions, new Date(Date.now() + ctx.config.janitorGraceSeconds * 1000 + 1000));
    assert.equal((await row(id)).status, 'FAILED');
    assert.ok(beta.calls.lookup.includes(id));
    assert.deepEqual(
      (await attempts(id)).map((a) => [a.connector, a.outcome]),
      [
        ['alpha', 'UNAVAILABLE'],
        ['beta', 'UNAVAILABLE'],
      ],
    );
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a sale the first made late (after its lookup said none) is found by the janitor and refunded there', async () => {
    alpha.mode.down = true;
    const res = await pay();
    const id = res.body.transaction.id;
    assert.equal((await row(id)).provider, 'beta');
    await alpha.saleMadeLate({ reference: id, card: CARD, amountCents: res.body.transaction.chargedCents, installments: 1, capture: true });
    const janitor = () => settleUnknownCharges(ctx.app.deps.transactions, new Date(Date.now() + ctx.config.janitorGraceSeconds * 1000 + 1000));
    await janitor();
    assert.deepEqual(alpha.calls.refund, [id], 'released at the first');
    assert.deepEqual(beta.calls.refund, []);
    const [first] = await ctx.database.db.selectFrom('card_attempts').select(['checked_at', 'reason']).where('transaction_id', '=', id).where('connector', '=', 'alpha').execute();
    assert.ok(first.checked_at);
    assert.match(first.reason ?? '', /late sale there was released/);
    await janitor();
    assert.deepEqual(alpha.calls.refund, [id], 'asked once');
    assert.equal((await row(id)).status, 'PAID', 'the sale that stands is the second\'s');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a development payment never fails over (the sandbox alone) and records no attempts', async () => {
    const res = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: cardBody() });
    assert.equal(res.body.transaction.status, 'PAID', res.raw);
    assert.deepEqual(await attempts(res.body.transaction.id), []);
  });
});

test('the breaker: opens after N failures in a row, half-opens after the cooldown for one trial, closes on an answer', () => {
  let now = 0;
  const b = new CircuitBreaker({ failures: 2, cooldownMs: 1000 }, () => now);
  b.failure();
  assert.equal(b.state(), 'CLOSED');
  b.success();
  b.failure();
  assert.equal(b.state(), 'CLOSED', 'a success in between resets the count');
  b.failure();
  assert.equal(b.state(), 'OPEN');
  assert.equal(b.allows(), false);
  now = 1000;
  assert.equal(b.state(), 'HALF_OPEN');
  assert.equal(b.allows(), true, 'one trial');
  assert.equal(b.allows(), false, 'only one at a time');
  b.failure();
  assert.equal(b.state(), 'OPEN', 'a failed trial opens it again');
  now = 2000;
  assert.equal(b.allows(), true);
  b.success();
  assert.equal(b.state(), 'CLOSED');
});
