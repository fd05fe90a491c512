// A request whose work committed but whose answer was never stored (its process died before onSend,
// or a 5xx came after the commit): a retry with the same Idempotency-Key, even once the claim's
// lease has run out, replays the answer committed with the work and never does the work again
// (found by `npm run rehearsal`: withdrawals and refunds made twice after a SIGKILL).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { CompiledQuery } from 'kysely';
import { call, cpf, merchant, startApp, type Merchant, type Res, type TestContext } from './helpers.ts';
import { paidPix } from './wallet-helpers.ts';

let ctx: TestContext;
before(async () => {
  ctx = await startApp();
});
after(() => ctx.close());

/** The answer onSend stores is lost while `fn` runs, as if the process died right after the work. */
async function answerLost<T>(fn: () => Promise<T>): Promise<T> {
  const db = ctx.app.deps.db;
  const executeQuery = db.executeQuery;
  db.executeQuery = ((q: CompiledQuery) => (/^UPDATE idempotency_keys SET response_status/.test(q.sql) ? Promise.reject(new Error('process died')) : executeQuery.call(db, q))) as typeof db.executeQuery;
  try {
    return await fn();
  } finally {
    db.executeQuery = executeQuery;
  }
}

/** The claim's lease runs out (the retry may take over a key that holds no answer). */
const leaseOver = (m: Merchant, key: string) => sql`UPDATE idempotency_keys SET created_at = created_at - interval '5 minutes' WHERE user_id = ${m.id} AND key = ${key}`.execute(ctx.app.deps.db);

/** `send` whose answer is lost, then, once the lease is over, sent again: the retry's answer. */
async function retriedAfterCrash(m: Merchant, key: string, send: () => Promise<Res>): Promise<Res> {
  const first = await answerLost(send);
  assert.ok(first.status >= 500, `the client saw no answer: ${first.status}`);
  await leaseOver(m, key);
  return send();
}

const count = async (table: 'withdrawals' | 'refunds', m: Merchant) => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE user_id = ${m.id}`.execute(ctx.app.deps.db)).rows[0].n);

describe('the answer of a request whose work committed is lost', () => {
  test('withdrawal: the retry after the lease replays 201 with the same withdrawal; one withdrawal', async () => {
    const m = await merchant(ctx.app);
    await paidPix(ctx.app, { key: m.devKey }, 50_000);
    const send = () => call(ctx.app, 'POST', '/api/withdraws', { key: m.devKey, body: { amountCents: 10_000, pixKeyType: 'email', pixKey: 'loja@example.com' }, headers: { 'idempotency-key': 'saque-1' } });
    const retry = await retriedAfterCrash(m, 'saque-1', send);
    assert.equal(retry.status, 201, retry.raw);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(await count('withdrawals', m), 1);
    assert.equal(retry.body.data.amountCents, 10_000);
  });

  test('refund: the retry replays the refunded transaction; one refund', async () => {
    const m = await merchant(ctx.app);
    const id = await paidPix(ctx.app, { key: m.devKey }, 30_000);
    const send = () => call(ctx.app, 'POST', `/api/v1/transactions/${id}/refund`, { key: m.devKey, body: { amountCents: 5_000 }, headers: { 'idempotency-key': 'estorno-1' } });
    const retry = await retriedAfterCrash(m, 'estorno-1', send);
    assert.equal(retry.status, 200, retry.raw);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.body.transaction.status, 'PARTIALLY_REFUNDED');
    assert.equal(retry.body.transaction.refundedCents, 5_000);
    assert.equal(await count('refunds', m), 1);
  });

  test('subscription created by card: the retry replays it; one subscription, one charge', async () => {
    const m = await merchant(ctx.app);
    const plan = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY' } });
    const body = { planId: plan.body.plan.id, paymentMethod: 'CARD', card: { number: '4242424242424242', holderName: 'Ana Souza', expMonth: 12, expYear: 2035, cvv: '123' }, client: { name: 'Ana Souza', email: 'ana@example.com', document: cpf() } };
    const send = () => call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body, headers: { 'idempotency-key': 'assinatura-1' } });
    const retry = await retriedAfterCrash(m, 'assinatura-1', send);
    assert.equal(retry.status, 201, retry.raw);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    const subs = await sql<{ n: string }>`SELECT count(*) AS n FROM subscriptions WHERE user_id = ${m.id}`.execute(ctx.app.deps.db);
    assert.equal(Number(subs.rows[0].n), 1);
    const charges = await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE user_id = ${m.id} AND status = 'PAID'`.execute(ctx.app.deps.db);
    assert.equal(Number(charges.rows[0].n), 1);
  });

  test("a subscription's clock moved by an interrupted request: the retry resumes to the same day, never further", async () => {
    const m = await merchant(ctx.app);
    const plan = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY' } });
    const sub = await call(ctx.app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: plan.body.plan.id, paymentMethod: 'CARD', card: { number: '4242424242424242', holderName: 'Ana Souza', expMonth: 12, expYear: 2035, cvv: '123' }, client: { name: 'Ana Souza', email: 'ana@example.com', document: cpf() } } });
    assert.equal(sub.status, 201, sub.raw);
    const id = sub.body.subscription.id;
    const send = () => call(ctx.app, 'POST', `/api/v1/subscriptions/${id}/simulate`, { key: m.devKey, body: { advanceDays: 31 }, headers: { 'idempotency-key': 'relogio-1' } });
    const retry = await retriedAfterCrash(m, 'relogio-1', send);
    assert.equal(retry.status, 200, retry.raw);
    const clock = await sql<{ ms: string }>`SELECT clock_offset_ms AS ms FROM subscriptions WHERE id = ${id}`.execute(ctx.app.deps.db);
    assert.equal(Number(clock.rows[0].ms), 31 * 86_400_000, 'moved 31 days once');
    const paid = await sql<{ n: string }>`SELECT count(*) AS n FROM subscription_cycles WHERE subscription_id = ${id} AND status = 'PAID'`.execute(ctx.app.deps.db);
    assert.equal(Number(paid.rows[0].n), 2, 'the first cycle and one renewal');
  });
});
