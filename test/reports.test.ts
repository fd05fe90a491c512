// GET /api/v1/reports/summary and /timeseries: the figures equal what this file computes from the
// transactions and refunds it made (placed on chosen São Paulo days, around midnight), for one
// merchant and environment only; presets count back from today in São Paulo; bad queries are 400s.
// Runs on PGlite (default) and on PostgreSQL (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { migrations } from '../src/db/migrations/index.ts';
import { call, merchant, type Merchant } from './helpers.ts';
import { assert400 } from './kit/assert.ts';
import { card, create, ctx, m, pay, refund, useTransactionsApp } from './transactions-kit.ts';

useTransactionsApp();

const S = '/api/v1/reports/summary';
const TS = '/api/v1/reports/timeseries';
const HOUR = 3_600_000;

/** São Paulo is UTC-3 all year since 2019: the calendar day of an instant, computed here on its own. */
const spDay = (t: Date) => new Date(t.getTime() - 3 * HOUR).toISOString().slice(0, 10);
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;

interface Row {
  payment_method: 'PIX' | 'CARD' | 'BOLETO';
  amount_cents: number;
  charged_cents: number;
  fee_cents: number;
  created_at: Date;
  paid_at: Date | null;
  authorized_at: Date | null;
  card_last4: string | null;
}

async function rowsOf(who: Merchant) {
  const db = ctx.database.db;
  const txs = (await db.selectFrom('transactions').select(['payment_method', 'amount_cents', 'charged_cents', 'fee_cents', 'created_at', 'paid_at', 'authorized_at', 'card_last4']).where('user_id', '=', who.id).where('livemode', '=', false).execute()) as Row[];
  const refunds = await db.selectFrom('refunds').select(['amount_cents', 'created_at', 'status']).where('user_id', '=', who.id).where('livemode', '=', false).execute();
  return { txs, refunds };
}

/** The contract's Totals, computed from the rows. */
function expectedTotals({ txs, refunds }: Awaited<ReturnType<typeof rowsOf>>, from: string, to: string) {
  const inside = (t: Date | null) => t !== null && spDay(t) >= from && spDay(t) <= to;
  const paid = txs.filter((t) => inside(t.paid_at));
  const created = txs.filter((t) => inside(t.created_at));
  const made = refunds.filter((r) => inside(r.created_at) && r.status !== 'FAILED');
  const sum = (xs: { amount_cents: number }[]) => xs.reduce((s, x) => s + Number(x.amount_cents), 0);
  // Gross is what was charged (card interest, a late PIX's fine included), like the fee.
  const charged = (xs: Row[]) => xs.reduce((s, x) => s + Number(x.charged_cents), 0);
  const gross = charged(paid);
  const fees = paid.reduce((s, t) => s + Number(t.fee_cents), 0);
  const refunded = sum(made);
  const funnel = (method: string) => {
    const issued = created.filter((t) => t.payment_method === method);
    const p = issued.filter((t) => t.paid_at !== null).length;
    return { issued: issued.length, paid: p, conversionRate: issued.length ? p / issued.length : null };
  };
  const tried = created.filter((t) => t.payment_method === 'CARD' && t.card_last4 !== null);
  const approved = tried.filter((t) => t.authorized_at !== null || t.paid_at !== null).length;
  const byMethod = (method: string) => {
    const xs = paid.filter((t) => t.payment_method === method);
    return { grossCents: charged(xs), paidCount: xs.length };
  };
  return {
    grossCents: gross,
    netCents: gross - fees - refunded,
    feeCents: fees,
    paidCount: paid.length,
    averageTicketCents: paid.length ? Math.round(gross / paid.length) : 0,
    refundedCents: refunded,
    refundCount: made.length,
    // This file's sales have no chargebacks (test/reports-chargebacks.test.ts has).
    chargebackCents: 0,
    chargebackCount: 0,
    chargebackWonCents: 0,
    chargebackWonCount: 0,
    card: { attempted: tried.length, approved, approvalRate: tried.length ? approved / tried.length : null },
    pix: funnel('PIX'),
    boleto: funnel('BOLETO'),
    byMethod: { PIX: byMethod('PIX'), CARD: byMethod('CARD'), BOLETO: byMethod('BOLETO') },
  };
}

