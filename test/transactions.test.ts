// Transactions API: creation and its bounds, cards and instalments, simulate, refunds, the ledger
// and balance, events, idempotency, keyset lists, tenant and environment isolation, expiry and
// settlement jobs. Runs on PGlite (default) and on PostgreSQL (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { expireDue, settleDue } from '../src/modules/transactions/service.ts';
import { call, cpf, merchant, startApp, type Merchant, type Res, type TestContext } from './helpers.ts';

const T = '/api/v1/transactions';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DAY = 86_400_000;
const YEAR = new Date().getUTCFullYear();

let ctx: TestContext; // the default deployment: no production payment provider configured
let m: Merchant;
before(async () => {
  ctx = await startApp();
  m = await merchant(ctx.app);
});
after(() => ctx.close());

// ---------------------------------------------------------------------------------------------
// helpers

let seq = 0;
/** A valid creation body (PIX by default). */
function body(over: Record<string, unknown> = {}): Record<string, any> {
  seq++;
  return { product: `Curso de violão ${seq}`, amountCents: 10000, clientName: 'Ana Souza', clientEmail: `ana.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', ...over };
}

function card(number = '4242424242424242', over: Record<string, unknown> = {}) {
  return { number, holderName: 'ANA SOUZA', expMonth: 12, expYear: YEAR + 3, cvv: '123', ...over };
}

/** Completes a number with its Luhn check digit. */
function luhn(prefix: string, length = 16): string {
  const body = prefix.padEnd(length - 1, '0');
  for (let d = 0; d < 10; d++) {
    const n = body + d;
    let sum = 0;
    for (let i = 0; i < n.length; i++) {
      let x = Number(n[n.length - 1 - i]);
      if (i % 2 === 1) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
      sum += x;
    }
    if (sum % 10 === 0) return n;
  }
  throw new Error('unreachable');
}

const post = (key: string, b: unknown, headers: Record<string, string> = {}, c: TestContext = ctx) => call(c.app, 'POST', T, { key, body: b, headers });

async function create(key: string, over: Record<string, unknown> = {}, c: TestContext = ctx) {
  const res = await post(key, body(over), {}, c);
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction;
}
const get = (key: string, id: string, c: TestContext = ctx) => call(c.app, 'GET', `${T}/${id}`, { key });
const simulate = (key: string, id: string, outcome: string, c: TestContext = ctx) => call(c.app, 'POST', `${T}/${id}/simulate`, { key, body: { outcome } });
const refund = (key: string, id: string, amountCents?: number, headers: Record<string, string> = {}) =>
  call(ctx.app, 'POST', `${T}/${id}/refund`, { key, body: amountCents === undefined ? undefined : { amountCents }, headers });
const list = (key: string, query = '', c: TestContext = ctx) => call(c.app, 'GET', `${T}${query}`, { key });

async function pay(key: string, id: string, c: TestContext = ctx) {
  const res = await simulate(key, id, 'PAID', c);
  assert.equal(res.status, 200, res.raw);
  assert.equal(res.body.transaction.status, 'PAID');
  return res.body.transaction;
}

async function balance(key: string, c: TestContext = ctx) {
  const res = await call(c.app, 'GET', '/api/v1/balance', { key });
  assert.equal(res.status, 200, res.raw);
  assert.equal(res.body.pendingCents, res.body.receivableCents);
  assert.equal(res.body.totalCents, res.body.availableCents + res.body.receivableCents);
  return { available: res.body.availableCents, receivable: res.body.receivableCents, reserved: res.body.reservedCents };
}

/** The platform's fees, computed here independently of src/payments/fees.ts. */
const pixFee = (c: number) => Math.floor((c * 99 + 5000) / 10000);
const cardFee = (c: number) => Math.min(c, Math.floor((c * 399 + 5000) / 10000) + 39);
const boletoFee = (c: number) => Math.min(c, 349);

/** A 400 in the spec's body shape with this code, naming exactly these fields. */
function assert400(res: Res, code: string, fields?: string[]) {
  assert.equal(res.status, 400, res.raw);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'errors', 'message', 'path', 'timestamp'], res.raw);
  assert.equal(res.body.code, code, res.raw);
  assert.ok(res.body.errors.length > 0, res.raw);
  if (fields) assert.deepEqual([...new Set(res.body.errors.map((e: { field: string }) => e.field))].sort(), [...fields].sort(), res.raw);
}

function assertMessageOnly(res: Res, status: number) {
  assert.equal(res.status, status, res.raw);
  assert.deepEqual(Object.keys(res.body), ['message'], res.raw);
  assert.equal(typeof res.body.message, 'string');
}

async function count(table: string, c: TestContext = ctx): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(c.database.db);
  return Number(r.rows[0].n);
}

async function txCount(userId: string, c: TestContext = ctx): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from transactions where user_id = ${userId}`.execute(c.database.db);
  return Number(r.rows[0].n);
}

/** Events about one transaction (its own and the balance.updated it caused), oldest first. */
async function eventsFor(id: string, c: TestContext = ctx) {
  const rows = await c.database.db
    .selectFrom('events')
    .selectAll()
    .where((eb) => eb.or([eb(sql<string>`data->>'id'`, '=', id), eb(sql<string>`data->>'referenceId'`, '=', id)]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ type: r.type, data: r.data as Record<string, any>, livemode: r.livemode, userId: r.user_id }));
}
const typesOf = (events: { type: string }[]) => events.map((e) => e.type).sort();

/** Every journal sums to zero and has entries; every account balance equals the sum of its entries. */
async function assertLedgerConsistent(c: TestContext = ctx) {
  const db = c.database.db;
  const unbalanced = await sql`select journal_id, sum(amount_cents)::text as total, count(*)::int as n from ledger_entries group by journal_id having sum(amount_cents) <> 0 or count(*) < 2`.execute(db);
  assert.deepEqual(unbalanced.rows, [], 'every journal sums to zero over at least two entries');
  const empty = await sql`select j.id from ledger_journals j where not exists (select 1 from ledger_entries e where e.journal_id = j.id)`.execute(db);
  assert.deepEqual(empty.rows, [], 'no journal without entries');
  const drift = await sql`
    select a.id, a.kind, a.balance_cents::text as balance, coalesce(sum(e.amount_cents), 0)::text as entries
    from ledger_accounts a left join ledger_entries e on e.account_id = a.id
    group by a.id, a.kind, a.balance_cents
    having a.balance_cents <> coalesce(sum(e.amount_cents), 0)`.execute(db);
  assert.deepEqual(drift.rows, [], 'every account balance equals the sum of its entries');
  const journals = await count('ledger_journals', c);
  assert.ok(journals > 0, 'the ledger was exercised');
}

