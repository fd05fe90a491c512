// Transactions: creation (PIX, boleto, card), clients, display ids and card instalments.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, cpf, merchant } from './helpers.ts';
import { UUID } from './kit/assert.ts';
import { DAY, YEAR, balance, body, card, cardFee, create, ctx, eventsFor, get, luhn, m, pixFee, post, receivables, useTransactionsApp } from './transactions-kit.ts';

useTransactionsApp();

describe('create', () => {
  test('PIX: 201 { message, transaction } in the spec\'s shape, readable with GET', async () => {
    const doc = cpf();
    const res = await post(m.devKey, body({ product: 'Camiseta azul', amountCents: 12345, clientName: 'Bruno Lima', clientEmail: 'Bruno.Lima@Example.com', clientDocument: doc, clientPhone: '+55 11 91234-5678' }));
    assert.equal(res.status, 201, res.raw);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'transaction']);
    assert.equal(typeof res.body.message, 'string');
    const t = res.body.transaction;
    assert.match(t.id, UUID);
    assert.equal(typeof t.displayId, 'string');
    assert.equal(t.product, 'Camiseta azul');
    assert.equal(t.amountCents, 12345);
    assert.equal(t.chargedCents, 12345);
    assert.equal(t.feeCents, pixFee(12345));
    assert.equal(t.netAmountCents, 12345 - pixFee(12345));
    assert.equal(t.refundedCents, 0);
    assert.equal(t.status, 'PENDING');
    assert.equal(t.paymentMethod, 'PIX');
    assert.equal(t.installments, 1);
    assert.equal(t.livemode, false);
    assert.match(t.client.id, UUID);
    assert.equal(t.client.name, 'Bruno Lima');
    assert.equal(t.client.document, doc);
    assert.equal(t.client.phone, '+55 11 91234-5678');
    assert.deepEqual(t.trackingParams, {});
    assert.deepEqual(t.metadata, {});
    assert.ok(Math.abs(Date.parse(t.createdAt) - Date.now()) < 60_000);
    assert.equal(t.updatedAt, t.createdAt);
    assert.equal(t.paidAt, null);
    assert.ok(t.pix && !t.boleto && !t.card && !t.paymentUrl);
    const read = await get(m.devKey, t.id);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.transaction, t);
  });

  test('BOLETO: PENDING with barcode, digitable line, due date and page URL', async () => {
    const t = await create(m.devKey, { paymentMethod: 'BOLETO', amountCents: 5000 });
    assert.equal(t.status, 'PENDING');
    assert.equal(t.feeCents, 349);
    assert.match(t.boleto.barcode, /^\d{44}$/);
    assert.match(t.boleto.digitableLine, /^\d{47}$/);
    assert.match(t.boleto.dueDate, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(t.boleto.url, `${ctx.config.checkoutUrl}/boleto/${t.id}`);
    assert.ok(!t.pix && !t.card && !t.paymentUrl);
  });

  test('CARD with an approved card: PAID at once, only brand and last4 returned', async () => {
    const res = await post(m.devKey, body({ paymentMethod: 'CARD', amountCents: 20000, card: card('4242 4242 4242 4242') }));
    assert.equal(res.status, 201, res.raw);
    const t = res.body.transaction;
    assert.equal(t.status, 'PAID');
    assert.ok(Date.parse(t.paidAt) >= Date.parse(t.createdAt));
    assert.deepEqual(t.card, { brand: 'VISA', last4: '4242', installmentCents: 20000, interestCents: 0 });
    assert.equal(t.failureReason, null);
    assert.equal(t.paymentUrl, undefined);
    assert.equal(t.feeCents, cardFee(20000));
    assert.deepEqual((await get(m.devKey, t.id)).body.transaction, t);
  });

  test('brands: Mastercard, Amex, and Elo BINs starting with 4 are Elo, not Visa', async () => {
    const cases: [string, string, string][] = [
      ['5555555555554444', '123', 'MASTERCARD'],
      ['378282246310005', '1234', 'AMEX'],
      // Last digits Cielo's sandbox table approves (4, 1): the sandbox decides other numbers by it.
      [luhn('4011781'), '123', 'ELO'],
      [luhn('6362971'), '123', 'ELO'],
    ];
    for (const [number, cvv, brand] of cases) {
      const t = await create(m.devKey, { paymentMethod: 'CARD', card: card(number, { cvv }) });
      assert.equal(t.status, 'PAID', number);
      assert.equal(t.card.brand, brand, number);
      assert.equal(t.card.last4, number.slice(-4));
    }
  });

  test('sandbox declines: 4000000000000002 -> FAILED CARD_DECLINED, 4000000000009995 -> FAILED INSUFFICIENT_FUNDS; no money moves', async () => {
    const fresh = await merchant(ctx.app);
    for (const [number, reason] of [
      ['4000000000000002', 'CARD_DECLINED'],
      ['4000000000009995', 'INSUFFICIENT_FUNDS'],
    ]) {
      const res = await post(fresh.devKey, body({ paymentMethod: 'CARD', card: card(number) }));
      assert.equal(res.status, 201, res.raw);
      const t = res.body.transaction;
      assert.equal(t.status, 'FAILED');
      assert.equal(t.failureReason, reason);
      assert.equal(t.paidAt, null);
      assert.equal(t.card.last4, number.slice(-4));
      assert.equal((await receivables(t.id)).length, 0);
    }
    assert.deepEqual(await balance(fresh.devKey), { available: 0, receivable: 0, reserved: 0 });
  });

  test('CARD without card data: PENDING with the hosted page URL', async () => {
    const t = await create(m.devKey, { paymentMethod: 'CARD', amountCents: 4990 });
    assert.equal(t.status, 'PENDING');
    assert.equal(t.paymentUrl, `${ctx.config.checkoutUrl}/checkout/${t.id}`);
    assert.equal(t.card.brand, null);
    assert.equal(t.card.last4, null);
    assert.equal(t.chargedCents, 4990);
  });

  test('the card number and CVV never reach the response, the database, the events, the idempotency store or the logs', async () => {
    const number = '4111111111111111';
    const declined = '4000000000009995';
    const cvv = '731';
    const key = `card-secret-${Date.now()}`;
    const ok = await post(m.devKey, body({ paymentMethod: 'CARD', installments: 2, card: card(number, { cvv }) }), { 'idempotency-key': key });
    assert.equal(ok.status, 201, ok.raw);
    const bad = await post(m.devKey, body({ paymentMethod: 'CARD', card: card(declined, { cvv }) }));
    assert.equal(bad.status, 201, bad.raw);
    const expired = await post(m.devKey, body({ paymentMethod: 'CARD', card: card(number, { cvv, expYear: YEAR - 1 }) }));
    assert.equal(expired.status, 400);
    const secrets = [number, number.slice(0, 12), declined, declined.slice(0, 12)];
    const clean = (text: string, where: string) => {
      for (const s of secrets) assert.ok(!text.includes(s), `${where} contains ${s}`);
      assert.ok(!text.includes(`"${cvv}"`), `${where} contains the CVV`);
      assert.ok(!/cvv/i.test(text), `${where} mentions a cvv`);
    };
    for (const res of [ok, bad, expired]) clean(res.raw, 'response');
    for (const t of [ok.body.transaction, bad.body.transaction]) {
      const row = await ctx.database.db.selectFrom('transactions').selectAll().where('id', '=', t.id).executeTakeFirstOrThrow();
      for (const [column, value] of Object.entries(row)) clean(JSON.stringify(value) ?? '', `transactions.${column}`);
      assert.equal(row.card_last4, t.card.last4);
      clean(JSON.stringify(await eventsFor(t.id)), 'events');
    }
    const stored = await ctx.database.db.selectFrom('idempotency_keys').selectAll().where('key', '=', key).execute();
    assert.equal(stored.length, 1);
    clean(JSON.stringify(stored), 'idempotency_keys');
    assert.ok(ctx.logs.length > 0, 'requests are logged');
    clean(ctx.logs.join(''), 'logs');
  });
});