function expectedDays({ txs }: Awaited<ReturnType<typeof rowsOf>>, from: string, to: string) {
  const days = [];
  for (let d = from; d <= to; d = addDays(d, 1)) {
    const paid = txs.filter((t) => t.paid_at && spDay(t.paid_at) === d);
    const of = (m: string) => paid.filter((t) => t.payment_method === m).reduce((s, t) => s + Number(t.charged_cents), 0);
    days.push({ date: d, PIX: of('PIX'), CARD: of('CARD'), BOLETO: of('BOLETO'), paidCount: paid.length });
  }
  return days;
}

/** Moves a transaction (and its refunds) to chosen instants, as if it had happened then. */
async function place(id: string, createdAt: string, paidAt?: string) {
  const created = new Date(createdAt);
  const paid = paidAt ? new Date(paidAt) : null;
  await sql`update transactions set created_at = ${created}, paid_at = case when paid_at is null then null else ${paid}::timestamptz end,
            authorized_at = case when authorized_at is null then null else ${created}::timestamptz end where id = ${id}`.execute(ctx.database.db);
}

// The period under test: 10-12 March 2026 (São Paulo), the previous one 7-9 March.
const FROM = '2026-03-10';
const TO = '2026-03-12';
let other: Merchant;

describe('reports', () => {
  before(async () => {
    const k = m.devKey;
    // PIX paid at 00:00 of the 10th in São Paulo (03:00 UTC): inside.
    await place((await pay(k, (await create(k, { amountCents: 10000 })).id)).id, '2026-03-10T02:30:00Z', '2026-03-10T03:00:00Z');
    // Boleto created in the previous period, paid at 23:59:59 of the 9th in São Paulo: previous period.
    await place((await pay(k, (await create(k, { paymentMethod: 'BOLETO', amountCents: 30000 })).id)).id, '2026-03-08T15:00:00Z', '2026-03-10T02:59:59Z');
    // Boleto created inside, paid inside; another issued and never paid.
    await place((await pay(k, (await create(k, { paymentMethod: 'BOLETO', amountCents: 12345 })).id)).id, '2026-03-11T12:00:00Z', '2026-03-12T12:00:00Z');
    await place((await create(k, { paymentMethod: 'BOLETO', amountCents: 5000 })).id, '2026-03-11T13:00:00Z');
    // PIX pending, created inside; PIX created inside and paid after the period (23:59 of the 12th is inside, 00:00 of the 13th is not).
    await place((await create(k, { amountCents: 2500 })).id, '2026-03-12T10:00:00Z');
    await place((await pay(k, (await create(k, { amountCents: 999 })).id)).id, '2026-03-12T20:00:00Z', '2026-03-13T03:00:00Z');
    await place((await pay(k, (await create(k, { amountCents: 1001 })).id)).id, '2026-03-12T20:00:00Z', '2026-03-13T02:59:00Z');
    // Cards: paid, declined, authorised only, and one never tried (no card yet).
    await place((await create(k, { paymentMethod: 'CARD', amountCents: 5000, card: card() })).id, '2026-03-11T18:00:00Z', '2026-03-11T18:00:01Z');
    // A card in 3 instalments with interest: charged more than its price.
    const withInterest = await create(k, { paymentMethod: 'CARD', amountCents: 20000, installments: 3, card: card() });
    assert.ok(withInterest.chargedCents > 20000, JSON.stringify(withInterest));
    await place(withInterest.id, '2026-03-11T19:00:00Z', '2026-03-11T19:00:01Z');
    const declined = await create(k, { paymentMethod: 'CARD', amountCents: 7000, card: card('4000000000000002') });
    assert.equal(declined.status, 'FAILED');
    await place(declined.id, '2026-03-11T18:10:00Z');
    const held = await create(k, { paymentMethod: 'CARD', amountCents: 6000, card: card(), capture: false });
    assert.equal(held.status, 'AUTHORIZED');
    await place(held.id, '2026-03-12T09:00:00Z');
    await place((await create(k, { paymentMethod: 'CARD', amountCents: 8000 })).id, '2026-03-12T09:30:00Z');
    // A card paid in the previous period; a declined one there.
    await place((await create(k, { paymentMethod: 'CARD', amountCents: 4321, card: card() })).id, '2026-03-07T03:00:00Z', '2026-03-07T03:00:00Z');
    await place((await create(k, { paymentMethod: 'CARD', amountCents: 1111, card: card('5105105105105100') })).id, '2026-03-07T04:00:00Z');
    // A PIX paid in the period and refunded in part inside it, another refunded in full in the next.
    const refunded = await pay(k, (await create(k, { amountCents: 4000 })).id);
    assert.equal((await refund(k, refunded.id, 1500)).status, 200);
    await place(refunded.id, '2026-03-10T12:00:00Z', '2026-03-10T12:05:00Z');
    await sql`update refunds set created_at = ${new Date('2026-03-11T12:00:00Z')} where transaction_id = ${refunded.id}`.execute(ctx.database.db);
    const later = await pay(k, (await create(k, { amountCents: 3000 })).id);
    assert.equal((await refund(k, later.id)).status, 200);
    await place(later.id, '2026-03-12T12:00:00Z', '2026-03-12T12:05:00Z');
    await sql`update refunds set created_at = ${new Date('2026-03-13T12:00:00Z')} where transaction_id = ${later.id}`.execute(ctx.database.db);

    // Another merchant sells in the same days.
    other = await merchant(ctx.app);
    await place((await pay(other.devKey, (await create(other.devKey, { amountCents: 77700 })).id)).id, '2026-03-11T12:00:00Z', '2026-03-11T12:00:00Z');
  });

  test('summary: the period and the one before, as computed from the transactions and refunds made', async () => {
    const res = await call(ctx.app, 'GET', `${S}?from=${FROM}&to=${TO}`, { key: m.devKey });
    assert.equal(res.status, 200, res.raw);
    const rows = await rowsOf(m);
    assert.deepEqual(res.body.data, { from: FROM, to: TO, current: expectedTotals(rows, FROM, TO), previous: expectedTotals(rows, '2026-03-07', '2026-03-09') });
    // The figures that the placements above decide, spelt out.
    const { current, previous } = res.body.data;
    assert.equal(current.paidCount, 7); // 10000, 12345, 1001, 5000 (card), 20000 (card, 3x with interest), 4000, 3000
    const interest = rows.txs.find((t) => t.amount_cents === 20000)!;
    assert.ok(interest.charged_cents > 20000);
    assert.equal(current.grossCents, 10000 + 12345 + 1001 + 5000 + interest.charged_cents + 4000 + 3000);
    assert.equal(current.averageTicketCents, Math.round(current.grossCents / 7));
    assert.equal(current.byMethod.CARD.grossCents, 5000 + interest.charged_cents);
    assert.deepEqual(current.byMethod.BOLETO, { grossCents: 12345, paidCount: 1 });
    assert.deepEqual({ refunded: current.refundedCents, count: current.refundCount }, { refunded: 1500, count: 1 });
    assert.equal(current.netCents, current.grossCents - current.feeCents - 1500);
    assert.deepEqual(current.card, { attempted: 4, approved: 3, approvalRate: 3 / 4 });
    assert.deepEqual(current.boleto, { issued: 2, paid: 1, conversionRate: 0.5 });
    // The first PIX was created at 23:30 of the 9th (São Paulo): issued in the previous period.
    assert.deepEqual(current.pix, { issued: 5, paid: 4, conversionRate: 0.8 });
    assert.deepEqual(previous.byMethod, { PIX: { grossCents: 0, paidCount: 0 }, CARD: { grossCents: 4321, paidCount: 1 }, BOLETO: { grossCents: 30000, paidCount: 1 } });
    assert.deepEqual(previous.card, { attempted: 2, approved: 1, approvalRate: 0.5 });
    assert.deepEqual(previous.pix, { issued: 1, paid: 1, conversionRate: 1 });
  });

  test('summary of one day compares it with the day before; a refund counts on the day it was made', async () => {
    const rows = await rowsOf(m);
    const res = await call(ctx.app, 'GET', `${S}?from=2026-03-13&to=2026-03-13`, { key: m.devKey });
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual(res.body.data.current, expectedTotals(rows, '2026-03-13', '2026-03-13'));
    assert.deepEqual(res.body.data.previous, expectedTotals(rows, '2026-03-12', '2026-03-12'));
    assert.deepEqual({ paid: res.body.data.current.paidCount, refunded: res.body.data.current.refundedCents, net: res.body.data.current.netCents }, { paid: 1, refunded: 3000, net: 999 - res.body.data.current.feeCents - 3000 });
  });

  test('timeseries: one entry per day, zeros included, gross by the São Paulo day of payment', async () => {
    const from = '2026-03-05';
    const to = '2026-03-14';
    const res = await call(ctx.app, 'GET', `${TS}?from=${from}&to=${to}`, { key: m.devKey });
    assert.equal(res.status, 200, res.raw);
    const expected = expectedDays(await rowsOf(m), from, to);
    assert.deepEqual(res.body.data, { from, to, days: expected });
    assert.equal(expected.length, 10);
    const byDate = Object.fromEntries(expected.map((d) => [d.date, d]));
    assert.deepEqual(byDate['2026-03-09'], { date: '2026-03-09', PIX: 0, CARD: 0, BOLETO: 30000, paidCount: 1 });
    assert.deepEqual(byDate['2026-03-13'], { date: '2026-03-13', PIX: 999, CARD: 0, BOLETO: 0, paidCount: 1 });
    assert.deepEqual(byDate['2026-03-06'], { date: '2026-03-06', PIX: 0, CARD: 0, BOLETO: 0, paidCount: 0 });
  });

  test("another merchant's and the other environment's sales are not counted", async () => {
    const mine = await call(ctx.app, 'GET', `${S}?from=${FROM}&to=${TO}`, { key: m.devKey });
    const theirs = await call(ctx.app, 'GET', `${S}?from=${FROM}&to=${TO}`, { key: other.devKey });
    assert.deepEqual(theirs.body.data.current, expectedTotals(await rowsOf(other), FROM, TO));
    assert.equal(theirs.body.data.current.grossCents, 77700);
    assert.ok(!mine.body.data.current.grossCents.toString().includes('777'));
    // The dashboard token: development (default) sees the development sales, production sees none.
    const dev = await call(ctx.app, 'GET', `${S}?from=${FROM}&to=${TO}`, { token: m.token });
    assert.deepEqual(dev.body.data, mine.body.data);
    const prod = await call(ctx.app, 'GET', `${S}?from=${FROM}&to=${TO}`, { token: m.token, headers: { 'x-environment': 'production' } });
    assert.equal(prod.status, 200, prod.raw);
    assert.equal(prod.body.data.current.paidCount, 0);
    assert.equal(prod.body.data.current.pix.issued, 0);
    const prodSeries = await call(ctx.app, 'GET', `${TS}?from=${FROM}&to=${TO}`, { token: m.token, headers: { 'x-environment': 'production' } });
    assert.ok(prodSeries.body.data.days.every((d: any) => d.paidCount === 0 && d.PIX + d.CARD + d.BOLETO === 0));
  });

  test('presets count back from today in São Paulo; today is the default', async () => {
    const sale = await pay(m.devKey, (await create(m.devKey, { amountCents: 2222 })).id);
    const today = spDay(new Date(sale.paidAt));
    const res = await call(ctx.app, 'GET', S, { key: m.devKey });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.data.from, today);
    assert.equal(res.body.data.to, today);
    assert.deepEqual(res.body.data.current, expectedTotals(await rowsOf(m), today, today));
    assert.ok(res.body.data.current.byMethod.PIX.grossCents >= 2222);
    for (const [preset, days] of [['7d', 7], ['30d', 30], ['90d', 90]] as const) {
      const r = await call(ctx.app, 'GET', `${TS}?preset=${preset}`, { key: m.devKey });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.data.to, today);
      assert.equal(daysBetween(r.body.data.from, today), days);
      assert.equal(r.body.data.days.length, days);
    }
    const y = await call(ctx.app, 'GET', `${S}?preset=yesterday`, { key: m.devKey });
    assert.deepEqual([y.body.data.from, y.body.data.to], [addDays(today, -1), addDays(today, -1)]);
  });

  test('bad queries are 400 VALIDATION_ERROR naming the field; a key without transactions:read is 403', async () => {
    const bad: Array<[string, string]> = [
      ['from=2026-03-10', 'to'],
      ['to=2026-03-10', 'from'],
      ['from=2026-03-10&to=2026-03-09', 'to'],
      ['from=2025-03-10&to=2026-03-11', 'to'], // 367 days
      ['from=2026-02-30&to=2026-03-01', 'querystring.from'],
      ['from=10/03/2026&to=2026-03-11', 'querystring.from'],
      ['preset=week', 'querystring.preset'],
      ['preset=7d&from=2026-03-10&to=2026-03-11', 'preset'],
      ['limit=5', 'querystring.limit'],
      // Outside the years a date may have (the database has no year 0): 400, not a 500.
      ['from=0000-01-01&to=0000-12-31', 'querystring.from'],
      ['from=0001-01-01&to=0001-01-01', 'querystring.from'],
      ['from=1899-12-31&to=1900-01-01', 'querystring.from'],
    ];
    for (const path of [S, TS]) {
      for (const [query, field] of bad) {
        const res = await call(ctx.app, 'GET', `${path}?${query}`, { key: m.devKey });
        assert400(res, 'VALIDATION_ERROR');
        assert.ok(res.body.errors.some((e: { field: string }) => e.field === field || e.field.startsWith(`${field}.`)), `${path}?${query}: ${res.raw}`);
      }
    }
    // 366 days, both ends included, is the longest period.
    assert.equal((await call(ctx.app, 'GET', `${TS}?from=2025-03-11&to=2026-03-11`, { key: m.devKey })).body.data.days.length, 366);
    const writer = await merchant(ctx.app, { permissions: ['transactions:write'] });
    assert.equal((await call(ctx.app, 'GET', S, { key: writer.devKey })).status, 403);
    assert.equal((await call(ctx.app, 'GET', TS)).status, 401);
  });

  test('statements of many rows (a creation batch, an UPDATE and a DELETE of several) keep the daily totals exact', async () => {
    const who = await merchant(ctx.app);
    const db = ctx.database.db;
    /** report_days of the merchant (slots summed, rows of zeros left out) against the transactions recounted from scratch. */
    const check = async (label: string) => {
      const { rows } = await sql<{ stored: unknown; recounted: unknown }>`
        WITH shares AS (
          SELECT (created_at AT TIME ZONE 'America/Sao_Paulo')::date AS day, payment_method AS method, 0 AS paid, 0::bigint AS gross, 0::bigint AS fee,
            1 AS created, (paid_at IS NOT NULL)::int AS created_paid, (payment_method = 'CARD' AND card_last4 IS NOT NULL)::int AS tried,
            (payment_method = 'CARD' AND card_last4 IS NOT NULL AND (authorized_at IS NOT NULL OR paid_at IS NOT NULL))::int AS approved
          FROM transactions WHERE user_id = ${who.id} AND livemode = false
          UNION ALL
          SELECT (paid_at AT TIME ZONE 'America/Sao_Paulo')::date, payment_method, 1, charged_cents, fee_cents, 0, 0, 0, 0
          FROM transactions WHERE user_id = ${who.id} AND livemode = false AND paid_at IS NOT NULL
        )
        SELECT
          (SELECT coalesce(json_agg(x ORDER BY x.day, x.method), '[]') FROM (
            SELECT day::text, method, sum(paid_count)::int AS paid, sum(gross_cents)::bigint AS gross, sum(fee_cents)::bigint AS fee, sum(created_count)::int AS created,
              sum(created_paid)::int AS created_paid, sum(card_attempted)::int AS tried, sum(card_approved)::int AS approved
            FROM report_days WHERE user_id = ${who.id} AND livemode = false AND method <> 'REFUND' GROUP BY 1, 2
            HAVING sum(paid_count) <> 0 OR sum(gross_cents) <> 0 OR sum(fee_cents) <> 0 OR sum(created_count) <> 0 OR sum(created_paid) <> 0 OR sum(card_attempted) <> 0 OR sum(card_approved) <> 0) x) AS stored,
          (SELECT coalesce(json_agg(x ORDER BY x.day, x.method), '[]') FROM (
            SELECT day::text, method, sum(paid)::int AS paid, sum(gross)::bigint AS gross, sum(fee)::bigint AS fee, sum(created)::int AS created,
              sum(created_paid)::int AS created_paid, sum(tried)::int AS tried, sum(approved)::int AS approved
            FROM shares GROUP BY 1, 2) x) AS recounted`.execute(db);
      assert.deepEqual(rows[0].stored, rows[0].recounted, label);
      return rows[0].recounted as unknown[];
    };
    // 40 creations at once: the creation statement writes them in batches of several rows.
    const made = await Promise.all(Array.from({ length: 40 }, (_, i) => create(who.devKey, { amountCents: 1000 + i, paymentMethod: i % 3 ? 'PIX' : 'BOLETO' })));
    assert.equal((await check('after the batched creations') as { created: number }[]).reduce((n, d) => n + d.created, 0), 40);
    // One UPDATE of 20 rows: paid, spread over three days (some created the day before they are paid); a card tried and approved.
    const ids = made.map((t) => t.id);
    await sql`UPDATE transactions SET paid_at = created_at + (row_number * interval '20 hours'), created_at = created_at - interval '1 day'
      FROM (SELECT id AS rid, row_number() OVER (ORDER BY id) % 3 AS row_number FROM unnest(${ids.slice(0, 20)}::uuid[]) id) r WHERE id = r.rid`.execute(db);
    await sql`UPDATE transactions SET payment_method = 'CARD', card_last4 = '4242', authorized_at = now() WHERE id = ANY(${ids.slice(15, 25)}::uuid[])`.execute(db);
    const updated = (await check('after UPDATEs of several rows')) as { paid: number; tried: number; approved: number }[];
    assert.equal(updated.reduce((n, d) => n + d.paid, 0), 20);
    assert.equal(updated.reduce((n, d) => n + d.approved, 0), 10);
    // An UPDATE that changes nothing counted leaves the totals alone; a DELETE of several takes their shares away.
    await sql`UPDATE transactions SET metadata = '{"x":1}' WHERE id = ANY(${ids}::uuid[])`.execute(db);
    await check('after an UPDATE of uncounted columns');
    await sql`DELETE FROM events WHERE user_id = ${who.id}`.execute(db);
    await sql`DELETE FROM transactions WHERE id = ANY(${ids.slice(10, 30)}::uuid[])`.execute(db);
    assert.equal((await check('after a DELETE of several rows') as { created: number }[]).reduce((n, d) => n + d.created, 0), 20);
  });

  test('the migrations total existing transactions as the triggers do (down, then up again)', async () => {
    const before = await Promise.all([m, other].map((who) => call(ctx.app, 'GET', `${TS}?from=2026-03-01&to=2026-03-31`, { key: who.devKey })));
    const summary = await call(ctx.app, 'GET', `${S}?from=${FROM}&to=${TO}`, { key: m.devKey });
    // 018 made the totals; 023, 025 and 029 changed their triggers (029 also the stored gross), 038 and
    // 039 added chargebacks: down through all of them, and up again.
    const chain = ['018_report_days', '023_report_days_per_statement', '025_report_days_slot_per_statement', '029_report_gross_charged', '038_report_chargebacks', '039_report_chargebacks_won'].map((n) => migrations[n]);
    for (const step of [...chain].reverse()) await step.down!(ctx.database.db);
    for (const step of chain) await step.up(ctx.database.db);
    const after = await Promise.all([m, other].map((who) => call(ctx.app, 'GET', `${TS}?from=2026-03-01&to=2026-03-31`, { key: who.devKey })));
    assert.deepEqual(after.map((r) => r.body.data), before.map((r) => r.body.data));
    assert.deepEqual((await call(ctx.app, 'GET', `${S}?from=${FROM}&to=${TO}`, { key: m.devKey })).body.data, summary.body.data);
    // And the triggers work on top of the totals the migration made.
    await pay(m.devKey, (await create(m.devKey, { amountCents: 3333 })).id);
    const today = await call(ctx.app, 'GET', S, { key: m.devKey });
    assert.deepEqual(today.body.data.current, expectedTotals(await rowsOf(m), today.body.data.from, today.body.data.to));
  });
});
