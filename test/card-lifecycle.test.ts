// The card lifecycle the origin gateway offers: authorise now, capture (all or part) later, void,
// let an authorisation expire; pay a pending card payment server-to-server. Nothing is credited
// before the capture, and the ledger balances after each path.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expireAuthorizations } from '../src/modules/transactions/service.ts';
import { call, cpf, merchant } from './helpers.ts';
import { assert400 } from './kit/assert.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { accounts, eventsOf } from './wallet-helpers.ts';

const T = '/api/v1/transactions';
const YEAR = new Date().getUTCFullYear();
const CARD = { number: '4242424242424242', holderName: 'ANA SOUZA', expMonth: 12, expYear: YEAR + 3, cvv: '123' };
const DECLINED = { ...CARD, number: '4000000000000002' };
const cardFee = (c: number) => Math.min(c, Math.floor((c * 399 + 5000) / 10000) + 39);

const ctx = useApp();
const m = useMerchant(ctx);

const body = (over: Record<string, unknown> = {}) => ({ product: 'Reserva', amountCents: 20000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'CARD', ...over });
const post = (url: string, b?: unknown, key = m.devKey) => call(ctx.app, 'POST', url, { key, body: b });
async function authorize(over: Record<string, unknown> = {}) {
  const res = await post(T, body({ card: CARD, capture: false, ...over }));
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction;
}
const typesFor = async (id: string) => (await eventsOf(ctx, m.id, false)).filter((e) => e.data.id === id).map((e) => e.type);

