// Chargebacks in the reports: a case counts on the São Paulo day it was opened and comes off net,
// whatever happens to it later; a case the merchant won counts as won on the day it was decided and
// goes back into net that day; a lost one stays. A partly refunded sale charged back counts its
// refund and its chargeback once each. Sales, the daily series and another merchant's reports are
// untouched; the migration's totals equal the trigger's. Runs on PGlite and on PostgreSQL
// (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { migrations } from '../src/db/migrations/index.ts';
import { call, merchant } from './helpers.ts';
import { CONTEST, ctx, dispute, ledgerBalanced, m, openChargeback, paidCard, paidPix, simulate, useChargebacksApp } from './chargebacks-kit.ts';

useChargebacksApp();

interface Totals {
  grossCents: number;
  feeCents: number;
  refundedCents: number;
  refundCount: number;
  netCents: number;
  chargebackCents: number;
  chargebackCount: number;
  chargebackWonCents: number;
  chargebackWonCount: number;
  paidCount: number;
}

const summary = async (key: string, query = 'preset=today') => {
  const res = await call(ctx.app, 'GET', `/api/v1/reports/summary?${query}`, { key });
  assert.equal(res.status, 200, res.raw);
  return res.body.data.current as Totals;
};
const onDay = (key: string, day: string) => summary(key, `from=${day}&to=${day}`);
/** São Paulo is UTC-3 all year since 2019: the calendar day of an instant, computed here on its own. */
const spDay = (t: Date) => new Date(t.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
const caseOf = (transactionId: string) => ctx.database.db.selectFrom('chargebacks').selectAll().where('transaction_id', '=', transactionId).executeTakeFirstOrThrow();

/** The merchant's chargeback figures per day, computed from its cases here: opened by opened_at, won by closed_at. */
async function expectedDays(userId: string) {
  const cases = await ctx.database.db.selectFrom('chargebacks').select(['status', 'amount_cents', 'opened_at', 'closed_at']).where('user_id', '=', userId).execute();
  const days = new Map<string, [number, number, number, number]>();
  const at = (d: string) => days.get(d) ?? days.set(d, [0, 0, 0, 0]).get(d)!;
  for (const c of cases) {
    const opened = at(spDay(c.opened_at));
    opened[0] += 1;
    opened[1] += Number(c.amount_cents);
    if (c.status !== 'WON') continue;
    const won = at(spDay(c.closed_at!));
    won[2] += 1;
    won[3] += Number(c.amount_cents);
  }
  return [...days].sort(([a], [b]) => a.localeCompare(b));
}

async function storedDays(userId: string) {
  const { rows } = await sql<{ day: string; n: number; cents: string; won: number; won_cents: string }>`
    SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(chargeback_count)::int AS n, sum(chargeback_cents) AS cents, sum(chargeback_won_count)::int AS won, sum(chargeback_won_cents) AS won_cents
      FROM report_days WHERE user_id = ${userId} AND method = 'CHARGEBACK' GROUP BY 1 HAVING sum(chargeback_count) <> 0 OR sum(chargeback_won_count) <> 0 ORDER BY 1`.execute(ctx.database.db);
  return rows.map((r) => [r.day, [r.n, Number(r.cents), r.won, Number(r.won_cents)]]);
}

describe('chargebacks in the reports', () => {
  test('opened: that day, off net; won later: back on the day won, the opening day unchanged; lost: stays; other merchants untouched', async () => {
    const other = await merchant(ctx.app);
    const theirs = await summary(other.devKey, 'preset=7d');
    const before = await summary(m.devKey);
    const a = await paidCard(m.devKey, 10_000);
    const b = await paidCard(m.devKey, 25_000);
    const sold = await summary(m.devKey);
    assert.equal(sold.grossCents, before.grossCents + a.chargedCents + b.chargedCents);

    assert.equal((await openChargeback(m.devKey, a.id)).chargeback.amountCents, a.chargedCents);
    await openChargeback(m.devKey, b.id);
    const both = await summary(m.devKey);
    assert.equal(both.chargebackCount, before.chargebackCount + 2);
    assert.equal(both.chargebackCents, before.chargebackCents + a.chargedCents + b.chargedCents);
    assert.equal(both.netCents, sold.netCents - a.chargedCents - b.chargedCents);
    assert.deepEqual([both.grossCents, both.paidCount, both.feeCents], [sold.grossCents, sold.paidCount, sold.feeCents], 'the sales stay sales');

    // The acquirer had opened a's case three days ago (the trigger moves its figures with it).
    await sql`UPDATE chargebacks SET opened_at = opened_at - interval '3 days' WHERE transaction_id = ${a.id}`.execute(ctx.database.db);
    const openedOn = spDay((await caseOf(a.id)).opened_at);
    const thatDay = await onDay(m.devKey, openedOn);
    assert.deepEqual([thatDay.chargebackCount, thatDay.chargebackCents, thatDay.chargebackWonCount], [1, a.chargedCents, 0]);
    assert.equal(thatDay.netCents, -a.chargedCents, 'no sale that day: net is the chargeback, negative');
    const moved = await summary(m.devKey);
    assert.deepEqual([moved.chargebackCount, moved.chargebackCents], [before.chargebackCount + 1, before.chargebackCents + b.chargedCents]);

    // Both contested; the acquirer decides a for the merchant today and b against.
    for (const id of [a.id, b.id]) assert.equal((await dispute(m.devKey, id, CONTEST)).status, 200);
    assert.equal((await simulate(m.devKey, a.id, 'CHARGEBACK_WON')).status, 200);
    assert.equal((await simulate(m.devKey, b.id, 'CHARGEBACK_LOST')).status, 200);
    const decided = await summary(m.devKey);
    assert.deepEqual([decided.chargebackWonCount, decided.chargebackWonCents], [before.chargebackWonCount + 1, before.chargebackWonCents + a.chargedCents]);
    assert.deepEqual([decided.chargebackCount, decided.chargebackCents], [moved.chargebackCount, moved.chargebackCents], 'a lost case stays where it was');
    assert.equal(decided.netCents, moved.netCents + a.chargedCents, 'won: the money back into net on the day won');
    assert.deepEqual(await onDay(m.devKey, openedOn), thatDay, 'the day it opened keeps its figures');
    const week = await summary(m.devKey, 'preset=7d');
    assert.equal(week.netCents, week.grossCents - week.feeCents - week.refundedCents - week.chargebackCents + week.chargebackWonCents);

    const series = await call(ctx.app, 'GET', '/api/v1/reports/timeseries?preset=7d', { key: m.devKey });
    assert.equal(series.status, 200, series.raw);
    assert.equal(series.body.data.days.reduce((s: number, d: { PIX: number; CARD: number; BOLETO: number }) => s + d.PIX + d.CARD + d.BOLETO, 0), week.grossCents, 'the series is sales only');
    assert.deepEqual(await summary(other.devKey, 'preset=7d'), theirs);
    assert.deepEqual(await storedDays(m.id), await expectedDays(m.id));
    await ledgerBalanced();
  });

  test('a partly refunded sale charged back: the refund and the rest each counted once, the sale whole off net', async () => {
    await paidPix(m.devKey, 50_000); // funds for the refund
    const before = await summary(m.devKey);
    const sale = await paidCard(m.devKey, 30_000);
    const refunded = await call(ctx.app, 'POST', `/api/v1/transactions/${sale.id}/refund`, { key: m.devKey, body: { amountCents: 10_000 } });
    assert.equal(refunded.status, 200, refunded.raw);
    const opened = await openChargeback(m.devKey, sale.id);
    assert.equal(opened.chargeback.amountCents, sale.chargedCents - 10_000);
    const after = await summary(m.devKey);
    assert.deepEqual([after.refundCount, after.refundedCents], [before.refundCount + 1, before.refundedCents + 10_000]);
    assert.deepEqual([after.chargebackCount, after.chargebackCents], [before.chargebackCount + 1, before.chargebackCents + sale.chargedCents - 10_000]);
    assert.equal(after.netCents, before.netCents - sale.feeCents, 'charged, refunded in part, charged back the rest: only its fee is left off net');
    assert.equal((await dispute(m.devKey, sale.id, { action: 'ACCEPT' })).status, 200);
    assert.deepEqual(await summary(m.devKey), after, 'accepted (lost): the figures stay');
    assert.deepEqual(await storedDays(m.id), await expectedDays(m.id));
    await ledgerBalanced();
  });

  test("the migration totals existing cases as the trigger does (039 down to 038's figures, then up)", async () => {
    const week = await summary(m.devKey, 'preset=30d');
    const stored = await storedDays(m.id);
    assert.ok(stored.length > 0, 'the earlier tests left cases');
    await migrations['039_report_chargebacks_won'].down!(ctx.database.db);
    // 038's figures: a won case out of them altogether.
    const { rows } = await sql<{ n: number }>`SELECT sum(chargeback_count)::int AS n FROM report_days WHERE user_id = ${m.id} AND method = 'CHARGEBACK'`.execute(ctx.database.db);
    const notWon = await ctx.database.db.selectFrom('chargebacks').select((e) => e.fn.countAll<number>().as('n')).where('user_id', '=', m.id).where('status', '<>', 'WON').executeTakeFirstOrThrow();
    assert.equal(Number(rows[0].n), Number(notWon.n));
    await migrations['039_report_chargebacks_won'].up(ctx.database.db);
    assert.deepEqual(await storedDays(m.id), stored);
    assert.deepEqual(await summary(m.devKey, 'preset=30d'), week);
    // And the trigger works on top of the migration's totals, on any write: a case opened, a won
    // case's decision day corrected by hand (its won figures move to that day).
    const sale = await paidCard(m.devKey, 12_345);
    await openChargeback(m.devKey, sale.id);
    assert.equal((await summary(m.devKey, 'preset=30d')).chargebackCents, week.chargebackCents + sale.chargedCents);
    await sql`UPDATE chargebacks SET closed_at = closed_at - interval '1 day' WHERE user_id = ${m.id} AND status = 'WON'`.execute(ctx.database.db);
    assert.deepEqual(await storedDays(m.id), await expectedDays(m.id));
  });
});
