// The fake Cielo itself: it checks what Cielo checks, answers in Cielo's shapes, follows the
// sandbox's last-digit table, and misbehaves when asked.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { cardEnding } from './cards.ts';
import { httpsCall } from './https-call.ts';
import { startFakeCielo, type FakeCielo } from './server.ts';

const OK = cardEnding('1');
let cielo: FakeCielo;
before(async () => {
  cielo = await startFakeCielo();
});
after(() => cielo.close());

async function req(host: 'api' | 'query', method: string, path: string, body?: unknown, headers: Record<string, string> = {}, to = cielo): Promise<{ status: number; body: any }> {
  const base = host === 'api' ? to.apiUrl : to.queryUrl;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const h = { 'content-type': 'application/json', MerchantId: to.merchantId, MerchantKey: to.merchantKey, RequestId: randomUUID(), ...headers };
  return httpsCall(base + path, { method, headers: h, payload, caFile: to.caFile });
}

const sale = (number: string, over: Record<string, unknown> = {}) => ({
  MerchantOrderId: randomUUID().replace(/-/g, ''),
  Customer: { Name: 'Ana Souza' },
  Payment: { Type: 'CreditCard', Amount: 15700, Installments: 1, Interest: 'ByMerchant', Capture: false, SoftDescriptor: 'LOJA', CreditCard: { CardNumber: number, Holder: 'ANA SOUZA', ExpirationDate: '12/2030', SecurityCode: '123', Brand: 'Visa' }, ...over },
});