describe('authorise, then capture', () => {
  test('capture: false holds the money: AUTHORIZED, nothing credited, transaction.authorized', async () => {
    const before = await accounts(ctx, m.id);
    const t = await authorize();
    assert.equal(t.status, 'AUTHORIZED');
    assert.ok(t.authorizedAt);
    assert.equal(t.capturedAt, null);
    assert.ok(Date.parse(t.expiresAt) > Date.now() + 6.9 * 86_400_000, 'held for 7 days');
    assert.deepEqual(await accounts(ctx, m.id), before, 'nothing moved');
    assert.deepEqual((await typesFor(t.id)).sort(), ['transaction.authorized', 'transaction.created', 'transaction.updated']);
    // The webhook says when the hold ends, as the API does.
    const authorized = (await eventsOf(ctx, m.id, false)).find((e) => e.data.id === t.id && e.type === 'transaction.authorized')!;
    assert.deepEqual([authorized.data.authorizedAt, authorized.data.expiresAt], [t.authorizedAt, t.expiresAt]);
    // An authorisation is not refundable: it is captured or cancelled.
    assert400(await post(`${T}/${t.id}/refund`, {}), 'INVALID_STATE_TRANSITION');
  });

  test('a full capture (bodiless) makes it PAID: receivable credited net of the fee, transaction.captured and completed; once', async () => {
    const t = await authorize();
    const before = await accounts(ctx, m.id);
    const cap = await call(ctx.app, 'POST', `${T}/${t.id}/capture`, { key: m.devKey });
    assert.equal(cap.status, 200, cap.raw);
    assert.equal(cap.body.transaction.status, 'PAID');
    assert.ok(cap.body.transaction.capturedAt);
    assert.equal(cap.body.transaction.chargedCents, 20000);
    const a = await accounts(ctx, m.id);
    assert.equal(a.receivable - before.receivable, 20000 - cardFee(20000));
    assert.ok((await typesFor(t.id)).includes('transaction.captured'));
    assert400(await post(`${T}/${t.id}/capture`, {}), 'INVALID_STATE_TRANSITION');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a partial capture takes part, releases the rest; the fee is on what was taken', async () => {
    const t = await authorize({ installments: 2 });
    assert400(await post(`${T}/${t.id}/capture`, { amountCents: t.chargedCents + 1 }), 'VALIDATION_ERROR', ['amountCents']);
    const before = await accounts(ctx, m.id);
    const cap = await post(`${T}/${t.id}/capture`, { amountCents: 15000 });
    assert.equal(cap.status, 200, cap.raw);
    assert.equal(cap.body.transaction.chargedCents, 15000);
    assert.equal(cap.body.transaction.feeCents, cardFee(15000));
    assert.equal(cap.body.transaction.netAmountCents, 15000 - cardFee(15000));
    const a = await accounts(ctx, m.id);
    assert.equal(a.receivable - before.receivable, 15000 - cardFee(15000));
    const receivables = await ctx.database.db.selectFrom('receivables').select('amount_cents').where('transaction_id', '=', t.id).execute();
    assert.equal(receivables.reduce((s, r) => s + r.amount_cents, 0), 15000 - cardFee(15000));
    // A refund of a captured payment works as for any paid card payment.
    assert.equal((await post(`${T}/${t.id}/refund`, {})).body.transaction.status, 'REFUNDED');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('a declined card at authorisation is FAILED, nothing to capture', async () => {
    const res = await post(T, body({ card: DECLINED, capture: false }));
    assert.equal(res.body.transaction.status, 'FAILED');
    assert400(await post(`${T}/${res.body.transaction.id}/capture`, {}), 'INVALID_STATE_TRANSITION');
  });

  test('capture is for cards with card data; another method is refused', async () => {
    const pix = await post(T, body({ paymentMethod: 'PIX', capture: false }));
    assert400(pix, 'VALIDATION_ERROR', ['capture']);
    assert400(await post(T, body({ capture: false })), 'VALIDATION_ERROR', ['capture']);
  });
});

describe('cancel', () => {
  test('an authorisation is voided: CANCELLED, nothing moved, transaction.cancelled', async () => {
    const t = await authorize();
    const before = await accounts(ctx, m.id);
    const res = await call(ctx.app, 'POST', `${T}/${t.id}/cancel`, { key: m.devKey });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.status, 'CANCELLED');
    assert.ok(res.body.transaction.cancelledAt);
    assert.deepEqual(await accounts(ctx, m.id), before);
    assert.ok((await typesFor(t.id)).includes('transaction.cancelled'));
    assert400(await post(`${T}/${t.id}/capture`, {}), 'INVALID_STATE_TRANSITION');
  });

  test('a pending PIX or boleto is withdrawn; a paid payment is refunded instead', async () => {
    for (const paymentMethod of ['PIX', 'BOLETO']) {
      const t = (await post(T, body({ paymentMethod }))).body.transaction;
      const res = await post(`${T}/${t.id}/cancel`);
      assert.equal(res.body.transaction.status, 'CANCELLED', res.raw);
      assert400(await post(`${T}/${t.id}/simulate`, { outcome: 'PAID' }), 'INVALID_STATE_TRANSITION');
    }
    const paid = (await post(T, body({ card: CARD }))).body.transaction;
    const refused = await post(`${T}/${paid.id}/cancel`);
    assert400(refused, 'INVALID_STATE_TRANSITION', ['status']);
    assert.match(refused.body.errors[0].message, /refunded instead/);
  });

  test("another merchant's transaction is 404", async () => {
    const t = await authorize();
    const other = await merchant(ctx.app);
    assert.equal((await post(`${T}/${t.id}/cancel`, undefined, other.devKey)).status, 404);
    assert.equal((await post(`${T}/${t.id}/capture`, {}, other.devKey)).status, 404);
  });
});

describe('process and expiry', () => {
  test('a pending card payment is paid server-to-server with card data, once', async () => {
    const t = (await post(T, body())).body.transaction;
    assert.equal(t.status, 'PENDING');
    const res = await post(`${T}/${t.id}/process`, { card: CARD });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.status, 'PAID');
    assert.equal(res.body.transaction.card.last4, '4242');
    assert400(await post(`${T}/${t.id}/process`, { card: CARD }), 'INVALID_STATE_TRANSITION');
    const auth = (await post(T, body())).body.transaction;
    assert.equal((await post(`${T}/${auth.id}/process`, { card: CARD, capture: false })).body.transaction.status, 'AUTHORIZED');
    const other = await merchant(ctx.app);
    const foreign = (await post(T, body())).body.transaction;
    assert.equal((await post(`${T}/${foreign.id}/process`, { card: CARD }, other.devKey)).status, 404);
  });

  test('an authorisation not captured in 7 days is voided and EXPIRED by the sweep', async () => {
    const t = await authorize();
    assert.equal(await expireAuthorizations(ctx.app.deps.transactions, new Date()), 0, 'not yet');
    await expireAuthorizations(ctx.app.deps.transactions, new Date(Date.now() + 7 * 86_400_000 + 60_000));
    const after = (await call(ctx.app, 'GET', `${T}/${t.id}`, { key: m.devKey })).body.transaction;
    assert.equal(after.status, 'EXPIRED');
    await assertLedgerBalanced(ctx.database.db);
  });
});
