// Checkout races on real PostgreSQL (PGlite serialises everything on one connection): concurrent
// checkouts and payments of a link with stock, card checkouts charged at once, coupon usage and
// per-customer limits under concurrent payments. Requests go over a real socket so the pool runs
// them in parallel; the ledger is checked after each scenario.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { assertLedgerBalanced } from './ledger-check.ts';
import { call, cpf, onPostgres, type Merchant, type TestContext } from './helpers.ts';
import { ready, useApp, useMerchant } from './kit/app.ts';

const skip = onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)';
const YEAR = new Date().getUTCFullYear();

interface HttpRes {
  status: number;
  body: any;
}

let ctx: TestContext;
let base: string;
let m: Merchant;

async function http(method: string, path: string, body?: unknown, key?: string, headers: Record<string, string> = {}): Promise<HttpRes> {
  const res = await fetch(base + path, {
    method,
    headers: { ...headers, ...(key ? { 'api-key': key } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* text */
  }
  return { status: res.status, body: parsed };
}

function tally(list: HttpRes[], pick: (r: HttpRes) => string = (r) => (r.status === 400 ? `400 ${r.body?.code}` : String(r.status))): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of list) out[pick(r)] = (out[pick(r)] ?? 0) + 1;
  return out;
}

let seq = 0;
const order = (over: Record<string, unknown> = {}) => ({ clientName: 'Cliente', clientEmail: `c${++seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', ...over });
const card = () => ({ number: '4242424242424242', holderName: 'CLIENTE', expMonth: 12, expYear: YEAR + 2, cvv: '123' });
const checkout = (slug: string, body: Record<string, unknown>, headers?: Record<string, string>) => http('POST', `/api/payment-links/public/slug/${slug}/checkout`, body, undefined, headers);
const pay = (id: string) => http('POST', `/api/v1/transactions/${id}/simulate`, { outcome: 'PAID' }, m.devKey);

async function link(body: Record<string, unknown>) {
  const res = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Lote limitado', amountCents: 5000, ...body } });
  assert.equal(res.status, 201, res.raw);
  return res.body.paymentLink;
}
const linkRow = (id: string) => ctx.database.db.selectFrom('payment_links').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const paidOf = (linkId: string) =>
  ctx.database.db.selectFrom('transactions').select(['id', 'status', 'failure_reason']).where('payment_link_id', '=', linkId).execute();

describe('checkout concurrency on PostgreSQL', { skip }, () => {
  ctx = useApp();
  m = useMerchant(ctx);
  before(async () => {
    await ready(ctx);
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });

  test('stock 5: 40 concurrent PIX checkouts, then 40 concurrent payments: exactly 5 sales', async (t) => {
    const l = await link({ stockEnabled: true, stockQuantity: 5 });
    const created = await Promise.all(Array.from({ length: 40 }, () => checkout(l.slug, order())));
    t.diagnostic(`checkouts: ${JSON.stringify(tally(created))}`);
    assert.deepEqual(tally(created), { '201': 40 }, 'nothing is reserved at checkout');
    const paid = await Promise.all(created.map((r) => pay(r.body.transaction.id)));
    const outcome = tally(paid, (r) => `${r.status} ${r.body?.transaction?.status} ${r.body?.transaction?.failureReason ?? ''}`.trim());
    t.diagnostic(`payments: ${JSON.stringify(outcome)}`);
    assert.deepEqual(outcome, { '200 PAID': 5, '200 FAILED OUT_OF_STOCK': 35 });
    const row = await linkRow(l.id);
    assert.equal(row.stock_quantity, 0);
    assert.equal(row.sales_count, 5);
    assert.equal(row.times_used, 40);
    assert.equal((await paidOf(l.id)).filter((x) => x.status === 'PAID').length, 5);
    const refused = await checkout(l.slug, order());
    assert.equal(refused.body.code, 'INSUFFICIENT_STOCK');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('checkouts and payments interleaved (each checkout paid as soon as it exists): never oversold', async (t) => {
    const l = await link({ stockEnabled: true, stockQuantity: 7 });
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const body = i % 3 === 2 ? order({ paymentMethod: 'CARD', card: card(), installments: 1 + (i % 4) }) : order({ paymentMethod: i % 3 ? 'BOLETO' : 'PIX' });
        const c = await checkout(l.slug, body);
        if (c.status !== 201) return c;
        if (c.body.transaction.status !== 'PENDING') return { status: 200, body: { transaction: c.body.transaction } };
        return pay(c.body.transaction.id);
      }),
    );
    const outcome = tally(results, (r) => (r.status === 400 ? `400 ${r.body.code}` : `${r.status} ${r.body.transaction.status} ${r.body.transaction.failureReason ?? ''}`.trim()));
    t.diagnostic(JSON.stringify(outcome));
    assert.equal(outcome['200 PAID'], 7, JSON.stringify(outcome));
    for (const k of Object.keys(outcome)) assert.ok(['200 PAID', '200 FAILED OUT_OF_STOCK', '400 INSUFFICIENT_STOCK'].includes(k), k);
    const row = await linkRow(l.id);
    assert.equal(row.stock_quantity, 0);
    assert.equal(row.sales_count, 7);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('stock 3: 30 concurrent card checkouts charged at once: exactly 3 sales', async (t) => {
    const l = await link({ stockEnabled: true, stockQuantity: 3 });
    const all = await Promise.all(Array.from({ length: 30 }, () => checkout(l.slug, order({ paymentMethod: 'CARD', card: card() }))));
    const outcome = tally(all, (r) => (r.status === 400 ? `400 ${r.body.code}` : `${r.status} ${r.body.transaction.status} ${r.body.transaction.failureReason ?? ''}`.trim()));
    t.diagnostic(JSON.stringify(outcome));
    assert.equal(outcome['201 PAID'], 3, JSON.stringify(outcome));
    for (const k of Object.keys(outcome)) assert.ok(['201 PAID', '201 FAILED OUT_OF_STOCK', '400 INSUFFICIENT_STOCK'].includes(k), k);
    const row = await linkRow(l.id);
    assert.equal(row.stock_quantity, 0);
    assert.equal(row.sales_count, 3);
    await assertLedgerBalanced(ctx.database.db);
  });

  test('coupon usageLimit 3: of 50 concurrent checkouts exactly 3 get the discount (a use is reserved at checkout); paying them counts 3', async (t) => {
    const l = await link({});
    const code = `LIMITE${randomBytes(3).toString('hex').toUpperCase()}`;
    const c = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code, discountType: 'PERCENTAGE', discountValue: 20, usageLimit: 3 } });
    assert.equal(c.status, 201, c.raw);
    const created = await Promise.all(Array.from({ length: 50 }, () => checkout(l.slug, order({ couponCode: code }))));
    t.diagnostic(`checkouts: ${JSON.stringify(tally(created))}`);
    assert.deepEqual(tally(created), { '201': 3, '400 INVALID_COUPON': 47 });
    const discounted = created.filter((r) => r.status === 201);
    for (const r of discounted) assert.equal(r.body.transaction.amountCents, 4000);
    const paid = await Promise.all(discounted.map((r) => pay(r.body.transaction.id)));
    assert.deepEqual(tally(paid, (r) => `${r.status} ${r.body.transaction.status}`), { '200 PAID': 3 });
    const row = await ctx.database.db.selectFrom('coupons').selectAll().where('id', '=', c.body.coupon.id).executeTakeFirstOrThrow();
    assert.equal(row.used_count, 3);
    const redemptions = await ctx.database.db.selectFrom('coupon_redemptions').select(['status']).where('coupon_id', '=', row.id).execute();
    assert.deepEqual(redemptions.map((r) => r.status), ['USED', 'USED', 'USED']);
    assert.equal((await checkout(l.slug, order({ couponCode: code }))).body.code, 'INVALID_COUPON');
    await assertLedgerBalanced(ctx.database.db);
  });

  test('coupon perUserLimit 1: one customer sending 8 discounted checkouts at once gets one discount', async () => {
    const l = await link({});
    const code = `UMPOR${randomBytes(3).toString('hex').toUpperCase()}`;
    const c = await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code, discountType: 'FIXED', discountValue: 500, perUserLimit: 1 } });
    const doc = cpf();
    // Refusals after the winner's reservation count against the IP's 10 coupon attempts a minute and
    // a device's 5 in 5 minutes: the test above's refusals are forgotten, each request is its own
    // device, and 8 (not 10) leaves the IP room for the last checkout below.
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) await ctx.app.deps.limiter.reset(`coupon:ip:${ip}`);
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) => checkout(l.slug, order({ couponCode: code, clientDocument: doc, clientEmail: 'mesma@example.com' }), { 'x-device-id': `same-customer-${i}-${randomBytes(4).toString('hex')}` })),
    );
    assert.deepEqual(tally(created), { '201': 1, '400 INVALID_COUPON': 7 });
    const [ok] = created.filter((r) => r.status === 201);
    assert.equal((await pay(ok.body.transaction.id)).status, 200);
    const row = await ctx.database.db.selectFrom('coupons').selectAll().where('id', '=', c.body.coupon.id).executeTakeFirstOrThrow();
    assert.equal(row.used_count, 1);
    // Another customer (another device: the refusals above may count against this device's coupon
    // attempts, depending on whether they were refused before or after the winner's reservation) still gets it.
    assert.equal((await checkout(l.slug, order({ couponCode: code }), { 'x-device-id': `other-${randomBytes(6).toString('hex')}` })).status, 201);
    await assertLedgerBalanced(ctx.database.db);
  });
});