describe('clients', () => {
  test('found or created by document: the same document (with or without punctuation) is one client', async () => {
    const fresh = await merchant(ctx.app);
    const doc = cpf();
    const a = await create(fresh.devKey, { clientDocument: doc, clientName: 'Carla Dias', clientEmail: 'carla@example.com' });
    const b = await create(fresh.devKey, { clientDocument: `${doc.slice(0, 3)}.${doc.slice(3, 6)}.${doc.slice(6, 9)}-${doc.slice(9)}`, clientName: 'Carla Dias', clientEmail: 'carla@example.com', paymentMethod: 'BOLETO' });
    assert.equal(a.client.id, b.client.id);
    assert.equal(b.client.document, doc);
    const clients = await call(ctx.app, 'GET', '/api/clients', { key: fresh.devKey });
    assert.equal(clients.status, 200, clients.raw);
    assert.equal(clients.body.pagination.total, 1);
    assert.equal(clients.body.clients[0].id, a.client.id);
    assert.equal(clients.body.clients[0].document, doc);
    const other = await create(fresh.devKey, { clientDocument: cpf() });
    assert.notEqual(other.client.id, a.client.id);
    assert.equal((await call(ctx.app, 'GET', '/api/clients', { key: fresh.devKey })).body.pagination.total, 2);
  });
});

