// Limits of the public checkout: checkouts per IP per minute, and against card testing, production
// card charges per IP and declines per IP and per device (development links exempt), on the link
// checkout and on the card step of API transactions. PGlite by default, PostgreSQL with
// TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { call, cpf, type Res } from './helpers.ts';
import { ready, useApp, useMerchant } from './kit/app.ts';
import { assert429 } from './kit/assert.ts';
import { specBody } from './envelope.ts';

const YEAR = new Date().getUTCFullYear();
const ctx = useApp({ env: { PAYMENT_PROVIDER: 'sandbox', CHECKOUT_PER_IP_PER_MINUTE: '6', CARD_ATTEMPTS_PER_IP_PER_HOUR: '4', CARD_DECLINES_PER_HOUR: '2' } });
const m = useMerchant(ctx, { live: true });
let live: { slug: string };
let dev: { slug: string };

before(async () => {
  await ready(m);
  const link = async (key: string) => {
    const res = await call(ctx.app, 'POST', '/api/v1/payment-links', { key, body: { title: 'Ingresso', amountCents: 5000 } });
    assert.equal(res.status, 201, res.raw);
    return res.body.paymentLink;
  };
  live = await link(m.liveKey!);
  dev = await link(m.devKey);
});

const card = (number = '4242424242424242') => ({ number, holderName: 'JOANA LIMA', expMonth: 12, expYear: YEAR + 2, cvv: '123' });
const DECLINED = '4000000000000002';
let seq = 0;
function order(over: Record<string, unknown> = {}) {
  seq++;
  return { clientName: 'Joana Lima', clientEmail: `joana.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'CARD', card: card(), ...over };
}

async function post(url: string, body: unknown, ip: string, device?: string): Promise<Res> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(device ? { 'x-device-id': device } : {}) };
  const r = await ctx.app.inject({ method: 'POST', url, headers, payload: JSON.stringify(body), remoteAddress: ip });
  return { status: r.statusCode, body: specBody(url, r.statusCode, JSON.parse(r.body)) as any, headers: r.headers as Res['headers'], raw: r.body };
}
const checkout = (slug: string, body: unknown, ip: string, device?: string) => post(`/api/payment-links/public/slug/${slug}/checkout`, body, ip, device);

async function txCount(): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from transactions where user_id = ${m.id}`.execute(ctx.database.db);
  return Number(r.rows[0].n);
}

describe('card testing on production links', () => {
  test('after the declines limit an IP cannot try another card for the hour, and nothing is written; PIX still works', async () => {
    const ip = '203.0.113.10';
    for (let i = 0; i < 2; i++) {
      const res = await checkout(live.slug, order({ card: card(DECLINED) }), ip);
      assert.equal(res.status, 201, res.raw);
      assert.equal(res.body.transaction.status, 'FAILED');
    }
    const before_ = await txCount();
    assert429(await checkout(live.slug, order(), ip)); // even a good card
    assert.equal(await txCount(), before_);
    const pix = await checkout(live.slug, order({ paymentMethod: 'PIX', card: undefined }), ip);
    assert.equal(pix.status, 201, pix.raw);
    // Another customer is not affected.
    assert.equal((await checkout(live.slug, order(), '203.0.113.11')).body.transaction.status, 'PAID');
  });

  test('declines also count per device: the same device from another IP is stopped', async () => {
    const device = 'device-card-tester-1';
    for (const ip of ['198.51.100.1', '198.51.100.2']) assert.equal((await checkout(live.slug, order({ card: card(DECLINED) }), ip, device)).body.transaction.status, 'FAILED');
    assert429(await checkout(live.slug, order(), '198.51.100.3', device));
    assert.equal((await checkout(live.slug, order(), '198.51.100.3', 'another-device-1')).status, 201);
  });

  test('card charges per IP per hour, approved or not', async () => {
    const ip = '203.0.113.20';
    for (let i = 0; i < 4; i++) assert.equal((await checkout(live.slug, order(), ip)).body.transaction.status, 'PAID');
    assert429(await checkout(live.slug, order(), ip));
  });

  test('the card step of an API transaction is limited the same way; a refused attempt leaves it payable', async () => {
    const ip = '203.0.113.30';
    const create = async () => {
      const res = await call(ctx.app, 'POST', '/api/v1/transactions', {
        key: m.liveKey,
        body: { product: 'Ingresso', amountCents: 2500, clientName: 'Joana Lima', clientEmail: 'joana@example.com', clientDocument: cpf(), paymentMethod: 'CARD' },
      });
      assert.equal(res.status, 201, res.raw);
      return res.body.transaction.id as string;
    };
    for (let i = 0; i < 2; i++) assert.equal((await post(`/api/checkout/transactions/${await create()}/card`, { card: card(DECLINED) }, ip)).body.transaction.status, 'FAILED');
    const id = await create();
    assert429(await post(`/api/checkout/transactions/${id}/card`, { card: card() }, ip));
    const paid = await post(`/api/checkout/transactions/${id}/card`, { card: card() }, '203.0.113.31');
    assert.equal(paid.status, 200, paid.raw);
    assert.equal(paid.body.transaction.status, 'PAID');
  });

  // Truly concurrent on PostgreSQL (PGlite's one connection serialises the requests enough to hide the race).
  test('declines racing each other: an attempt counts before the provider is asked, so 20 at once charge at most the limit', async () => {
    const device = 'race-device-0001';
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => checkout(live.slug, order({ card: card(DECLINED) }), `203.0.113.${100 + i}`, device)));
    const charged = results.filter((r) => r.status === 201);
    assert.ok(charged.length <= 2, `${charged.length} cards reached the provider, the limit is 2`);
    for (const r of charged) assert.equal(r.body.transaction.status, 'FAILED');
    for (const r of results.filter((x) => x.status !== 201)) assert429(r);
    // The device stays blocked for the hour, for any card.
    assert429(await checkout(live.slug, order(), '203.0.113.99', device));
  });

  test('an approved card takes its attempt back: it is no decline', async () => {
    const device = 'approved-device-01';
    for (let i = 0; i < 3; i++) assert.equal((await checkout(live.slug, order(), `203.0.114.${i}`, device)).body.transaction.status, 'PAID');
    assert.equal((await checkout(live.slug, order({ card: card(DECLINED) }), '203.0.114.10', device)).body.transaction.status, 'FAILED');
  });

  test('development links are exempt: the sandbox takes only test cards', async () => {
    const ip = '203.0.113.40';
    for (let i = 0; i < 5; i++) assert.equal((await checkout(dev.slug, order({ card: card(DECLINED) }), ip)).body.transaction.status, 'FAILED');
    assert.equal((await checkout(dev.slug, order(), ip)).body.transaction.status, 'PAID');
  });
});

