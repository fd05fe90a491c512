// e.Rede end to end with a production key: a sale, an authorisation captured (in part), one voided,
// refunds (partial, then the rest), declines mapped to Cofre's reasons; every request the fake
// checked; no card number in a log line or a table; the ledger balanced.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eredeReference } from '../../src/payments/erede/mapping.ts';
import { call } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { CARD, SOFT_DESCRIPTOR, startWithErede, type EredeWorld } from './kit.ts';

describe('e.Rede: sales, captures, voids, refunds, declines', () => {
  let w: EredeWorld;
  before(async () => {
    w = await startWithErede();
  });
  after(() => w.close());

  test('a sale: one POST under a 16-character reference derived from the transaction id, PAID, the tid kept', async () => {
    const tx = await w.pay({ installments: 3 });
    assert.equal(tx.status, 'PAID');
    const reference = eredeReference(tx.id);
    assert.match(reference, /^[0-9A-Z]{16}$/);
    assert.equal(eredeReference(tx.id), reference, 'deterministic');
    const [sale] = w.fake.salesWith(reference);
    assert.ok(sale.capture, 'captured at once');
    assert.equal(sale.amount, tx.chargedCents);
    assert.equal(sale.installments, 3);
    assert.equal(sale.softDescriptor, SOFT_DESCRIPTOR);
    assert.equal(sale.cardHolderName, 'Ana Souza');
    assert.equal((await w.row(tx.id)).provider_ref, sale.tid);
    const [post] = w.fake.calls('POST').filter((r) => r.body?.reference === reference);
    assert.equal(post.body?.kind, 'credit');
    assert.equal(post.body?.capture, true);
    assert.equal(post.status, 201);
    const single = await w.pay();
    assert.equal(w.fake.calls('POST').find((r) => r.body?.reference === eredeReference(single.id))?.body?.installments, undefined, 'à vista: installments absent');
    await assertLedgerBalanced(w.ctx.database.db);
  });

  test('an authorisation, captured in part: AUTHORIZED, then PAID for the captured amount at e.Rede', async () => {
    const tx = await w.pay({ capture: false });
    assert.equal(tx.status, 'AUTHORIZED');
    const [sale] = w.fake.salesWith(eredeReference(tx.id));
    assert.equal(sale.capture, null);
    const captured = await call(w.ctx.app, 'POST', `/api/v1/transactions/${tx.id}/capture`, { key: w.m.liveKey, body: { amountCents: 6000 } });
    assert.equal(captured.status, 200, captured.raw);
    assert.equal(captured.body.transaction.status, 'PAID');
    assert.equal(w.fake.salesWith(eredeReference(tx.id))[0].capture?.amount, 6000);
    assert.equal(w.fake.calls('PUT').at(-1)?.body?.amount, 6000);
    await assertLedgerBalanced(w.ctx.database.db);
  });

  test('a void: the whole authorisation cancelled at e.Rede (a refund of its amount), CANCELLED here', async () => {
    const tx = await w.pay({ capture: false });
    const cancelled = await call(w.ctx.app, 'POST', `/api/v1/transactions/${tx.id}/cancel`, { key: w.m.liveKey, body: {} });
    assert.equal(cancelled.status, 200, cancelled.raw);
    assert.equal(cancelled.body.transaction.status, 'CANCELLED');
    const [sale] = w.fake.salesWith(eredeReference(tx.id));
    assert.equal(sale.status, 'Canceled');
    assert.deepEqual(
      sale.refunds.map((r) => r.amount),
      [tx.chargedCents],
    );
    await assertLedgerBalanced(w.ctx.database.db);
  });

  test('refunds: a part, then the rest; e.Rede holds both under the sale, the refunds SUCCEEDED', async () => {
    const tx = await w.pay();
    const first = await call(w.ctx.app, 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: w.m.liveKey, body: { amountCents: 2500 } });
    assert.equal(first.status, 200, first.raw);
    assert.equal(first.body.transaction.status, 'PARTIALLY_REFUNDED');
    const rest = await call(w.ctx.app, 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: w.m.liveKey, body: {} });
    assert.equal(rest.status, 200, rest.raw);
    assert.equal(rest.body.transaction.status, 'REFUNDED');
    const [sale] = w.fake.salesWith(eredeReference(tx.id));
    assert.deepEqual(
      sale.refunds.map((r) => r.amount),
      [2500, tx.chargedCents - 2500],
    );
    const rows = await w.ctx.database.db.selectFrom('refunds').select(['status', 'provider_ref', 'provider']).where('transaction_id', '=', tx.id).orderBy('created_at').execute();
    assert.deepEqual(
      rows.map((r) => [r.status, r.provider, r.provider_ref]),
      sale.refunds.map((r) => ['SUCCEEDED', 'erede', r.refundId]),
    );
    await assertLedgerBalanced(w.ctx.database.db);
  });

  test('a refund e.Rede only received (360) stays PENDING until its sweep finds it Done', async () => {
    const tx = await w.pay();
    w.fake.refundsPending = true;
    try {
      const res = await call(w.ctx.app, 'POST', `/api/v1/transactions/${tx.id}/refund`, { key: w.m.liveKey, body: { amountCents: 1000 } });
      assert.equal(res.status, 200, res.raw);
      const refund = await w.ctx.database.db.selectFrom('refunds').select(['id', 'status', 'provider_ref']).where('transaction_id', '=', tx.id).executeTakeFirstOrThrow();
      assert.equal(refund.status, 'PENDING');
      const sweep = w.ctx.app.deps.connectors.edges('erede')?.sweeps.find((s) => s.name === 'refunds');
      assert.ok(sweep);
      await sweep.run(new Date(Date.now() + 120_000));
      assert.equal((await w.ctx.database.db.selectFrom('refunds').select('status').where('id', '=', refund.id).executeTakeFirstOrThrow()).status, 'PENDING', 'still Processing there');
      w.fake.decideRefund(refund.provider_ref!, 'Done');
      await sweep.run(new Date(Date.now() + 240_000));
      assert.equal((await w.ctx.database.db.selectFrom('refunds').select('status').where('id', '=', refund.id).executeTakeFirstOrThrow()).status, 'SUCCEEDED');
    } finally {
      w.fake.refundsPending = false;
    }
    await assertLedgerBalanced(w.ctx.database.db);
  });

  test('declines: returnCode mapped to the reasons Cofre tells (insufficient funds, CVV, expired, locked), never failed over', async () => {
    const cases: Array<[string, string, string]> = [
      ['4000000000000002', 'CARD_DECLINED', '101'],
      ['4000000000009995', 'INSUFFICIENT_FUNDS', '111'],
      ['4000000000000127', 'INCORRECT_CVV', '119'],
      ['4000000000000069', 'EXPIRED_CARD', '112'],
      ['4000000000009979', 'STOLEN_CARD', '118'],
    ];
    for (const [number, reason, code] of cases) {
      const tx = await w.pay({ card: { ...CARD, number } });
      assert.equal(tx.status, 'FAILED', number);
      assert.equal(tx.failureReason, reason, number);
      const attempt = await w.ctx.database.db.selectFrom('card_attempts').select(['outcome', 'return_code']).where('transaction_id', '=', tx.id).executeTakeFirstOrThrow();
      assert.deepEqual(attempt, { outcome: 'DECLINED', return_code: code });
    }
    await assertLedgerBalanced(w.ctx.database.db);
  });

  test('a contract refusal (soft descriptor not enabled for the PV, 63) fails the sale as PROCESSING_ERROR and is logged as an integration error', async () => {
    w.fake.softDescriptorEnabled = false;
    try {
      const tx = await w.pay();
      assert.equal(tx.status, 'FAILED');
      assert.equal(tx.failureReason, 'PROCESSING_ERROR');
      assert.ok(w.ctx.logs.some((l) => l.includes('"returnCode":"63"') && l.includes('not the card')));
    } finally {
      w.fake.softDescriptorEnabled = true;
    }
  });

  test('the holder name as e.Rede takes it: no accents nor symbols, at most 30 characters', async () => {
    const tx = await w.pay({ card: { ...CARD, holderName: "João D'Ávila Sôuza-Pereira de Albuquerque" } });
    assert.equal(tx.status, 'PAID');
    const [sale] = w.fake.salesWith(eredeReference(tx.id));
    assert.equal(sale.cardHolderName, 'Joao D Avila Souza Pereira de');
  });

  test('no card number nor code in a log line, a table or the fake’s own request log', async () => {
    const logs = w.ctx.logs.join('\n');
    assert.ok(!logs.includes(CARD.number), 'a PAN in the logs');
    const dump = JSON.stringify(await w.ctx.database.db.selectFrom('transactions').selectAll().execute()) + JSON.stringify(await w.ctx.database.db.selectFrom('card_attempts').selectAll().execute());
    assert.ok(!dump.includes(CARD.number));
    assert.ok(w.fake.requests.every((r) => r.body?.cardNumber === undefined || r.body.cardNumber === '****'));
  });
});
