// Cielo's Notification Post at /api/psp/cielo/notifications: refused without the secret header
// (401), and never believed: the sale is read from Cielo before anything changes; repeated and late
// notifications change nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { call } from '../helpers.ts';
import { cielo, ctx, journals, LATE_MS, notificationUrl, orderOf, pay, post, refunds, row, saleOf, T, until } from './kit.ts';

const saleReads = (paymentId: string) => cielo.calls('GET', `/1/sales/${paymentId}`).length;
const eventsOf = async (id: string) => (await ctx.app.deps.db.selectFrom('events').select('type').where('data', '@>', JSON.stringify({ id }) as never).execute()).map((e) => e.type).sort();

/** A payment left PENDING here while Cielo made the sale (its answer came after the time limit). */
async function pendingButMade(capture = true) {
  cielo.delayNext(1, LATE_MS);
  const tx = await pay({ capture });
  assert.equal(tx.status, 'PENDING');
  await until(() => cielo.salesOf(orderOf(tx.id)).length === 1);
  return { tx, sale: saleOf(tx.id) };
}

describe('Cielo notifications: the secret header', () => {
  test('without X-Notification-Secret, or with another value: 401, Cielo not even asked, nothing changes', async () => {
    const { tx, sale } = await pendingButMade();
    assert.equal(await cielo.notify(notificationUrl(), sale.paymentId, { secret: 'missing' }), 401);
    assert.equal(await cielo.notify(notificationUrl(), sale.paymentId, { secret: 'wrong' }), 401);
    const bare = await call(ctx.app, 'POST', '/api/psp/cielo/notifications', { body: { PaymentId: sale.paymentId, ChangeType: 1 } });
    assert.equal(bare.status, 401);
    assert.match(bare.body.message, /X-Notification-Secret/);
    assert.equal(saleReads(sale.paymentId), 0);
    assert.equal((await row(tx.id)).status, 'PENDING');
  });
});

describe('Cielo notifications: confirmed with Cielo', () => {
  test('a sale Cielo confirmed: read from Cielo, applied (PAID with its PaymentId); repeated, nothing changes', async () => {
    const { tx, sale } = await pendingButMade();
    assert.equal(await cielo.notify(notificationUrl(), sale.paymentId), 200);
    assert.equal(saleReads(sale.paymentId), 1, 'confirmed with GET /1/sales/{PaymentId}');
    const r = await row(tx.id);
    assert.deepEqual([r.status, r.provider_ref], ['PAID', sale.paymentId]);
    const events = await eventsOf(tx.id);
    for (let i = 0; i < 3; i++) assert.equal(await cielo.notify(notificationUrl(), sale.paymentId), 200);
    assert.deepEqual(await journals(tx.id), ['payment'], 'booked once');
    assert.deepEqual(await eventsOf(tx.id), events, 'no event for the repeats');
  });

  test('a sale Cielo denied: FAILED with the mapped reason', async () => {
    cielo.delayNext(1, LATE_MS);
    cielo.declineNext('51', 'Saldo insuficiente');
    const tx = await pay();
    await until(() => cielo.salesOf(orderOf(tx.id)).length === 1);
    assert.equal(await cielo.notify(notificationUrl(), saleOf(tx.id).paymentId), 200);
    const r = await row(tx.id);
    assert.deepEqual([r.status, r.failure_reason], ['FAILED', 'INSUFFICIENT_FUNDS']);
    assert.equal(await cielo.notify(notificationUrl(), saleOf(tx.id).paymentId), 200, 'a repeat on a FAILED payment is fine');
  });

  test('an authorisation captured at Cielo (its site): PAID; a late notification of the earlier state changes nothing', async () => {
    const tx = await pay({ capture: false });
    const sale = saleOf(tx.id);
    // Captured outside Cofre (Cielo's site): the fake's record changes as Cielo's would.
    sale.status = 2;
    sale.capturedAmount = sale.amount;
    assert.equal(await cielo.notify(notificationUrl(), sale.paymentId), 200);
    assert.equal((await row(tx.id)).status, 'PAID');
    assert.equal(await cielo.notify(notificationUrl(), sale.paymentId, { changeType: 1 }), 200);
    assert.deepEqual(await journals(tx.id), ['payment']);
  });

  test('a refund whose answer was lost is recorded when Cielo notifies the void', async () => {
    const tx = await pay();
    const id = saleOf(tx.id).paymentId;
    cielo.dropAnswer('PUT', `/1/sales/${id}/void`);
    await post(`${T}/${tx.id}/refund`, { amountCents: 1500 });
    assert.deepEqual((await refunds(tx.id)).map((r) => r.status), ['PENDING']);
    assert.equal(await cielo.notify(notificationUrl(), id), 200);
    assert.deepEqual((await refunds(tx.id)).map((r) => r.status), ['SUCCEEDED']);
    assert.equal(await cielo.notify(notificationUrl(), id), 200);
    assert.deepEqual((await refunds(tx.id)).map((r) => r.status), ['SUCCEEDED']);
    assert.equal((await row(tx.id)).refunded_cents, 1500);
  });

  test('unknown sales, another order\'s sale and malformed ids are ignored (200, nothing changes)', async () => {
    assert.equal(await cielo.notify(notificationUrl(), randomUUID()), 200);
    assert.equal(await cielo.notify(notificationUrl(), 'not-a-guid'), 200);
    const tx = await pay();
    const before = await row(tx.id);
    // A second sale under the same MerchantOrderId (made at Cielo by someone else): not this payment's.
    const other = { ...saleOf(tx.id), paymentId: randomUUID() };
    cielo.sales.set(other.paymentId, other);
    assert.equal(await cielo.notify(notificationUrl(), other.paymentId), 200);
    assert.deepEqual(await row(tx.id), before);
    cielo.sales.delete(other.paymentId);
  });

  test('Cielo unreachable while confirming: 503 (Cielo sends it again), then applied', async () => {
    const { tx, sale } = await pendingButMade();
    cielo.failNext(2, 503, 'query');
    assert.equal(await cielo.notify(notificationUrl(), sale.paymentId), 503);
    assert.equal((await row(tx.id)).status, 'PENDING');
    assert.equal(await cielo.notify(notificationUrl(), sale.paymentId), 200);
    assert.equal((await row(tx.id)).status, 'PAID');
  });
});
