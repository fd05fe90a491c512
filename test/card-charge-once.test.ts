// A card is charged once per transaction and per Idempotency-Key, even when recording the outcome
// fails after the provider approved (issue: the 500 used to free the key, and a retry created a new
// transaction and charged the card again).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { CardChargeRequest } from '../src/payments/connector.ts';
import { SandboxConnector } from '../src/payments/sandbox/connector.ts';
import { call, cpf, merchant, startApp, type Merchant, type TestContext } from './helpers.ts';
import { assertLedgerBalanced } from './ledger-check.ts';

const YEAR = new Date().getUTCFullYear();
const CARD = { number: '4242424242424242', holderName: 'ANA SOUZA', expMonth: 12, expYear: YEAR + 3, cvv: '123' };

/** The sandbox, counting the charges it is asked for. */
class CountingProvider extends SandboxConnector {
  calls: CardChargeRequest[] = [];
  override async chargeCard(req: CardChargeRequest) {
    this.calls.push(req);
    return super.chargeCard(req);
  }
}

let ctx: TestContext;
let m: Merchant;
let provider: CountingProvider;
/** Armed: the next PAID transition fails after the provider approved (a write that does not happen). */
let failNextPaid = false;

before(async () => {
  const config = { pix: { key: 'pix@cofre.com.br', merchantName: 'COFRE', merchantCity: 'SAO PAULO', ttlSeconds: 3600 }, boleto: { bankCode: '000', defaultDueDays: 3, daysAfterDue: 0, reconcileMinutes: 60 } };
  ctx = await startApp({
    deps: {
      connectors: { sandbox: (db) => (provider = new CountingProvider(config, db, 0)) },
      extraHooks: [
        {
          beforePaid: async () => {
            if (!failNextPaid) return null;
            failNextPaid = false;
            throw new Error('injected: the database write after the approval failed');
          },
        },
      ],
    },
  });
  m = await merchant(ctx.app);
});
after(() => ctx.close());
beforeEach(() => {
  provider.calls = [];
  failNextPaid = false;
});

const body = () => ({ product: 'Curso', amountCents: 7990, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'CARD', card: CARD });

describe('a failure after the approval', () => {
  test('with an Idempotency-Key: the stored state is the answer, a retry replays it, the card is charged once', async () => {
    const request = body();
    failNextPaid = true;
    const first = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: request, headers: { 'idempotency-key': 'order-77' } });
    assert.equal(first.status, 201, first.raw);
    assert.equal(first.body.transaction.status, 'PENDING');
    assert.equal(first.body.transaction.card.last4, '4242');
    assert.equal(provider.calls.length, 1);
    assert.equal(provider.calls[0].reference, first.body.transaction.id, 'the transaction id is the provider reference');

    const retry = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: request, headers: { 'idempotency-key': 'order-77' } });
    assert.equal(retry.status, 201);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.body.transaction.id, first.body.transaction.id);
    assert.equal(provider.calls.length, 1, 'no second charge');

    const count = await ctx.database.db.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', m.id).where('payment_method', '=', 'CARD').executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1, 'one transaction');
    // Its card is claimed: the hosted page cannot charge it again either.
    const again = await call(ctx.app, 'POST', `/api/checkout/transactions/${first.body.transaction.id}/card`, { body: { card: CARD } });
    assert.equal(again.status, 400);
    assert.equal(provider.calls.length, 1);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('without a key: the stored state is the answer and nothing else is charged', async () => {
    failNextPaid = true;
    const res = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: body() });
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.transaction.status, 'PENDING');
    assert.equal(provider.calls.length, 1);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('on the hosted page: the stored state is the answer; a second submission is refused uncharged', async () => {
    const pending = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: { ...body(), card: undefined } });
    assert.equal(pending.status, 201, pending.raw);
    const id = pending.body.transaction.id;
    failNextPaid = true;
    const paid = await call(ctx.app, 'POST', `/api/checkout/transactions/${id}/card`, { body: { card: CARD } });
    assert.equal(paid.status, 200, paid.raw);
    assert.equal(paid.body.transaction.status, 'PENDING');
    const again = await call(ctx.app, 'POST', `/api/checkout/transactions/${id}/card`, { body: { card: CARD } });
    assert.equal(again.status, 400);
    assert.deepEqual(provider.calls.map((c) => c.reference), [id]);
  });

  test('without a failure the same request is PAID at once, charged once with its id as reference', async () => {
    const res = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: body(), headers: { 'idempotency-key': 'order-78' } });
    assert.equal(res.body.transaction.status, 'PAID', res.raw);
    const retry = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: body(), headers: { 'idempotency-key': 'order-78' } });
    assert.equal(retry.status, 400, 'same key, another body: IDEMPOTENCY_KEY_REUSED');
    assert.deepEqual(provider.calls.map((c) => c.reference), [res.body.transaction.id]);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('the same request with one key five times at once: one transaction, charged once; the others replay its answer or are told it is in progress', async () => {
    const request = body();
    const answers = await Promise.all(Array.from({ length: 5 }, () => call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: request, headers: { 'idempotency-key': 'order-79' } })));
    const created = answers.filter((a) => a.status === 201);
    assert.ok(created.length >= 1, answers.map((a) => a.raw).join('\n'));
    for (const a of answers) assert.ok(a.status === 201 || a.status === 409, a.raw);
    assert.equal(new Set(created.map((a) => a.body.transaction.id)).size, 1, 'one transaction');
    assert.equal(provider.calls.length, 1, 'charged once');
    const final = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: request, headers: { 'idempotency-key': 'order-79' } });
    assert.equal(final.headers['idempotent-replayed'], 'true');
    assert.equal(final.body.transaction.status, 'PAID', 'the final answer replaced the provisional one');
    await assertLedgerBalanced(ctx.database.db);
  });
});