describe('the fake Cielo', () => {
  test('headers: MerchantId and MerchantKey must be the merchant\'s, RequestId a GUID, JSON content type', async () => {
    assert.equal((await req('api', 'POST', '/1/sales/', sale(OK), { MerchantKey: 'WRONG' })).status, 401);
    const noRequestId = await req('api', 'POST', '/1/sales/', sale(OK), { RequestId: 'x' });
    assert.deepEqual([noRequestId.status, noRequestId.body[0].Code], [400, 100]);
    assert.equal((await req('api', 'POST', '/1/sales/', sale(OK), { 'content-type': 'text/plain' })).status, 400);
    assert.equal(cielo.sales.size, 0);
  });

  test('fields: MerchantOrderId charset, Amount, Installments 1-12, SoftDescriptor <= 13, MM/YYYY, Brand', async () => {
    const code = async (b: unknown) => (await req('api', 'POST', '/1/sales/', b)).body[0].Code;
    assert.equal(await code({ ...sale(OK), MerchantOrderId: 'with-hyphens' }), 107);
    assert.equal(await code(sale(OK, { Amount: 0 })), 108);
    assert.equal(await code(sale(OK, { Installments: 13 })), 0);
    assert.equal(await code(sale(OK, { SoftDescriptor: 'FOURTEEN CHARS' })), 0);
    const s = sale(OK);
    s.Payment.CreditCard.ExpirationDate = '12/30';
    assert.equal(await code(s), 126);
    const b = sale(OK);
    b.Payment.CreditCard.Brand = 'Mastercard';
    assert.equal(await code(b), 0);
    assert.equal(cielo.sales.size, 0);
  });

  test('the sandbox table decides: final 1 authorised (Status 1, ReturnCode 4), final 2 "05", 3 "57", 5 "78", 6 "99", 7 "77", 8 "70"', async () => {
    const ok = await req('api', 'POST', '/1/sales/', sale(OK));
    assert.equal(ok.status, 201);
    assert.deepEqual([ok.body.Payment.Status, ok.body.Payment.ReturnCode], [1, '4']);
    assert.match(ok.body.Payment.PaymentId, /^[0-9a-f-]{36}$/);
    assert.equal(ok.body.Payment.CreditCard.CardNumber, `${OK.slice(0, 6)}******${OK.slice(-4)}`);
    for (const [last, rc] of [['2', '05'], ['3', '57'], ['5', '78'], ['6', '99'], ['7', '77'], ['8', '70']] as const) {
      const r = await req('api', 'POST', '/1/sales/', sale(cardEnding(last)));
      assert.deepEqual([r.status, r.body.Payment.Status, r.body.Payment.ReturnCode], [201, 3, rc]);
    }
  });

  test('capture at most once and at most what was authorised; void in parts only after capture; query by MerchantOrderId', async () => {
    const s = sale(OK);
    const id = (await req('api', 'POST', '/1/sales/', s)).body.Payment.PaymentId;
    assert.equal((await req('api', 'PUT', `/1/sales/${id}/void?amount=100`)).status, 400, 'no partial void before capture');
    assert.equal((await req('api', 'PUT', `/1/sales/${id}/capture?amount=15701`)).status, 400);
    const cap = await req('api', 'PUT', `/1/sales/${id}/capture?amount=10000`);
    assert.deepEqual([cap.status, cap.body.Status, cap.body.ReasonCode], [200, 2, 0]);
    assert.equal((await req('api', 'PUT', `/1/sales/${id}/capture`)).status, 400, 'captured once');
    assert.equal((await req('api', 'PUT', `/1/sales/${id}/void?amount=4000`)).body.Status, 2);
    assert.equal((await req('api', 'PUT', `/1/sales/${id}/void?amount=6001`)).status, 400);
    assert.equal((await req('api', 'PUT', `/1/sales/${id}/void?amount=6000`)).body.Status, 10);
    const got = await req('query', 'GET', `/1/sales/${id}`);
    assert.deepEqual([got.body.Payment.CapturedAmount, got.body.Payment.VoidedAmount, got.body.MerchantOrderId], [10000, 10000, s.MerchantOrderId]);
    const list = await req('query', 'GET', `/1/sales?merchantOrderId=${s.MerchantOrderId}`);
    assert.deepEqual(list.body.Payments.map((p: { PaymentId: string }) => p.PaymentId), [id]);
    assert.equal((await req('api', 'GET', `/1/sales/${id}`)).status, 404, 'queries are on the query host');
  });

  test('misbehaviour: 500s, a lost answer after the sale was made, a forced decline', async () => {
    cielo.failNext(2, 500, 'api');
    assert.equal((await req('api', 'POST', '/1/sales/', sale(OK))).status, 500);
    assert.equal((await req('api', 'POST', '/1/sales/', sale(OK))).status, 500);
    const before = cielo.sales.size;
    cielo.dropAnswer('POST', '/1/sales');
    await assert.rejects(req('api', 'POST', '/1/sales/', sale(OK)));
    assert.equal(cielo.sales.size, before + 1, 'made, answer lost');
    cielo.declineNext('51', 'Saldo insuficiente');
    const d = await req('api', 'POST', '/1/sales/', sale(OK));
    assert.deepEqual([d.body.Payment.Status, d.body.Payment.ReturnCode], [3, '51']);
  });

  test('card tokens: POST /1/card keeps the card (no CVV) and a sale with CardToken + Brand uses it', async () => {
    const t = await req('api', 'POST', '/1/card', { CustomerName: 'Ana', CardNumber: OK, Holder: 'ANA SOUZA', ExpirationDate: '12/2030', Brand: 'Visa' });
    assert.equal(t.status, 201);
    const s = sale('x', { Recurrent: true, CreditCard: { CardToken: t.body.CardToken, Brand: 'Visa', CardOnFile: { Usage: 'Used', Reason: 'Recurring' } } });
    const r = await req('api', 'POST', '/1/sales/', s);
    assert.deepEqual([r.status, r.body.Payment.Status], [201, 1]);
  });

  test("a Mastercard's stored credentials need Payment.InitiatedTransactionIndicator, its Subcategory one of its Category's", async () => {
    const t = await req('api', 'POST', '/1/card', { CustomerName: 'Ana', CardNumber: '5448280000000007', Holder: 'ANA SOUZA', ExpirationDate: '12/2030', Brand: 'Master' });
    assert.equal(t.status, 201);
    const master = (extra: object) => sale('x', { Recurrent: true, CreditCard: { CardToken: t.body.CardToken, Brand: 'Master', CardOnFile: { Usage: 'Used', Reason: 'Recurring' } }, ...extra });
    const before = cielo.sales.size;
    assert.equal((await req('api', 'POST', '/1/sales/', master({}))).status, 400, 'no indicator');
    assert.equal((await req('api', 'POST', '/1/sales/', master({ InitiatedTransactionIndicator: { Category: 'M2', Subcategory: 'Subscription' } }))).status, 400, 'Subscription is not an M2 subcategory');
    assert.equal(cielo.sales.size, before, 'nothing made');
    const r = await req('api', 'POST', '/1/sales/', master({ InitiatedTransactionIndicator: { Category: 'M1', Subcategory: 'Subscription' } }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
  });
});

describe('the fake Cielo for a benchmark (bench/cielo.ts)', () => {
  test('latencyMs: every answer waits that long, concurrent ones side by side; keepRequests: the newest kept, all counted', async () => {
    const slow = await startFakeCielo({ latencyMs: 150, keepRequests: 2 });
    try {
      const orders = Array.from({ length: 5 }, () => sale(OK));
      const started = performance.now();
      const answers = await Promise.all(orders.map((o) => req('api', 'POST', '/1/sales/', o, {}, slow)));
      const took = performance.now() - started;
      assert.deepEqual(answers.map((a) => a.status), [201, 201, 201, 201, 201]);
      assert.ok(took >= 150 && took < 5 * 150, `five sales at once took ${took} ms: each waits 150 ms, not one after another`);
      const listed = await req('query', 'GET', `/1/sales?merchantOrderId=${orders[3].MerchantOrderId}`, undefined, {}, slow);
      assert.deepEqual(listed.body.Payments.map((p: { PaymentId: string }) => p.PaymentId), [answers[3].body.Payment.PaymentId]);
      assert.equal(slow.salesOf(orders[3].MerchantOrderId).length, 1);
      assert.deepEqual([slow.tally.requests, slow.tally.violations], [6, 0]);
      assert.ok(slow.tally.connections >= 1 && slow.tally.connections <= 6, `${slow.tally.connections} TLS connections`);
      assert.ok(slow.requests.length >= 2 && slow.requests.length < 4, `kept ${slow.requests.length}`);
      assert.equal(slow.requests.at(-1)!.method, 'GET', 'the newest request is kept');
    } finally {
      await slow.close();
    }
  });
});
