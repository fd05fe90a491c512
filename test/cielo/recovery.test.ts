// Never charged twice, never refunded twice: Cielo does not deduplicate MerchantOrderId, so a sale
// whose answer was lost is looked up before anything is sent again; what stays unknown is left
// PENDING and settled by the janitor from Cielo's own records.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { settleUnknownCharges, settleUnknownRefunds } from '../../src/modules/transactions/service.ts';
import { cielo, ctx, journals, LATE_MS, orderOf, pay, post, refunds, row, saleOf, T, until } from './kit.ts';

const later = () => new Date(Date.now() + 5000);
const queries = (id: string) => cielo.calls('GET', '/1/sales').filter((c) => c.query.get('merchantOrderId') === orderOf(id));

describe('Cielo: a sale whose answer was lost', () => {
  test('made, answer lost: the sale found by MerchantOrderId is adopted (one sale at Cielo, PAID here)', async () => {
    cielo.dropAnswer('POST', '/1/sales');
    const tx = await pay();
    assert.equal(tx.status, 'PAID');
    const sale = saleOf(tx.id);
    assert.equal((await row(tx.id)).provider_ref, sale.paymentId);
    assert.equal(queries(tx.id).length, 1, 'asked once by MerchantOrderId');
    assert.deepEqual(await journals(tx.id), ['payment']);
  });

  test('an authorisation whose answer was lost is adopted as AUTHORIZED', async () => {
    cielo.dropAnswer('POST', '/1/sales');
    const tx = await pay({ capture: false });
    assert.equal(tx.status, 'AUTHORIZED');
    assert.equal(saleOf(tx.id).status, 1);
  });

  test('a 500 (nothing made): none found, sent once more with the same MerchantOrderId: one sale, PAID', async () => {
    cielo.failNext(1, 500, 'api');
    const tx = await pay();
    assert.equal(tx.status, 'PAID');
    saleOf(tx.id);
    const sent = cielo.calls('POST', '/1/sales').filter((c) => c.body?.MerchantOrderId === orderOf(tx.id));
    assert.deepEqual(sent.map((c) => c.status), [500, 201]);
  });

  test('500 twice: PENDING (no sale at Cielo); the janitor finds none and fails it (PROCESSING_ERROR), nothing booked', async () => {
    cielo.failNext(2, 500, 'api');
    const tx = await pay();
    assert.equal(tx.status, 'PENDING');
    assert.equal(cielo.salesOf(orderOf(tx.id)).length, 0);
    await settleUnknownCharges(ctx.app.deps.transactions, later());
    const r = await row(tx.id);
    assert.deepEqual([r.status, r.failure_reason], ['FAILED', 'PROCESSING_ERROR']);
    assert.deepEqual(await journals(tx.id), []);
  });

  test('a time-out is never sent again (the sale may still be under way): PENDING, then the janitor adopts the sale Cielo made', async () => {
    cielo.delayNext(1, LATE_MS); // the answer comes after the connector gave up
    const tx = await pay();
    assert.equal(tx.status, 'PENDING');
    await until(() => cielo.salesOf(orderOf(tx.id)).length === 1);
    await settleUnknownCharges(ctx.app.deps.transactions, later());
    const r = await row(tx.id);
    assert.deepEqual([r.status, r.provider_ref], ['PAID', saleOf(tx.id).paymentId]);
    assert.equal(cielo.calls('POST', '/1/sales').filter((c) => c.body?.MerchantOrderId === orderOf(tx.id)).length, 1, 'one POST only');
    assert.deepEqual(await journals(tx.id), ['payment']);
  });
});

describe('Cielo: captures and refunds whose answer was lost', () => {
  test('a capture whose answer was lost is confirmed from the sale (Status 2): PAID, captured once', async () => {
    const tx = await pay({ capture: false });
    cielo.dropAnswer('PUT', `/1/sales/${saleOf(tx.id).paymentId}/capture`);
    const res = await post(`${T}/${tx.id}/capture`);
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.transaction.status, 'PAID');
    assert.equal(saleOf(tx.id).capturedAmount, 15700);
    // A partial one too: confirmed only for the amount asked.
    const part = await pay({ capture: false });
    cielo.dropAnswer('PUT', `/1/sales/${saleOf(part.id).paymentId}/capture`);
    const partRes = await post(`${T}/${part.id}/capture`, { amountCents: 9000 });
    assert.equal(partRes.status, 200, partRes.raw);
    assert.deepEqual([partRes.body.transaction.status, partRes.body.transaction.chargedCents, saleOf(part.id).capturedAmount], ['PAID', 9000, 9000]);
  });

  test('a refund made whose answer was lost: PENDING, then the janitor sees it in VoidedAmount and records it: voided once', async () => {
    const tx = await pay();
    const id = saleOf(tx.id).paymentId;
    cielo.dropAnswer('PUT', `/1/sales/${id}/void`);
    const res = await post(`${T}/${tx.id}/refund`, { amountCents: 4000 });
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual((await refunds(tx.id)).map((r) => r.status), ['PENDING']);
    await settleUnknownRefunds(ctx.app.deps.transactions, later());
    assert.deepEqual((await refunds(tx.id)).map((r) => [r.status, r.provider_ref]), [['SUCCEEDED', id]]);
    assert.equal(saleOf(tx.id).voidedAmount, 4000);
    assert.equal(cielo.calls('PUT', `/1/sales/${id}/void`).length, 1, 'never sent twice');
  });

  test('a refund Cielo never made (500): the janitor finds nothing voided and sends it again once: voided once', async () => {
    const tx = await pay();
    const id = saleOf(tx.id).paymentId;
    await post(`${T}/${tx.id}/refund`, { amountCents: 3000 }); // an answered one first: it is not counted twice
    cielo.failNext(1, 500, 'api');
    const res = await post(`${T}/${tx.id}/refund`, { amountCents: 2000 });
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual((await refunds(tx.id)).map((r) => r.status), ['SUCCEEDED', 'PENDING']);
    await settleUnknownRefunds(ctx.app.deps.transactions, later());
    assert.deepEqual((await refunds(tx.id)).map((r) => r.status), ['SUCCEEDED', 'SUCCEEDED']);
    assert.equal(saleOf(tx.id).voidedAmount, 5000);
    assert.deepEqual(cielo.calls('PUT', `/1/sales/${id}/void`).map((c) => c.status), [200, 500, 200]);
    assert.equal((await row(tx.id)).refunded_cents, 5000);
  });

  test('two unanswered refunds, one made: the amounts cannot tell which, so neither is sent again nor recorded (a person checks)', async () => {
    const tx = await pay();
    const id = saleOf(tx.id).paymentId;
    cielo.dropAnswer('PUT', `/1/sales/${id}/void`);
    await post(`${T}/${tx.id}/refund`, { amountCents: 1000 });
    cielo.failNext(1, 500, 'api');
    await post(`${T}/${tx.id}/refund`, { amountCents: 2000 });
    await settleUnknownRefunds(ctx.app.deps.transactions, later());
    assert.deepEqual((await refunds(tx.id)).map((r) => r.status), ['PENDING', 'PENDING']);
    assert.equal(saleOf(tx.id).voidedAmount, 1000);
    assert.equal(cielo.calls('PUT', `/1/sales/${id}/void`).length, 2, 'nothing sent again');
    assert.ok(ctx.logs.join('').includes('the voided amount does not tell which unanswered refunds were made'));
  });
});