describe('displayId', () => {
  test('short (<= 12 characters) and unique across 200 transactions of one merchant', async () => {
    const fresh = await merchant(ctx.app);
    const ids: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const created = await Promise.all(Array.from({ length: 20 }, () => create(fresh.devKey, { amountCents: 100 + batch })));
      ids.push(...created.map((t) => t.displayId));
    }
    assert.equal(ids.length, 200);
    for (const id of ids) {
      assert.ok(id.length >= 4 && id.length <= 12, id);
      assert.match(id, /^[A-Za-z0-9-]+$/);
    }
    assert.equal(new Set(ids).size, 200);
  });
});

describe('card instalments', () => {
  /** Price table, computed here: PMT = PV·i / (1 − (1+i)^−n), rounded to the cent; total = n·PMT. */
  const price = (amount: number, n: number, i = 0.0299) => Math.round((amount * i) / (1 - (1 + i) ** -n));

  test('3x with the default config (1 interest-free, 2.99%/month): Price-table total, instalment and interest', async () => {
    for (const amount of [10000, 25000]) {
      const pmt = price(amount, 3);
      const t = await create(m.devKey, { paymentMethod: 'CARD', amountCents: amount, installments: 3, card: card() });
      assert.equal(t.status, 'PAID');
      assert.equal(t.installments, 3);
      assert.equal(t.amountCents, amount);
      assert.equal(t.chargedCents, 3 * pmt);
      assert.ok(t.chargedCents > amount);
      assert.equal(t.card.installmentCents, pmt);
      assert.equal(t.card.interestCents, 3 * pmt - amount);
      assert.equal(t.feeCents, cardFee(3 * pmt));
      assert.equal(t.netAmountCents, 3 * pmt - cardFee(3 * pmt));
    }
    assert.equal(price(10000, 3), 3535); // the independent formula itself, pinned
  });

  test('12x and 2x also carry interest; 1x costs exactly the amount', async () => {
    const twelve = await create(m.devKey, { paymentMethod: 'CARD', amountCents: 100000, installments: 12 });
    assert.equal(twelve.chargedCents, 12 * price(100000, 12));
    assert.equal(twelve.card.installmentCents, price(100000, 12));
    const two = await create(m.devKey, { paymentMethod: 'CARD', amountCents: 20000, installments: 2 });
    assert.equal(two.chargedCents, 2 * price(20000, 2));
    const one = await create(m.devKey, { paymentMethod: 'CARD', amountCents: 20000, installments: 1, card: card() });
    assert.equal(one.chargedCents, 20000);
    assert.equal(one.card.installmentCents, 20000);
    assert.equal(one.card.interestCents, 0);
  });

  test('a paid 3x card becomes three receivables that sum to the net amount, settling 30, 60 and 90 days after payment', async () => {
    const t = await create(m.devKey, { paymentMethod: 'CARD', amountCents: 30000, installments: 3, card: card() });
    const rs = await receivables(t.id);
    assert.deepEqual(rs.map((r) => [r.n, r.status]), [[1, 'PENDING'], [2, 'PENDING'], [3, 'PENDING']]);
    assert.equal(rs.reduce((s, r) => s + r.amount, 0), t.netAmountCents);
    assert.ok(Math.max(...rs.map((r) => r.amount)) - Math.min(...rs.map((r) => r.amount)) <= 1);
    const paid = Date.parse(t.paidAt);
    rs.forEach((r, i) => assert.ok(Math.abs(r.settleAt - (paid + 30 * (i + 1) * DAY)) < 5000, `instalment ${i + 1}`));
  });
});
