// Production card payments through Cielo, end to end over the API: a sale, instalments, authorise
// then capture (all or part), void, refunds in part and in full, and a decline for each ReturnCode
// the connector maps. Each request the fake received is checked against what was asked.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { card, cielo, ctx, get, journals, orderOf, pay, post, refunds, row, saleOf, T, YEAR } from './kit.ts';

describe('Cielo: sales', () => {
  test('a sale: POST /1/sales/ with our id as MerchantOrderId, captured; PAID with the PaymentId as provider_ref', async () => {
    const before = cielo.calls('POST', '/1/sales').length;
    const tx = await pay();
    assert.equal(tx.status, 'PAID');
    const sale = saleOf(tx.id);
    assert.deepEqual([sale.status, sale.capturedAmount, sale.amount, sale.installments, sale.interest, sale.softDescriptor, sale.brand, sale.expirationDate], [2, 15700, 15700, 1, 'ByMerchant', 'LOJA COFRE', 'Visa', `07/${YEAR}`]);
    const r = await row(tx.id);
    assert.deepEqual([r.provider, r.provider_ref], ['cielo', sale.paymentId]);
    const sent = cielo.calls('POST', '/1/sales').slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].body.MerchantOrderId, orderOf(tx.id));
    assert.equal(sent[0].body.Customer.Name, 'Ana Souza');
    assert.equal(sent[0].body.Payment.Capture, true);
    assert.equal(sent[0].body.Payment.CreditCard.SecurityCode, '321');
    assert.deepEqual(await journals(tx.id), ['payment']);
  });

  test('sales of one merchant at once (their PAID changes batched): each try APPROVED with its latency, each sale its instalments', async () => {
    const txs = await Promise.all(Array.from({ length: 12 }, (_, i) => pay({ installments: 1 + (i % 3) })));
    const db = ctx.app.deps.db;
    const ids = txs.map((t) => t.id);
    const tries = await db.selectFrom('card_attempts').select(['transaction_id', 'connector', 'outcome', 'latency_ms']).where('transaction_id', 'in', ids).execute();
    assert.equal(tries.length, ids.length);
    for (const t of tries) assert.ok(t.outcome === 'APPROVED' && t.connector === 'cielo' && t.latency_ms !== null, JSON.stringify(t));
    const instalments = await db.selectFrom('receivables').select(['transaction_id', 'amount_cents']).where('transaction_id', 'in', ids).execute();
    for (const tx of txs) {
      const mine = instalments.filter((r) => r.transaction_id === tx.id);
      assert.equal(mine.length, tx.installments, `instalments of ${tx.id}`);
      assert.equal(mine.reduce((a, r) => a + Number(r.amount_cents), 0), tx.netAmountCents);
    }
    await assertLedgerBalanced(db);
  });

  test('every call carries MerchantId, MerchantKey and a fresh RequestId', async () => {
    await pay();
    const ids = cielo.requests.map((r) => r.headers.requestid);
    assert.equal(new Set(ids).size, ids.length, 'a RequestId per call');
    assert.ok(cielo.requests.every((r) => r.headers.merchantid === cielo.merchantId && r.headers.merchantkey === cielo.merchantKey));
  });

  test('instalments: Installments as asked, Amount what the customer pays (interest included); Mastercard as "Master"', async () => {
    const tx = await pay({ installments: 6 });
    const sale = saleOf(tx.id);
    assert.equal(sale.installments, 6);
    assert.equal(sale.amount, tx.chargedCents);
    const master = await pay({ card: { ...card(), number: '5555555555554444' } });
    assert.equal(saleOf(master.id).brand, 'Master');
  });
});

