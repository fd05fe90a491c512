// Transactions: creation bounds, and the sandbox's simulation (outcomes and refused moves).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { cpf } from './helpers.ts';
import { assert400, assertMessageOnly } from './kit/assert.ts';
import { YEAR, body, card, create, ctx, get, m, post, simulate, txCount, useTransactionsApp } from './transactions-kit.ts';

useTransactionsApp();

describe('creation bounds', () => {
  let before_: number;
  before(async () => {
    before_ = await txCount(m.id);
  });

  test('amountCents: 0 and 100000001 -> 400; 1 and 100000000 accepted', async () => {
    for (const amountCents of [0, -5, 100000001, 12.5, '100']) assert400(await post(m.devKey, body({ amountCents })), 'VALIDATION_ERROR', ['amountCents']);
    for (const method of ['PIX', 'BOLETO', 'CARD']) {
      for (const amountCents of [1, 100000000]) {
        const t = await create(m.devKey, { paymentMethod: method, amountCents });
        assert.equal(t.amountCents, amountCents);
        assert.equal(t.chargedCents, amountCents);
        before_++;
      }
    }
  });

  test('product and clientName with no text (blank, or markup only) -> 400 on the field, nothing written', async () => {
    for (const value of ['   ', '\t\n', '<b></b>', '<script>alert(1)</script>']) {
      assert400(await post(m.devKey, body({ product: value })), 'VALIDATION_ERROR', ['product']);
      assert400(await post(m.devKey, body({ clientName: value })), 'VALIDATION_ERROR', ['clientName']);
    }
    assert.equal(await txCount(m.id), before_);
  });

  test('installments: 0 and 13 -> 400; 12 accepted for cards; any instalments with PIX or BOLETO -> 400', async () => {
    for (const installments of [0, 13]) assert400(await post(m.devKey, body({ paymentMethod: 'CARD', installments })), 'VALIDATION_ERROR', ['installments']);
    assert400(await post(m.devKey, body({ paymentMethod: 'PIX', installments: 2 })), 'VALIDATION_ERROR', ['installments']);
    assert400(await post(m.devKey, body({ paymentMethod: 'BOLETO', installments: 3 })), 'VALIDATION_ERROR', ['installments']);
    const t = await create(m.devKey, { paymentMethod: 'CARD', installments: 12 });
    assert.equal(t.installments, 12);
    before_++;
  });

  test('text lengths: product, clientName, clientEmail over 255, clientPhone over 20, clientDocument under 11 or over 20 -> 400 naming the field', async () => {
    const email256 = 'a'.repeat(244) + '@example.com';
    assert.equal(email256.length, 256);
    const cases: [string, unknown][] = [
      ['product', 'p'.repeat(256)],
      ['clientName', 'n'.repeat(256)],
      ['clientEmail', email256],
      ['clientPhone', '1'.repeat(21)],
      ['clientDocument', '1234567890'],
      ['clientDocument', '1'.repeat(21)],
      ['clientEmail', 'not-an-email'],
      ['product', ''],
    ];
    for (const [field, value] of cases) assert400(await post(m.devKey, body({ [field]: value })), 'VALIDATION_ERROR', [field]);
    // At the bounds: accepted.
    const t = await create(m.devKey, { product: 'p'.repeat(255), clientName: 'n'.repeat(255), clientEmail: 'b'.repeat(243) + '@example.com', clientPhone: '1'.repeat(20) });
    before_++;
    assert.equal(t.product.length, 255);
    assert.equal(t.client.name.length, 255);
    assert.equal(t.client.email.length, 255);
    assert.equal(t.client.phone, '1'.repeat(20));
  });

  test('a document with wrong check digits -> 400 INVALID_DOCUMENT on clientDocument; CPF and CNPJ with punctuation accepted', async () => {
    const good = cpf();
    const wrong = good.slice(0, 9) + String((Number(good[9]) + 1) % 10) + good[10];
    for (const doc of [wrong, '11111111111', '11222333000182', '123456789012345']) {
      assert400(await post(m.devKey, body({ clientDocument: doc })), 'INVALID_DOCUMENT', ['clientDocument']);
    }
    const withPunctuation = `${good.slice(0, 3)}.${good.slice(3, 6)}.${good.slice(6, 9)}-${good.slice(9)}`;
    assert.equal((await create(m.devKey, { clientDocument: withPunctuation })).client.document, good);
    assert.equal((await create(m.devKey, { clientDocument: '11.222.333/0001-81' })).client.document, '11222333000181');
    before_ += 2;
  });

  test('trackingParams: the seven keys are accepted and returned; an unknown key or a non-string -> 400', async () => {
    const tracking = { utm_source: 'google', utm_medium: 'cpc', utm_campaign: 'black-friday', utm_content: 'banner', utm_term: 'violão', src: 'insta', sck: 'abc123' };
    const t = await create(m.devKey, { trackingParams: tracking });
    before_++;
    assert.deepEqual(t.trackingParams, tracking);
    assert.deepEqual((await get(m.devKey, t.id)).body.transaction.trackingParams, tracking);
    const unknown = await post(m.devKey, body({ trackingParams: { utm_source: 'x', gclid: 'y' } }));
    assert400(unknown, 'VALIDATION_ERROR');
    assert.ok(unknown.body.errors.every((e: { field: string }) => e.field.startsWith('trackingParams')), unknown.raw);
    assert.ok(unknown.body.errors.some((e: { field: string }) => e.field.includes('gclid')), unknown.raw);
    assert400(await post(m.devKey, body({ trackingParams: { utm_source: 5 } })), 'VALIDATION_ERROR', ['trackingParams.utm_source']);
    // Shown on the dashboard: markup is stripped on the way in, as in every stored text.
    const marked = await create(m.devKey, { trackingParams: { utm_source: '<script>alert(1)</script>ig', utm_term: '<img src=x onerror=alert(1)>promo' } });
    before_++;
    assert.deepEqual((await get(m.devKey, marked.id)).body.transaction.trackingParams, { utm_source: 'ig', utm_term: 'promo' });
  });

  test('metadata is stored and returned without tags or javascript: URLs; other values survive', async () => {
    const t = await create(m.devKey, {
      metadata: {
        a: '<script>alert(1)</script>',
        b: 'javascript:alert(1)',
        c: 'Pedido <b>123</b>',
        d: '<img src=x onerror=alert(1)>ok',
        e: 'JaVaScRiPt :alert(2)',
        orderId: 'PED-2024-001',
        quantity: 3,
        gift: true,
        note: null,
      },
    });
    before_++;
    const row = await ctx.database.db.selectFrom('transactions').select('metadata').where('id', '=', t.id).executeTakeFirstOrThrow();
    for (const stored of [t.metadata, (await get(m.devKey, t.id)).body.transaction.metadata, row.metadata]) {
      const text = JSON.stringify(stored);
      assert.ok(!/[<>]/.test(text), text);
      assert.ok(!/javascript\s*:/i.test(text), text);
      assert.ok(!/onerror/i.test(text), text);
      assert.equal((stored as any).orderId, 'PED-2024-001');
      assert.equal((stored as any).quantity, 3);
      assert.equal((stored as any).gift, true);
      assert.equal((stored as any).note, null);
      assert.equal((stored as any).c, 'Pedido 123');
    }
  });

  test('metadata over its bounds -> 400 on metadata (51 keys; more than 8 KB); 50 keys accepted', async () => {
    const keys = (n: number, size = 5) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v'.repeat(size)]));
    assert400(await post(m.devKey, body({ metadata: keys(51) })), 'VALIDATION_ERROR', ['metadata']);
    assert400(await post(m.devKey, body({ metadata: keys(20, 500) })), 'VALIDATION_ERROR', ['metadata']);
    assert400(await post(m.devKey, body({ metadata: { nested: { a: 1 } } })), 'VALIDATION_ERROR');
    assert.equal(Object.keys((await create(m.devKey, { metadata: keys(50) })).metadata).length, 50);
    before_++;
  });

  test('each mandatory field missing -> 400 naming that field', async () => {
    // paymentMethod may be omitted: PIX, as at the origin gateway (docs/compatibility.md).
    for (const field of ['product', 'amountCents', 'clientName', 'clientEmail', 'clientDocument']) {
      const b = body();
      delete b[field];
      assert400(await post(m.devKey, b), 'VALIDATION_ERROR', [field]);
    }
    assert400(await post(m.devKey, body({ paymentMethod: 'BITCOIN' })), 'VALIDATION_ERROR', ['paymentMethod']);
    assert400(await post(m.devKey, body({ surprise: 1 })), 'VALIDATION_ERROR', ['surprise']);
  });

  test('invalid card data -> 400 naming card.<field>', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [card('4242424242424241'), 'card.number'],
      [card('4242424242424242', { expYear: YEAR - 1 }), 'card.expYear'],
      [card('4242424242424242', { cvv: '12' }), 'card.cvv'],
      [card('378282246310005', { cvv: '123' }), 'card.cvv'],
      [card('4242424242424242', { expMonth: 13 }), 'card.expMonth'],
    ];
    if (new Date().getUTCMonth() > 0) cases.push([card('4242424242424242', { expYear: YEAR, expMonth: new Date().getUTCMonth() }), 'card.expMonth']);
    for (const [c, field] of cases) assert400(await post(m.devKey, body({ paymentMethod: 'CARD', card: c })), 'VALIDATION_ERROR', [field]);
    const noCvv: Record<string, unknown> = card();
    delete noCvv.cvv;
    assert400(await post(m.devKey, body({ paymentMethod: 'CARD', card: noCvv })), 'VALIDATION_ERROR', ['card.cvv']);
    // Card data is only for card payments.
    assert400(await post(m.devKey, body({ paymentMethod: 'PIX', card: card() })), 'VALIDATION_ERROR', ['card']);
  });

  test('refused requests wrote nothing', async () => {
    assert.equal(await txCount(m.id), before_);
  });
});