async function receivables(txId: string) {
  const rows = await ctx.database.db.selectFrom('receivables').selectAll().where('transaction_id', '=', txId).orderBy('installment_number').execute();
  return rows.map((r) => ({ n: r.installment_number, amount: Number(r.amount_cents), status: r.status, settleAt: new Date(r.settle_at).getTime() }));
}

// ---------------------------------------------------------------------------------------------

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
      [luhn('401178'), '123', 'ELO'],
      [luhn('636297'), '123', 'ELO'],
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
  const price = (amount: number, n: number, i = 0.0299) => Math.round((amount * i) / (1 - Math.pow(1 + i, -n)));

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

describe('refunds', () => {
  let r: Merchant;
  before(async () => {
    r = await merchant(ctx.app);
    // A cushion of available balance: refunds give back what the customer paid, fees are not returned.
    await pay(r.devKey, (await create(r.devKey, { amountCents: 100000 })).id);
  });

  test('partial -> PARTIALLY_REFUNDED with refundedCents; the rest -> REFUNDED; each debits the available balance', async () => {
    const t = await pay(r.devKey, (await create(r.devKey, { amountCents: 10000 })).id);
    const b0 = await balance(r.devKey);
    const first = await refund(r.devKey, t.id, 4000);
    assert.equal(first.status, 200, first.raw);
    assert.equal(first.body.transaction.status, 'PARTIALLY_REFUNDED');
    assert.equal(first.body.transaction.refundedCents, 4000);
    assert.ok(first.body.transaction.refundedAt);
    assert.equal((await balance(r.devKey)).available, b0.available - 4000);
    const second = await refund(r.devKey, t.id, 1000);
    assert.equal(second.body.transaction.status, 'PARTIALLY_REFUNDED');
    assert.equal(second.body.transaction.refundedCents, 5000);
    const rest = await refund(r.devKey, t.id, 5000);
    assert.equal(rest.status, 200, rest.raw);
    assert.equal(rest.body.transaction.status, 'REFUNDED');
    assert.equal(rest.body.transaction.refundedCents, 10000);
    assert.equal((await balance(r.devKey)).available, b0.available - 10000);
    assert400(await refund(r.devKey, t.id, 1), 'INVALID_STATE_TRANSITION');
    assert400(await refund(r.devKey, t.id), 'INVALID_STATE_TRANSITION');
    await assertLedgerConsistent();
  });

  test('more than what is left -> 400 REFUND_EXCEEDS_PAID on amountCents, nothing changes', async () => {
    const t = await pay(r.devKey, (await create(r.devKey, { amountCents: 3000 })).id);
    assert400(await refund(r.devKey, t.id, 3001), 'REFUND_EXCEEDS_PAID', ['amountCents']);
    assert.equal((await refund(r.devKey, t.id, 2000)).body.transaction.status, 'PARTIALLY_REFUNDED');
    const b = await balance(r.devKey);
    assert400(await refund(r.devKey, t.id, 1001), 'REFUND_EXCEEDS_PAID', ['amountCents']);
    const after = (await get(r.devKey, t.id)).body.transaction;
    assert.equal(after.status, 'PARTIALLY_REFUNDED');
    assert.equal(after.refundedCents, 2000);
    assert.deepEqual(await balance(r.devKey), b);
    assert400(await refund(r.devKey, t.id, 0), 'VALIDATION_ERROR', ['amountCents']);
  });

  test('omitted amount refunds the whole remainder', async () => {
    const t = await pay(r.devKey, (await create(r.devKey, { amountCents: 7000, paymentMethod: 'BOLETO' })).id);
    const whole = await refund(r.devKey, t.id);
    assert.equal(whole.status, 200, whole.raw);
    assert.equal(whole.body.transaction.status, 'REFUNDED');
    assert.equal(whole.body.transaction.refundedCents, 7000);
    const u = await pay(r.devKey, (await create(r.devKey, { amountCents: 7000 })).id);
    await refund(r.devKey, u.id, 2500);
    const rest = await refund(r.devKey, u.id);
    assert.equal(rest.body.transaction.status, 'REFUNDED');
    assert.equal(rest.body.transaction.refundedCents, 7000);
  });

  test('PENDING, FAILED and EXPIRED transactions cannot be refunded: 400 INVALID_STATE_TRANSITION', async () => {
    const pending = await create(r.devKey);
    const failed = await create(r.devKey, { paymentMethod: 'CARD', card: card('4000000000000002') });
    const expired = await create(r.devKey);
    await simulate(r.devKey, expired.id, 'EXPIRED');
    for (const t of [pending, failed, expired]) {
      assert400(await refund(r.devKey, t.id, 100), 'INVALID_STATE_TRANSITION');
      assert400(await refund(r.devKey, t.id), 'INVALID_STATE_TRANSITION');
      assert.equal((await get(r.devKey, t.id)).body.transaction.refundedCents, 0);
    }
    assertMessageOnly(await refund(r.devKey, '01900000-0000-7000-8000-000000000000'), 404);
  });

  test('a card refund first cancels unsettled receivables (latest instalment first), then debits the available balance', async () => {
    const t = await create(r.devKey, { paymentMethod: 'CARD', amountCents: 30000, installments: 3, card: card() });
    const rs = await receivables(t.id);
    assert.equal(rs.length, 3);
    const b0 = await balance(r.devKey);
    const part = rs[2].amount + 100;
    const res = await refund(r.devKey, t.id, part);
    assert.equal(res.body.transaction.status, 'PARTIALLY_REFUNDED');
    const after = await receivables(t.id);
    assert.deepEqual(
      after.map((x) => [x.status, x.amount]),
      [
        ['PENDING', rs[0].amount],
        ['PENDING', rs[1].amount - 100],
        ['CANCELLED', 0],
      ],
    );
    const b1 = await balance(r.devKey);
    assert.equal(b1.receivable, b0.receivable - part);
    assert.equal(b1.available, b0.available);
    // The rest: every receivable goes, and the fee the merchant keeps paying comes from available.
    const rest = await refund(r.devKey, t.id);
    assert.equal(rest.body.transaction.status, 'REFUNDED');
    assert.deepEqual((await receivables(t.id)).map((x) => [x.status, x.amount]), [['CANCELLED', 0], ['CANCELLED', 0], ['CANCELLED', 0]]);
    const b2 = await balance(r.devKey);
    assert.equal(b2.receivable, b0.receivable - t.netAmountCents);
    assert.equal(b2.available, b0.available - t.feeCents);
    await assertLedgerConsistent();
  });

  test('a refund the available balance cannot cover -> 400 INSUFFICIENT_BALANCE and nothing moves', async () => {
    const poor = await merchant(ctx.app);
    const t = await pay(poor.devKey, (await create(poor.devKey, { amountCents: 10000 })).id);
    const b = await balance(poor.devKey);
    assert.equal(b.available, 10000 - pixFee(10000));
    const journals = await count('ledger_journals');
    assert400(await refund(poor.devKey, t.id), 'INSUFFICIENT_BALANCE');
    assert.equal((await get(poor.devKey, t.id)).body.transaction.status, 'PAID');
    assert.deepEqual(await balance(poor.devKey), b);
    assert.equal(await count('ledger_journals'), journals);
    // What was received can be given back.
    assert.equal((await refund(poor.devKey, t.id, b.available)).body.transaction.status, 'PARTIALLY_REFUNDED');
    assert.equal((await balance(poor.devKey)).available, 0);
  });
});

