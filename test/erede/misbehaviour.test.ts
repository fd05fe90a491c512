// e.Rede misbehaving, end to end with a production key: a sale whose answer is lost is found by
// reference and adopted (never charged twice), 500s and slow answers are asked about by reference
// before the one retry, the OAuth token is cached and fetched again after a 401, a refund whose
// answer was lost is found by the janitor; and failover from e.Rede to the next card connector.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { settleUnknownRefunds } from '../../src/modules/transactions/service.ts';
import { eredeReference } from '../../src/payments/erede/mapping.ts';
import { call } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { startWithErede, type EredeWorld } from './kit.ts';

describe('e.Rede misbehaving', () => {
  let w: EredeWorld;
  before(async () => {
    w = await startWithErede({ CARD_BREAKER_FAILURES: '1000' });
  });
  after(() => w.close());
  const posts = (id: string) => w.fake.calls('POST').filter((r) => r.path.endsWith('/transactions') && r.body?.reference === eredeReference(id));

  test('the answer of an approved sale is lost: found by reference and adopted, one sale only', async () => {
    w.fake.dropAnswer('POST');
    const tx = await w.pay();
    assert.equal(tx.status, 'PAID');
    const reference = eredeReference(tx.id);
    assert.equal(w.fake.salesWith(reference).length, 1);
    assert.equal(posts(tx.id).length, 1, 'not sent again: the lookup found it');
    assert.ok(w.fake.calls('GET').some((r) => r.query.get('reference') === reference));
    assert.equal((await w.row(tx.id)).provider_ref, w.fake.salesWith(reference)[0].tid);
    await assertLedgerBalanced(w.ctx.database.db);
  });

  test('a 500 before the sale: asked by reference (none), sent once more, approved', async () => {
    w.fake.failNext(1, 500);
    const tx = await w.pay();
    assert.equal(tx.status, 'PAID');
    const reference = eredeReference(tx.id);
    const order = w.fake.requests.filter((r) => r.body?.reference === reference || r.query.get('reference') === reference).map((r) => `${r.method} ${r.status}`);
    assert.deepEqual(order, ['POST 500', 'GET 404', 'POST 201']);
    assert.equal(w.fake.salesWith(reference).length, 1);
  });

  test('e.Rede down (500s): no sale, the transaction stays PENDING for the janitor, never two sales', async () => {
    w.fake.failNext(2, 503);
    const tx = await w.pay();
    // The sale's call failed, its lookup failed too: nothing can be said, nothing is retried.
    assert.equal(tx.status, 'PENDING');
    assert.equal(w.fake.salesWith(eredeReference(tx.id)).length, 0);
  });

  test('a slow answer past EREDE_TIMEOUT_MS: asked by reference (none yet), sent again and approved; the late one refused (42): one sale', async () => {
    w.fake.delayNext(1, 1500);
    const tx = await w.pay();
    assert.equal(tx.status, 'PAID');
    await new Promise((r) => setTimeout(r, 700)); // the slow request wakes up at e.Rede
    const reference = eredeReference(tx.id);
    assert.equal(w.fake.salesWith(reference).length, 1);
    assert.deepEqual(
      posts(tx.id).map((r) => r.status),
      [201, 400],
    );
    assert.equal((await w.row(tx.id)).provider_ref, w.fake.salesWith(reference)[0].tid);
  });

  test('the OAuth token is fetched once and reused; a 401 fetches a new one and the call goes through', async () => {
    const before = w.fake.tokensIssued;
    await w.pay();
    await w.pay();
    assert.equal(w.fake.tokensIssued, before, 'cached until it expires');
    w.fake.unauthorizedOnce();
    const tx = await w.pay();
    assert.equal(tx.status, 'PAID');
    assert.equal(w.fake.tokensIssued, before + 1);
  });

  test('a refund whose answer is lost: the janitor finds it at e.Rede (by amount, unclaimed) and does not refund twice', async () => {
    const tx = await w.pay();
    await call(w.ctx.app, 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: w.m.liveKey, body: { amountCents: 1500 } });
    w.fake.dropAnswer('POST', '/');
    const res = await call(w.ctx.app, 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: w.m.liveKey, body: { amountCents: 1500 } });
    assert.equal(res.status, 200, res.raw);
    const [sale] = w.fake.salesWith(eredeReference(tx.id));
    assert.equal(sale.refunds.length, 2, 'e.Rede made the second refund');
    await settleUnknownRefunds(w.ctx.app.deps.transactions, new Date(Date.now() + w.ctx.config.janitorGraceSeconds * 1000 + 1000));
    const rows = await w.ctx.database.db.selectFrom('refunds').select(['status', 'provider_ref']).where('transaction_id', '=', tx.id).orderBy('created_at').execute();
    assert.deepEqual(
      rows.map((r) => [r.status, r.provider_ref]),
      sale.refunds.map((r) => ['SUCCEEDED', r.refundId]),
    );
    assert.equal(sale.refunds.length, 2, 'not sent again');
    await assertLedgerBalanced(w.ctx.database.db);
  });
});

describe('failover from e.Rede to the next card connector (CARD_PROVIDER=erede,sandbox)', () => {
  let w: EredeWorld;
  before(async () => {
    w = await startWithErede({ CARD_PROVIDER: 'erede,sandbox', CARD_BREAKER_FAILURES: '2', CARD_BREAKER_COOLDOWN_SECONDS: '3600' });
  });
  after(() => w.close());

  test('e.Rede answers 500s and its lookup finds no sale: the sandbox approves, owns the payment, takes the refund', async () => {
    // The sale and its one retry answer 500 (the lookup between them finds none); the core's lookup then confirms none.
    w.fake.failNext(2, 500, 'POST');
    const tx = await w.pay();
    assert.equal(tx.status, 'PAID');
    assert.equal((await w.row(tx.id)).provider, 'sandbox');
    assert.equal(w.fake.salesWith(eredeReference(tx.id)).length, 0);
    const shown = await w.get(tx.id);
    assert.deepEqual(
      shown.attempts.map((a: { connector: string; outcome: string }) => [a.connector, a.outcome]),
      [
        ['erede', 'UNAVAILABLE'],
        ['sandbox', 'APPROVED'],
      ],
    );
    const refund = await call(w.ctx.app, 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: w.m.liveKey, body: {} });
    assert.equal(refund.status, 200, refund.raw);
    assert.equal(w.fake.calls('POST', '/').length, 0, 'no refund asked of e.Rede');
    await assertLedgerBalanced(w.ctx.database.db);
  });

  test('e.Rede lost the answer of a sale it made: adopted from e.Rede, the sandbox never asked', async () => {
    w.fake.dropAnswer('POST');
    const tx = await w.pay();
    assert.equal(tx.status, 'PAID');
    assert.equal((await w.row(tx.id)).provider, 'erede');
    assert.equal(w.fake.salesWith(eredeReference(tx.id)).length, 1);
  });

  test('a decline at e.Rede never fails over', async () => {
    const tx = await w.pay({ card: { number: '4000000000009995', holderName: 'Ana Souza', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvv: '123' } });
    assert.equal(tx.status, 'FAILED');
    assert.equal(tx.failureReason, 'INSUFFICIENT_FUNDS');
    assert.equal((await w.row(tx.id)).provider, 'erede');
  });
});