describe('Cielo: authorise, capture, void', () => {
  test('capture: false authorises only (Capture false); a full capture takes it all', async () => {
    const tx = await pay({ capture: false });
    assert.equal(tx.status, 'AUTHORIZED');
    assert.equal(saleOf(tx.id).status, 1);
    assert.deepEqual(await journals(tx.id), [], 'nothing credited before the capture');
    const res = await post(`${T}/${tx.id}/capture`);
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.status, 'PAID');
    assert.deepEqual([saleOf(tx.id).status, saleOf(tx.id).capturedAmount], [2, 15700]);
    assert.deepEqual(cielo.calls('PUT', `/1/sales/${saleOf(tx.id).paymentId}/capture`).map((c) => c.query.get('amount')), ['15700']);
  });

  test('a partial capture takes part (capture?amount=), the rest of the hold released; PAID for what was taken', async () => {
    const tx = await pay({ capture: false });
    const res = await post(`${T}/${tx.id}/capture`, { amountCents: 10000 });
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual([res.body.transaction.status, res.body.transaction.chargedCents], ['PAID', 10000]);
    assert.equal(saleOf(tx.id).capturedAmount, 10000);
    // Captured once: a second capture is refused here and never reaches Cielo.
    const again = await post(`${T}/${tx.id}/capture`);
    assert.equal(again.status, 400);
    assert.equal(cielo.calls('PUT', `/1/sales/${saleOf(tx.id).paymentId}/capture`).length, 1);
  });

  test('cancelling an authorisation voids it whole at Cielo (void?amount= of what it holds): CANCELLED', async () => {
    const tx = await pay({ capture: false });
    const res = await post(`${T}/${tx.id}/cancel`);
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.status, 'CANCELLED');
    const sale = saleOf(tx.id);
    assert.deepEqual([sale.status, sale.voidedAmount], [10, 15700]);
  });
});

describe('Cielo: refunds', () => {
  test('a partial refund then the rest: each a void?amount= of its own amount; SUCCEEDED, REFUNDED, ledger balanced', async () => {
    const tx = await pay();
    const part = await post(`${T}/${tx.id}/refund`, { amountCents: 5000 });
    assert.equal(part.status, 200, part.raw);
    assert.equal(part.body.transaction.status, 'PARTIALLY_REFUNDED');
    assert.deepEqual([saleOf(tx.id).voidedAmount, saleOf(tx.id).status], [5000, 2]);
    const rest = await post(`${T}/${tx.id}/refund`, {});
    assert.equal(rest.status, 200, rest.raw);
    assert.equal(rest.body.transaction.status, 'REFUNDED');
    assert.deepEqual([saleOf(tx.id).voidedAmount, saleOf(tx.id).status], [15700, 10]);
    assert.deepEqual((await refunds(tx.id)).map((r) => [r.amount_cents, r.status]), [[5000, 'SUCCEEDED'], [10700, 'SUCCEEDED']]);
    assert.deepEqual(cielo.calls('PUT', `/1/sales/${saleOf(tx.id).paymentId}/void`).map((c) => c.query.get('amount')), ['5000', '10700']);
    assert.equal((await get(tx.id)).refundedCents, 15700);
  });
});

describe('Cielo: declines, one per mapped ReturnCode', () => {
  // The sandbox's last digits (2 "05", 3 "57", 5 "78", 6 "99", 7 "77", 8 "70") and forced codes.
  const byCard: Array<[string, string]> = [['2', 'CARD_DECLINED'], ['3', 'EXPIRED_CARD'], ['5', 'STOLEN_CARD'], ['6', 'PROCESSING_ERROR'], ['7', 'STOLEN_CARD'], ['8', 'INVALID_CARD']];
  for (const [last, reason] of byCard) {
    test(`a card ending in ${last} is declined: FAILED ${reason}, nothing booked`, async () => {
      const tx = await pay({ card: card(last) });
      assert.deepEqual([tx.status, tx.failureReason], ['FAILED', reason]);
      assert.equal(saleOf(tx.id).status, 3);
      assert.deepEqual(await journals(tx.id), []);
    });
  }
  const forced: Array<[string, string]> = [['51', 'INSUFFICIENT_FUNDS'], ['54', 'EXPIRED_CARD'], ['59', 'SUSPECTED_FRAUD'], ['14', 'INVALID_CARD'], ['N7', 'INCORRECT_CVV'], ['4', 'PROCESSING_ERROR'], ['62', 'CARD_DECLINED']];
  for (const [code, reason] of forced) {
    test(`ReturnCode ${code} -> FAILED ${reason}`, async () => {
      cielo.declineNext(code, 'Transacao nao autorizada');
      const tx = await pay();
      assert.deepEqual([tx.status, tx.failureReason], ['FAILED', reason]);
    });
  }
});