describe('ledger and balance', () => {
  test('PIX and boleto credit available net of fees, cards credit receivable, refunds debit; entries walk by cursor; the books balance', async () => {
    const l = await merchant(ctx.app);
    assert.deepEqual(await balance(l.devKey), { available: 0, receivable: 0, reserved: 0 });
    const bal = await call(ctx.app, 'GET', '/api/v1/balance', { key: l.devKey });
    // The spec's names, and the origin's pendingCents / totalCents beside them (docs/compatibility.md).
    assert.deepEqual(Object.keys(bal.body).sort(), ['availableCents', 'message', 'pendingCents', 'receivableCents', 'reservedCents', 'totalCents']);

    await create(l.devKey, { amountCents: 99999 }); // pending: moves nothing
    assert.deepEqual(await balance(l.devKey), { available: 0, receivable: 0, reserved: 0 });

    const pix = await pay(l.devKey, (await create(l.devKey, { amountCents: 12345 })).id);
    let available = 12345 - pixFee(12345);
    assert.deepEqual(await balance(l.devKey), { available, receivable: 0, reserved: 0 });

    await pay(l.devKey, (await create(l.devKey, { amountCents: 5000, paymentMethod: 'BOLETO' })).id);
    available += 5000 - boletoFee(5000);
    assert.deepEqual(await balance(l.devKey), { available, receivable: 0, reserved: 0 });

    const c = await create(l.devKey, { amountCents: 20000, paymentMethod: 'CARD', card: card() });
    const receivable = 20000 - cardFee(20000);
    assert.deepEqual(await balance(l.devKey), { available, receivable, reserved: 0 });
    assert.equal(c.netAmountCents, receivable);

    await pay(l.devKey, (await create(l.devKey, { amountCents: 3000, paymentMethod: 'CARD' })).id); // hosted-page card paid later
    const receivable2 = receivable + 3000 - cardFee(3000);
    assert.deepEqual(await balance(l.devKey), { available, receivable: receivable2, reserved: 0 });

    await refund(l.devKey, pix.id, 1000);
    available -= 1000;
    assert.deepEqual(await balance(l.devKey), { available, receivable: receivable2, reserved: 0 });

    // Walk the entries two by two: newest first, each once, summing to the balances.
    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Res = await call(ctx.app, 'GET', `/api/v1/balance/entries?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: l.devKey });
      assert.equal(res.status, 200, res.raw);
      assert.equal(res.body.pagination.limit, 2);
      assert.equal(res.body.pagination.cursor, cursor);
      assert.ok(res.body.entries.length <= 2);
      seen.push(...res.body.entries);
      cursor = res.body.pagination.nextCursor;
      assert.equal(res.body.pagination.hasMore, cursor !== null);
      pages++;
    } while (cursor && pages < 20);
    assert.equal(seen.length, 5); // pix, boleto, card, card, refund: one merchant-account entry each
    assert.equal(new Set(seen.map((e) => e.id)).size, seen.length);
    for (let i = 1; i < seen.length; i++) assert.ok(Date.parse(seen[i - 1].createdAt) >= Date.parse(seen[i].createdAt), 'newest first');
    const sum = (account: string) => seen.filter((e) => e.account === account).reduce((s, e) => s + e.amountCents, 0);
    assert.equal(sum('available'), available);
    assert.equal(sum('receivable'), receivable2);
    assert.deepEqual(seen.map((e) => e.kind).sort(), ['payment', 'payment', 'payment', 'payment', 'refund']);
    const refundEntry = seen.find((e) => e.kind === 'refund');
    assert.equal(refundEntry.amountCents, -1000);
    assert.equal(refundEntry.referenceId, pix.id);
    assert.equal(refundEntry.balanceAfterCents, available); // the refund was the last movement of available
    assert400(await call(ctx.app, 'GET', `/api/v1/balance/entries?cursor=${encodeURIComponent('x' + seen[0].id)}`, { key: l.devKey }), 'INVALID_CURSOR');
    // Oldest first, walked the same way: the same entries in the opposite order.
    const asc: any[] = [];
    cursor = null;
    do {
      const res: Res = await call(ctx.app, 'GET', `/api/v1/balance/entries?limit=2&orderDirection=asc${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: l.devKey });
      assert.equal(res.status, 200, res.raw);
      asc.push(...res.body.entries);
      cursor = res.body.pagination.nextCursor;
    } while (cursor && asc.length < 20);
    assert.deepEqual(asc.map((e) => e.id), seen.map((e) => e.id).reverse());
    await assertLedgerConsistent();
  });
});