describe('simulate (development keys)', () => {
  test('PAID, FAILED and EXPIRED; any further move from a final state -> 400 INVALID_STATE_TRANSITION and nothing changes', async () => {
    const a = await create(m.devKey);
    const b = await create(m.devKey, { paymentMethod: 'BOLETO' });
    const c = await create(m.devKey, { paymentMethod: 'CARD' });
    const paid = await simulate(m.devKey, a.id, 'PAID');
    assert.equal(paid.status, 200, paid.raw);
    assert.equal(paid.body.transaction.status, 'PAID');
    assert.ok(paid.body.transaction.paidAt);
    const failed = await simulate(m.devKey, b.id, 'FAILED');
    assert.equal(failed.body.transaction.status, 'FAILED');
    assert.equal(typeof failed.body.transaction.failureReason, 'string');
    const expired = await simulate(m.devKey, c.id, 'EXPIRED');
    assert.equal(expired.body.transaction.status, 'EXPIRED');
    for (const [t, status] of [
      [a, 'PAID'],
      [b, 'FAILED'],
      [c, 'EXPIRED'],
    ] as const) {
      for (const outcome of ['PAID', 'FAILED', 'EXPIRED']) {
        const again = await simulate(m.devKey, t.id, outcome);
        assert400(again, 'INVALID_STATE_TRANSITION');
      }
      assert.equal((await get(m.devKey, t.id)).body.transaction.status, status);
    }
  });

  test('unknown transaction -> 404; unknown outcome -> 400', async () => {
    assertMessageOnly(await simulate(m.devKey, '01900000-0000-7000-8000-000000000000', 'PAID'), 404);
    const t = await create(m.devKey);
    assert400(await simulate(m.devKey, t.id, 'REFUNDED'), 'VALIDATION_ERROR', ['outcome']);
  });
});