describe('card testing on production subscriptions: the same limits as a one-off card payment', () => {
  let livePlan: { id: string };
  let devPlan: { id: string };
  before(async () => {
    const plan = async (key: string) => {
      const res = await call(ctx.app, 'POST', '/api/subscriptions/plans', { key, body: { name: 'Clube', amountCents: 2990, interval: 'MONTHLY', paymentMethods: ['CARD', 'PIX'] } });
      assert.equal(res.status, 201, res.raw);
      return res.body.plan;
    };
    livePlan = await plan(m.liveKey!);
    devPlan = await plan(m.devKey);
  });
  const subscribeAt = (planId: string, body: Record<string, unknown>, ip: string, device?: string) => post('/api/subscriptions/checkout', { planId, ...body }, ip, device);
  const subCount = async () => Number((await sql<{ n: number }>`select count(*)::int as n from subscriptions where user_id = ${m.id}`.execute(ctx.database.db)).rows[0].n);

  test('declines on the subscription checkout stop the IP for any card, nothing written; PIX still works; another IP is not affected', async () => {
    const ip = '203.0.113.60';
    for (let i = 0; i < 2; i++) {
      const res = await subscribeAt(livePlan.id, order({ card: card(DECLINED) }), ip);
      assert.equal(res.status, 201, res.raw);
      assert.equal(res.body.subscription.status, 'INCOMPLETE', 'the first charge was declined');
    }
    const subs = await subCount();
    const txs = await txCount();
    assert429(await subscribeAt(livePlan.id, order(), ip)); // even a good card
    assert.equal(await subCount(), subs, 'no subscription, no seat');
    assert.equal(await txCount(), txs, 'no charge');
    const pix = await subscribeAt(livePlan.id, order({ paymentMethod: 'PIX', card: undefined }), ip);
    assert.equal(pix.status, 201, pix.raw);
    assert.equal((await subscribeAt(livePlan.id, order(), '203.0.113.61')).body.subscription.status, 'ACTIVE');
  });

  test('one set of counters: declines on a payment link stop the same device on the subscription checkout, and the reverse', async () => {
    const device = 'sub-card-tester-01';
    for (const ip of ['198.51.100.60', '198.51.100.61']) assert.equal((await checkout(live.slug, order({ card: card(DECLINED) }), ip, device)).body.transaction.status, 'FAILED');
    assert429(await subscribeAt(livePlan.id, order(), '198.51.100.62', device));
    const other = 'sub-card-tester-02';
    for (const ip of ['198.51.100.63', '198.51.100.64']) assert.equal((await subscribeAt(livePlan.id, order({ card: card(DECLINED) }), ip, other)).body.subscription.status, 'INCOMPLETE');
    assert429(await checkout(live.slug, order(), '198.51.100.65', other));
  });

  test('card charges per IP per hour count subscriptions and one-off payments together, approved or not', async () => {
    const ip = '203.0.113.70';
    for (let i = 0; i < 2; i++) assert.equal((await checkout(live.slug, order(), ip)).body.transaction.status, 'PAID');
    for (let i = 0; i < 2; i++) assert.equal((await subscribeAt(livePlan.id, order(), ip)).body.subscription.status, 'ACTIVE');
    assert429(await subscribeAt(livePlan.id, order(), ip));
    assert429(await checkout(live.slug, order(), ip));
  });

  test('development plans are exempt, as development links are', async () => {
    const ip = '203.0.113.80';
    for (let i = 0; i < 5; i++) assert.equal((await subscribeAt(devPlan.id, order({ card: card(DECLINED) }), ip)).body.subscription.status, 'INCOMPLETE');
    assert.equal((await subscribeAt(devPlan.id, order(), ip)).body.subscription.status, 'ACTIVE');
  });
});

describe('checkouts per IP', () => {
  test('any method, any environment: over the minute\'s limit -> 429 with Retry-After, nothing written', async () => {
    const ip = '203.0.113.50';
    for (let i = 0; i < 6; i++) assert.equal((await checkout(dev.slug, order({ paymentMethod: 'PIX', card: undefined }), ip)).status, 201);
    const before_ = await txCount();
    assert429(await checkout(dev.slug, order({ paymentMethod: 'PIX', card: undefined }), ip));
    assert429(await checkout(live.slug, order(), ip));
    assert.equal(await txCount(), before_);
    assert.equal((await checkout(dev.slug, order({ paymentMethod: 'PIX', card: undefined }), '203.0.113.51')).status, 201);
  });

  test('malformed requests count too: an IP sending empty bodies is stopped like one sending orders', async () => {
    const ip = '203.0.113.90';
    for (let i = 0; i < 6; i++) { const r = await checkout(dev.slug, {}, ip); assert.equal(r.status, 400, `${i}: ${r.raw}`); }
    assert429(await checkout(dev.slug, {}, ip));
    assert429(await checkout(dev.slug, order({ paymentMethod: 'PIX', card: undefined }), ip));
  });
});