describe('events', () => {
  test('created on create; updated + completed + balance.updated on PAID; failed on FAILED; refunded on refund', async () => {
    const e = await merchant(ctx.app);
    const doc = cpf();
    const t = await create(e.devKey, { amountCents: 4321, clientDocument: doc, clientEmail: 'eva@example.com' });
    let events = await eventsFor(t.id);
    assert.deepEqual(typesOf(events), ['transaction.created']);
    assert.equal(events[0].data.status, 'PENDING');
    assert.equal(events[0].userId, e.id);
    assert.equal(events[0].livemode, false);

    const paid = await pay(e.devKey, t.id);
    events = await eventsFor(t.id);
    assert.deepEqual(typesOf(events), ['balance.updated', 'transaction.completed', 'transaction.created', 'transaction.updated']);
    const completed = events.find((x) => x.type === 'transaction.completed')!.data;
    assert.equal(completed.id, t.id);
    assert.equal(completed.status, 'PAID');
    assert.equal(completed.amountCents, 4321);
    assert.equal(completed.paymentMethod, 'PIX');
    assert.equal(completed.clientEmail, 'eva@example.com');
    assert.equal(Date.parse(completed.createdAt), Date.parse(t.createdAt));
    assert.equal(Date.parse(completed.paidAt), Date.parse(paid.paidAt));
    assert.equal(typeof completed.clientDocument, 'string');
    assert.notEqual(completed.clientDocument, doc);
    assert.ok(completed.clientDocument.includes('*'));
    for (const ev of events) {
      const text = JSON.stringify(ev.data);
      assert.ok(!text.includes(doc), `${ev.type} carries the full document`);
      assert.ok(!text.includes(`${doc.slice(0, 3)}.${doc.slice(3, 6)}.${doc.slice(6, 9)}-${doc.slice(9)}`), `${ev.type} carries the formatted document`);
    }
    assert.equal(events.find((x) => x.type === 'transaction.updated')!.data.status, 'PAID');
    const balanceEvent = events.find((x) => x.type === 'balance.updated')!.data;
    assert.equal(balanceEvent.availableCents, 4321 - pixFee(4321));

    await refund(e.devKey, t.id, 1000);
    events = await eventsFor(t.id);
    assert.equal(events.filter((x) => x.type === 'transaction.refunded').length, 1);
    assert.equal(events.find((x) => x.type === 'transaction.refunded')!.data.refundedCents, 1000);
    assert.equal(events.filter((x) => x.type === 'balance.updated').length, 2);

    const f = await create(e.devKey, { paymentMethod: 'BOLETO' });
    await simulate(e.devKey, f.id, 'FAILED');
    assert.deepEqual(typesOf(await eventsFor(f.id)), ['transaction.created', 'transaction.failed', 'transaction.updated']);

    const declined = await create(e.devKey, { paymentMethod: 'CARD', card: card('4000000000000002') });
    const de = await eventsFor(declined.id);
    assert.deepEqual(typesOf(de), ['transaction.created', 'transaction.failed', 'transaction.updated']);
    assert.deepEqual(de.find((x) => x.type === 'transaction.failed')!.data.card, { brand: 'VISA', last4: '0002' });

    const approved = await create(e.devKey, { paymentMethod: 'CARD', card: card() });
    assert.deepEqual(typesOf(await eventsFor(approved.id)), ['balance.updated', 'transaction.completed', 'transaction.created', 'transaction.updated']);
  });
});

describe('idempotency', () => {
  const idem = (key: string) => ({ 'idempotency-key': key });

  test('same key and body -> the first response replayed with Idempotent-Replayed: true, one transaction', async () => {
    const i = await merchant(ctx.app);
    const b = body({ amountCents: 777 });
    const first = await post(i.devKey, b, idem('order-1'));
    assert.equal(first.status, 201, first.raw);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const second = await post(i.devKey, b, idem('order-1'));
    assert.equal(second.status, 201, second.raw);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.body, first.body);
    assert.equal(await txCount(i.id), 1);
    assert.equal((await eventsFor(first.body.transaction.id)).length, 1);
    // Without a key every POST is a new transaction.
    await post(i.devKey, b);
    assert.equal(await txCount(i.id), 2);
  });

  test('with a key, the response (stored by the creation statement) is the transaction as stored: an existing client keeps its id and phone', async () => {
    const i = await merchant(ctx.app);
    const doc = cpf();
    const first = await post(i.devKey, body({ clientDocument: doc, clientPhone: '(11) 4002-8922' }));
    assert.equal(first.status, 201, first.raw);
    const client = first.body.transaction.client;
    // No phone given: the client's stored one is shown; metadata keys come back in jsonb's order.
    const b = body({ clientDocument: doc, clientName: 'Ana Maria', metadata: { zeta: 'ção ✓ "q" \\ </script>', a: 1.5, 'longer-key': true, b: null }, trackingParams: { utm_source: 'x' } });
    const res = await post(i.devKey, b, idem('stored-1'));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    const t = res.body.transaction;
    assert.deepEqual(t.client, { ...client, name: 'Ana Maria', email: b.clientEmail });
    assert.equal(t.client.phone, '(11) 4002-8922');
    // The text stored before the statement ran carries the envelope too (data: the same transaction).
    const stored = (await get(i.devKey, t.id)).body.transaction;
    assert.equal(res.raw, JSON.stringify({ message: 'Transaction created', transaction: stored, success: true, data: stored }));
    const replay = await post(i.devKey, b, idem('stored-1'));
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.raw, res.raw);
    // The event carries the same client.
    const [created] = await eventsFor(t.id);
    assert.equal(created.data.clientId, client.id);
    // A new client without a phone: null.
    const fresh = await post(i.devKey, body(), idem('stored-2'));
    assert.equal(fresh.body.transaction.client.phone, null);
    assert.notEqual(fresh.body.transaction.client.id, client.id);
    assert.deepEqual(fresh.body.transaction, (await get(i.devKey, fresh.body.transaction.id)).body.transaction);
  });

  test('a refusal is stored and replayed too; a retry is replayed even once its input would be refused; a card charge with a key is charged once', async () => {
    const i = await merchant(ctx.app);
    const b0 = body({ paymentLinkId: '01890000-0000-7000-8000-000000000000' });
    const refused = await post(i.devKey, b0, idem('err-1'));
    assert400(refused, 'VALIDATION_ERROR');
    const again = await post(i.devKey, b0, idem('err-1'));
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.raw, refused.raw);
    const { paymentLinkId: _, ...other } = b0;
    assert400(await post(i.devKey, other, idem('err-1')), 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(await txCount(i.id), 0);

    // Paid with a link that is then archived: the retry replays the 201 rather than refusing the link.
    const link = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: i.devKey, body: { title: 'Ebook', amountCents: 3000 } });
    assert.equal(link.status, 201, link.raw);
    const withLink = body({ paymentLinkId: link.body.paymentLink.id, amountCents: 3000 });
    const ok = await post(i.devKey, withLink, idem('link-1'));
    assert.equal(ok.status, 201, ok.raw);
    assert.equal((await call(ctx.app, 'DELETE', `/api/v1/payment-links/${link.body.paymentLink.id}`, { key: i.devKey })).status, 200);
    assert400(await post(i.devKey, body({ paymentLinkId: link.body.paymentLink.id }), idem('link-2')), 'VALIDATION_ERROR');
    const retry0 = await post(i.devKey, withLink, idem('link-1'));
    assert.equal(retry0.headers['idempotent-replayed'], 'true');
    assert.equal(retry0.raw, ok.raw);
    assert.equal(await txCount(i.id), 1);

    const b = body({ paymentMethod: 'CARD', card: card() });
    const paid = await post(i.devKey, b, idem('card-1'));
    assert.equal(paid.status, 201, paid.raw);
    assert.equal(paid.body.transaction.status, 'PAID');
    const retry = await post(i.devKey, b, idem('card-1'));
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.body, paid.body);
    assert.equal(await txCount(i.id), 2);
    assert.ok(!retry.raw.includes('4242424242424242'));
  });

  test('same key with another body -> 400 IDEMPOTENCY_KEY_REUSED; the same body in another key order is the same body', async () => {
    const i = await merchant(ctx.app);
    const b = body({ amountCents: 1500, metadata: { a: 1, b: 'x' } });
    const first = await post(i.devKey, b, idem('k-order'));
    assert.equal(first.status, 201);
    assert400(await post(i.devKey, { ...b, amountCents: 1501 }, idem('k-order')), 'IDEMPOTENCY_KEY_REUSED');
    const reversed = Object.fromEntries(Object.entries({ ...b, metadata: { b: 'x', a: 1 } }).reverse());
    assert.notEqual(JSON.stringify(reversed), JSON.stringify(b));
    const replay = await post(i.devKey, reversed, idem('k-order'));
    assert.equal(replay.status, 201, replay.raw);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.transaction.id, first.body.transaction.id);
    assert.equal(await txCount(i.id), 1);
  });

  test('an expired key (past its 24 h) is usable again; the stored row is given 24 h', async () => {
    const i = await merchant(ctx.app);
    const first = await post(i.devKey, body({ amountCents: 100 }), idem('reuse-me'));
    assert.equal(first.status, 201);
    const row = await ctx.database.db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', i.id).where('key', '=', 'reuse-me').executeTakeFirstOrThrow();
    const life = new Date(row.expires_at).getTime() - new Date(row.created_at).getTime();
    assert.ok(Math.abs(life - DAY) < 1000, `key life ${life} ms`);
    await ctx.database.db.updateTable('idempotency_keys').set({ expires_at: new Date(Date.now() - 1000) }).where('user_id', '=', i.id).where('key', '=', 'reuse-me').execute();
    const again = await post(i.devKey, body({ amountCents: 200 }), idem('reuse-me'));
    assert.equal(again.status, 201, again.raw);
    assert.equal(again.headers['idempotent-replayed'], undefined);
    assert.notEqual(again.body.transaction.id, first.body.transaction.id);
    assert.equal(again.body.transaction.amountCents, 200);
    assert.equal(await txCount(i.id), 2);
  });

  test('a key over 255 characters -> 400; 255 accepted', async () => {
    const i = await merchant(ctx.app);
    const long = await post(i.devKey, body(), idem('k'.repeat(256)));
    assert400(long, 'VALIDATION_ERROR');
    assert.ok(long.body.errors.some((e: { field: string }) => /idempotency-key/i.test(e.field)), long.raw);
    assert.equal(await txCount(i.id), 0);
    assert.equal((await post(i.devKey, body(), idem('k'.repeat(255)))).status, 201);
  });

  test('keys are per merchant: another merchant with the same key gets its own transaction', async () => {
    const a = await merchant(ctx.app);
    const b = await merchant(ctx.app);
    const payload = body({ amountCents: 999 });
    const ra = await post(a.devKey, payload, idem('shared-key'));
    const rb = await post(b.devKey, payload, idem('shared-key'));
    assert.equal(ra.status, 201);
    assert.equal(rb.status, 201, rb.raw);
    assert.equal(rb.headers['idempotent-replayed'], undefined);
    assert.notEqual(rb.body.transaction.id, ra.body.transaction.id);
    assert.equal(await txCount(b.id), 1);
    assertMessageOnly(await get(b.devKey, ra.body.transaction.id), 404);
  });

  test('a retried refund with the same key is replayed, not refunded twice; the key cannot be reused on another path', async () => {
    const i = await merchant(ctx.app);
    await pay(i.devKey, (await create(i.devKey, { amountCents: 50000 })).id);
    const t = await pay(i.devKey, (await create(i.devKey, { amountCents: 10000 })).id);
    const first = await refund(i.devKey, t.id, 1000, idem('refund-1'));
    assert.equal(first.status, 200, first.raw);
    const b = await balance(i.devKey);
    const retry = await refund(i.devKey, t.id, 1000, idem('refund-1'));
    assert.equal(retry.status, 200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.body, first.body);
    assert.equal((await get(i.devKey, t.id)).body.transaction.refundedCents, 1000);
    assert.deepEqual(await balance(i.devKey), b);
    assert400(await post(i.devKey, body(), idem('refund-1')), 'IDEMPOTENCY_KEY_REUSED');
  });
});

describe('listing', () => {
  let l: Merchant;
  let all: any[]; // the merchant's transactions in their final state
  const clientIds: string[] = [];

  /** Walks every page; returns the rows in the order served. */
  async function walk(key: string, query: string, limit: number, between?: () => Promise<void>) {
    const rows: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Res = await list(key, `?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(res.status, 200, res.raw);
      assert.ok(res.body.transactions.length <= limit);
      assert.equal(res.body.pagination.limit, limit);
      assert.equal(res.body.pagination.cursor, cursor);
      cursor = res.body.pagination.nextCursor;
      assert.equal(res.body.pagination.hasMore, cursor !== null);
      rows.push(...res.body.transactions);
      if (between) await between();
      assert.ok(++pages < 100, 'the walk ends');
    } while (cursor);
    return rows;
  }

  const keyOf = (orderBy: string, t: any) => (orderBy === 'createdAt' ? Date.parse(t.createdAt) : orderBy === 'amountCents' ? t.amountCents : t.status);
  function cmp(orderBy: string, a: any, b: any) {
    const ka = keyOf(orderBy, a);
    const kb = keyOf(orderBy, b);
    if (ka !== kb) return ka < kb ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  }

  before(async () => {
    l = await merchant(ctx.app);
    const docs = [cpf(), cpf(), cpf()];
    const amounts = [1500, 990, 25000, 1, 7777, 1500, 42];
    await pay(l.devKey, (await create(l.devKey, { amountCents: 100000, clientDocument: docs[0] })).id); // cushion for refunds
    for (let i = 0; i < 44; i++) {
      const method = ['PIX', 'BOLETO', 'CARD'][i % 3];
      const t = await create(l.devKey, { amountCents: amounts[i % amounts.length], paymentMethod: method, clientDocument: docs[Math.floor(i / 5) % 3] });
      if (i % 4 === 0) await pay(l.devKey, t.id);
      else if (i % 4 === 1) await simulate(l.devKey, t.id, 'FAILED');
      else if (i % 4 === 3) await simulate(l.devKey, t.id, 'EXPIRED');
      if (i % 8 === 0 && t.amountCents >= 990) await refund(l.devKey, t.id, i % 16 === 0 ? undefined : 100);
    }
    const res = await list(l.devKey, '?limit=100');
    all = res.body.transactions;
    for (const t of all) if (!clientIds.includes(t.client.id)) clientIds.push(t.client.id);
  });

  test('{ message, transactions, pagination { limit, cursor, hasMore, nextCursor } }; default limit 20, newest first', async () => {
    assert.equal(all.length, 45);
    const statuses = new Set(all.map((t) => t.status));
    for (const s of ['PENDING', 'PAID', 'FAILED', 'EXPIRED', 'REFUNDED', 'PARTIALLY_REFUNDED']) assert.ok(statuses.has(s), `dataset has ${s}`);
    const res = await list(l.devKey);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'pagination', 'transactions']);
    assert.deepEqual(Object.keys(res.body.pagination).sort(), ['cursor', 'hasMore', 'limit', 'nextCursor']);
    assert.equal(res.body.pagination.limit, 20);
    assert.equal(res.body.pagination.cursor, null);
    assert.equal(res.body.pagination.hasMore, true);
    assert.equal(typeof res.body.pagination.nextCursor, 'string');
    assert.equal(res.body.transactions.length, 20);
    const newest = [...all].sort((a, b) => -cmp('createdAt', a, b)).slice(0, 20);
    assert.deepEqual(res.body.transactions.map((t: any) => t.id), newest.map((t) => t.id));
    const last = await list(l.devKey, '?limit=100');
    assert.equal(last.body.pagination.hasMore, false);
    assert.equal(last.body.pagination.nextCursor, null);
  });

  test('limit bounds: 0 and 101 -> 400; 1 and 100 accepted', async () => {
    for (const limit of ['0', '101', '-1', 'abc']) assert400(await list(l.devKey, `?limit=${limit}`), 'VALIDATION_ERROR');
    assert.equal((await list(l.devKey, '?limit=1')).body.transactions.length, 1);
    assert.equal((await list(l.devKey, '?limit=100')).body.transactions.length, 45);
    assert400(await list(l.devKey, '?orderBy=product'), 'VALIDATION_ERROR');
    assert400(await list(l.devKey, '?orderDirection=up'), 'VALIDATION_ERROR');
  });

  for (const orderBy of ['createdAt', 'amountCents', 'status']) {
    for (const dir of ['asc', 'desc']) {
      test(`orderBy=${orderBy} ${dir}: walking pages of 7 returns every row exactly once, in order`, async () => {
        const rows = await walk(l.devKey, `&orderBy=${orderBy}&orderDirection=${dir}`, 7);
        assert.equal(rows.length, all.length);
        assert.deepEqual(new Set(rows.map((t) => t.id)), new Set(all.map((t) => t.id)));
        const expected = [...all].sort((a, b) => (dir === 'asc' ? 1 : -1) * cmp(orderBy, a, b));
        assert.deepEqual(rows.map((t) => t.id), expected.map((t) => t.id));
      });
    }
  }

  test('filters: status, paymentMethod and its alias method, clientId, createdFrom/createdTo (inclusive), combined', async () => {
    const ids = (rows: any[]) => rows.map((t) => t.id).sort();
    for (const status of ['PAID', 'PENDING', 'FAILED', 'EXPIRED', 'REFUNDED', 'PARTIALLY_REFUNDED']) {
      const rows = await walk(l.devKey, `&status=${status}`, 5);
      assert.deepEqual(ids(rows), ids(all.filter((t) => t.status === status)), status);
    }
    for (const method of ['PIX', 'CARD', 'BOLETO']) {
      const expected = ids(all.filter((t) => t.paymentMethod === method));
      assert.deepEqual(ids(await walk(l.devKey, `&paymentMethod=${method}`, 100)), expected);
      assert.deepEqual(ids(await walk(l.devKey, `&method=${method}`, 6)), expected, `method=${method}`);
    }
    for (const clientId of clientIds) {
      assert.deepEqual(ids(await walk(l.devKey, `&clientId=${clientId}`, 100)), ids(all.filter((t) => t.client.id === clientId)));
    }
    const byTime = [...all].sort((a, b) => cmp('createdAt', a, b));
    const mid = byTime[20].createdAt;
    const q = encodeURIComponent(mid);
    assert.deepEqual(ids(await walk(l.devKey, `&createdFrom=${q}`, 100)), ids(all.filter((t) => Date.parse(t.createdAt) >= Date.parse(mid))));
    assert.deepEqual(ids(await walk(l.devKey, `&createdTo=${q}`, 100)), ids(all.filter((t) => Date.parse(t.createdAt) <= Date.parse(mid))));
    const from = byTime[10].createdAt;
    const to = byTime[30].createdAt;
    const window = all.filter((t) => Date.parse(t.createdAt) >= Date.parse(from) && Date.parse(t.createdAt) <= Date.parse(to));
    assert.ok(window.length >= 21 && window.length < 45);
    assert.deepEqual(ids(await walk(l.devKey, `&createdFrom=${encodeURIComponent(from)}&createdTo=${encodeURIComponent(to)}&orderBy=amountCents`, 4)), ids(window));
    assert.deepEqual(ids(await walk(l.devKey, `&createdFrom=${encodeURIComponent(new Date(Date.now() + DAY).toISOString())}`, 10)), []);
    const combined = all.filter((t) => t.status === 'PAID' && t.paymentMethod === 'CARD');
    assert.ok(combined.length > 0);
    assert.deepEqual(ids(await walk(l.devKey, '&status=PAID&method=CARD&orderBy=amountCents&orderDirection=asc', 2)), ids(combined));
    for (const bad of ['status=DONE', 'paymentMethod=CASH', 'method=cash', 'clientId=123', 'createdFrom=yesterday', 'createdTo=2024-13-01']) {
      assert400(await list(l.devKey, `?${bad}`), 'VALIDATION_ERROR');
    }
  });

  test('walking while new rows are inserted between pages still returns every pre-existing row exactly once', async () => {
    const w = await merchant(ctx.app);
    const amounts = [300, 100, 200, 100, 500];
    for (let i = 0; i < 15; i++) await create(w.devKey, { amountCents: amounts[i % 5], paymentMethod: i % 2 ? 'BOLETO' : 'PIX' });
    let n = 0;
    for (const query of ['&orderBy=createdAt&orderDirection=desc', '&orderBy=createdAt&orderDirection=asc', '&orderBy=amountCents&orderDirection=asc', '&orderBy=amountCents&orderDirection=desc', '&orderBy=status&orderDirection=asc']) {
      const existing = (await walk(w.devKey, '', 100)).map((t) => t.id);
      const rows = await walk(w.devKey, query, 5, async () => {
        await create(w.devKey, { amountCents: amounts[n++ % 5], paymentMethod: n % 2 ? 'CARD' : 'PIX' });
      });
      const served = rows.map((t) => t.id);
      assert.equal(new Set(served).size, served.length, `${query}: no row twice`);
      for (const id of existing) assert.equal(served.filter((x) => x === id).length, 1, `${query}: ${id} exactly once`);
    }
  });

  test('a tampered cursor (any one character changed) -> 400 INVALID_CURSOR; a cursor of another ordering -> 400', async () => {
    const page = await list(l.devKey, '?limit=7');
    const cursor: string = page.body.pagination.nextCursor;
    assert.equal((await list(l.devKey, `?limit=7&cursor=${encodeURIComponent(cursor)}`)).status, 200);
    for (let i = 0; i < cursor.length; i++) {
      const flipped = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
      assert400(await list(l.devKey, `?limit=7&cursor=${encodeURIComponent(flipped)}`), 'INVALID_CURSOR');
    }
    for (const junk of ['abc', 'abc.def', '.', cursor + 'x', cursor.split('.')[0]]) assert400(await list(l.devKey, `?cursor=${encodeURIComponent(junk)}`), 'INVALID_CURSOR');
    assert400(await list(l.devKey, `?limit=7&orderBy=amountCents&cursor=${encodeURIComponent(cursor)}`), 'INVALID_CURSOR', ['cursor']);
    assert400(await list(l.devKey, `?limit=7&orderDirection=asc&cursor=${encodeURIComponent(cursor)}`), 'INVALID_CURSOR', ['cursor']);
    const amountCursor = (await list(l.devKey, '?limit=7&orderBy=amountCents')).body.pagination.nextCursor;
    assert400(await list(l.devKey, `?limit=7&orderBy=status&cursor=${encodeURIComponent(amountCursor)}`), 'INVALID_CURSOR', ['cursor']);
  });
});

describe('isolation between merchants', () => {
  test('merchant B gets 404 for A\'s transaction (GET, refund, simulate) and never sees it in lists', async () => {
    const a = await merchant(ctx.app);
    const b = await merchant(ctx.app);
    const pending = await create(a.devKey);
    const paid = await pay(a.devKey, (await create(a.devKey, { amountCents: 5000 })).id);
    await create(b.devKey);
    for (const t of [pending, paid]) {
      assertMessageOnly(await get(b.devKey, t.id), 404);
      assertMessageOnly(await refund(b.devKey, t.id, 100), 404);
      assertMessageOnly(await refund(b.devKey, t.id), 404);
      assertMessageOnly(await simulate(b.devKey, t.id, 'PAID'), 404);
    }
    assert.equal((await get(a.devKey, pending.id)).body.transaction.status, 'PENDING');
    assert.equal((await get(a.devKey, paid.id)).body.transaction.refundedCents, 0);
    const seen = (await list(b.devKey, '?limit=100')).body.transactions.map((t: any) => t.id);
    assert.equal(seen.length, 1);
    assert.ok(!seen.includes(pending.id) && !seen.includes(paid.id));
    assert.deepEqual((await list(b.devKey, `?clientId=${pending.client.id}`)).body.transactions, []);
    assert.deepEqual(await balance(b.devKey), { available: 0, receivable: 0, reserved: 0 });
  });
});

describe('production keys without a payment provider', () => {
  test('a production create -> 503 { message } and nothing is written, with or without Idempotency-Key', async () => {
    const p = await merchant(ctx.app, { live: true });
    const tables = ['transactions', 'clients', 'events', 'idempotency_keys', 'ledger_journals', 'receivables'];
    const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const)));
    const before_ = await counts();
    for (const b of [body(), body({ paymentMethod: 'BOLETO' }), body({ paymentMethod: 'CARD', card: card() })]) {
      for (const headers of [{}, { 'idempotency-key': 'live-1' }, { 'idempotency-key': 'live-1' }] as Record<string, string>[]) {
        const res = await post(p.liveKey!, b, headers);
        assertMessageOnly(res, 503);
        assert.equal(res.headers['idempotent-replayed'], undefined);
        assert.ok(!res.raw.includes('4242424242424242'));
      }
    }
    assert.deepEqual(await counts(), before_);
    // The development key of the same merchant still works.
    assert.equal((await post(p.devKey, body())).status, 201);
  });
});

/**
 * A second app over the same database, configured with PAYMENT_PROVIDER. (A second startApp() would
 * migrate a second PostgreSQL schema, which src/db's migrate() cannot do while another schema of
 * the same database already holds Kysely's migration tables.)
 */
async function siblingApp(env: Record<string, string>): Promise<TestContext> {
  const config = loadConfig({ JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789', LOG_LEVEL: 'info', BASE_URL: 'http://localhost:3000', ...env });
  const limiter = new MemoryLimiter();
  const logs: string[] = [];
  const logStream = { write: (chunk: string) => void logs.push(String(chunk)) };
  const app = await buildApp({ config, database: ctx.database, limiter, logStream, perUserPerMinute: 1_000_000 });
  await app.ready();
  return {
    ...ctx,
    app,
    config,
    limiter,
    logs,
    async close() {
      await app.close();
      await limiter.close();
    },
  };
}

describe('production keys with the sandbox provider configured (PAYMENT_PROVIDER=sandbox)', () => {
  let live: TestContext;
  let p: Merchant;
  before(async () => {
    live = await siblingApp({ PAYMENT_PROVIDER: 'sandbox' });
    p = await merchant(live.app, { live: true });
  });
  after(() => live.close());

  test('production transactions are created (livemode true) and a card is charged', async () => {
    const t = await create(p.liveKey!, {}, live);
    assert.equal(t.livemode, true);
    assert.equal(t.status, 'PENDING');
    const c = await create(p.liveKey!, { paymentMethod: 'CARD', amountCents: 20000, card: card() }, live);
    assert.equal(c.status, 'PAID');
    assert.deepEqual(await balance(p.liveKey!, live), { available: 0, receivable: 20000 - cardFee(20000), reserved: 0 });
    assert.deepEqual(await balance(p.devKey, live), { available: 0, receivable: 0, reserved: 0 });
    const events = await eventsFor(c.id, live);
    assert.ok(events.length >= 4 && events.every((e) => e.livemode === true));
  });

  test('simulate with a production key -> 403 { message }; the transaction is unchanged', async () => {
    const t = await create(p.liveKey!, {}, live);
    for (const outcome of ['PAID', 'FAILED', 'EXPIRED']) assertMessageOnly(await simulate(p.liveKey!, t.id, outcome, live), 403);
    assert.equal((await get(p.liveKey!, t.id, live)).body.transaction.status, 'PENDING');
    assert.equal((await eventsFor(t.id, live)).length, 1);
  });

  test('a development key never sees production transactions, and vice versa', async () => {
    const prod = await create(p.liveKey!, {}, live);
    const dev = await create(p.devKey, {}, live);
    assert.equal(dev.livemode, false);
    assertMessageOnly(await get(p.devKey, prod.id, live), 404);
    assertMessageOnly(await get(p.liveKey!, dev.id, live), 404);
    assertMessageOnly(await simulate(p.devKey, prod.id, 'PAID', live), 404);
    const devList = (await list(p.devKey, '?limit=100', live)).body.transactions;
    const liveList = (await list(p.liveKey!, '?limit=100', live)).body.transactions;
    assert.ok(devList.length >= 1 && devList.every((t: any) => t.livemode === false));
    assert.ok(liveList.length >= 3 && liveList.every((t: any) => t.livemode === true));
    assert.ok(!devList.some((t: any) => t.id === prod.id));
    assert.ok(!liveList.some((t: any) => t.id === dev.id));
    // Clients are per environment too: the same document is two clients.
    const doc = cpf();
    const a = await create(p.liveKey!, { clientDocument: doc }, live);
    const b = await create(p.devKey, { clientDocument: doc }, live);
    assert.notEqual(a.client.id, b.client.id);
  });
});

describe('jobs', () => {
  test('expireDue: PENDING PIX and boleto past expiresAt become EXPIRED with events; card PENDING, paid and not-yet-due untouched', async () => {
    const j = await merchant(ctx.app);
    const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10); // São Paulo (UTC-3)
    const soon = new Date(Date.now() + 90_000).toISOString();
    const pix = await create(j.devKey, { dueDate: soon });
    const boleto = await create(j.devKey, { paymentMethod: 'BOLETO', dueDate: today });
    const cardPending = await create(j.devKey, { paymentMethod: 'CARD' });
    const paid = await pay(j.devKey, (await create(j.devKey, { dueDate: soon })).id);
    const later = await create(j.devKey, { dueDate: new Date(Date.now() + 10 * DAY).toISOString() });
    const laterBoleto = await create(j.devKey, { paymentMethod: 'BOLETO', dueDate: new Date(Date.now() + 5 * DAY - 3 * 3600_000).toISOString().slice(0, 10) });
    assert.equal(Date.parse(boleto.expiresAt), Date.parse(`${today}T23:59:59.999-03:00`));
    const future = new Date(Math.max(Date.parse(`${today}T23:59:59.999-03:00`), Date.now() + 90_000) + 60_000);

    // Not yet due: nothing of this merchant moves.
    while ((await expireDue(ctx.database.db, new Date(), 500)) > 0);
    assert.equal((await get(j.devKey, pix.id)).body.transaction.status, 'PENDING');

    let total = 0;
    for (let n: number; (n = await expireDue(ctx.database.db, future, 500)) > 0; ) total += n;
    assert.ok(total >= 2);
    const status = async (id: string) => (await get(j.devKey, id)).body.transaction.status;
    assert.equal(await status(pix.id), 'EXPIRED');
    assert.equal(await status(boleto.id), 'EXPIRED');
    assert.equal(await status(cardPending.id), 'PENDING');
    assert.equal(await status(paid.id), 'PAID');
    assert.equal(await status(later.id), 'PENDING');
    assert.equal(await status(laterBoleto.id), 'PENDING');
    for (const t of [pix, boleto]) {
      const events = await eventsFor(t.id);
      assert.deepEqual(typesOf(events), ['transaction.created', 'transaction.updated']);
      const updated = events.find((e) => e.type === 'transaction.updated')!.data;
      assert.equal(updated.status, 'EXPIRED');
      assert.equal(updated.previousStatus, 'PENDING');
    }
    assert.deepEqual(typesOf(await eventsFor(cardPending.id)), ['transaction.created']);
    // Running again changes nothing.
    await expireDue(ctx.database.db, future, 500);
    assert.equal((await eventsFor(pix.id)).length, 2);
    assert.deepEqual(await balance(j.devKey), { available: paid.netAmountCents, receivable: 0, reserved: 0 });
    assert400(await simulate(j.devKey, pix.id, 'PAID'), 'INVALID_STATE_TRANSITION');
  });

  test('settleDue: after 31 days the first instalment of a paid card moves from receivable to available; later ones stay', async () => {
    const s = await merchant(ctx.app);
    const t = await create(s.devKey, { paymentMethod: 'CARD', amountCents: 30000, installments: 3, card: card() });
    const rs = await receivables(t.id);
    assert.deepEqual(await balance(s.devKey), { available: 0, receivable: t.netAmountCents, reserved: 0 });
    const settleAll = async (at: Date) => {
      while ((await settleDue(ctx.database.db, at, 500)) > 0);
    };
    await settleAll(new Date(Date.now() + 29 * DAY));
    assert.deepEqual((await receivables(t.id)).map((r) => r.status), ['PENDING', 'PENDING', 'PENDING']);

    await settleAll(new Date(Date.now() + 31 * DAY));
    assert.deepEqual((await receivables(t.id)).map((r) => r.status), ['SETTLED', 'PENDING', 'PENDING']);
    assert.deepEqual(await balance(s.devKey), { available: rs[0].amount, receivable: t.netAmountCents - rs[0].amount, reserved: 0 });
    await settleAll(new Date(Date.now() + 31 * DAY));
    assert.deepEqual(await balance(s.devKey), { available: rs[0].amount, receivable: t.netAmountCents - rs[0].amount, reserved: 0 });

    await settleAll(new Date(Date.now() + 61 * DAY));
    assert.deepEqual((await receivables(t.id)).map((r) => r.status), ['SETTLED', 'SETTLED', 'PENDING']);
    assert.deepEqual(await balance(s.devKey), { available: rs[0].amount + rs[1].amount, receivable: rs[2].amount, reserved: 0 });
    const entries = (await call(ctx.app, 'GET', '/api/v1/balance/entries?limit=100', { key: s.devKey })).body.entries;
    assert.equal(entries.filter((e: any) => e.kind === 'settlement').length, 4); // two instalments, each receivable -> available
    await assertLedgerConsistent();
  });

  test('the whole ledger balances after everything above', async () => {
    await assertLedgerConsistent();
  });
});
