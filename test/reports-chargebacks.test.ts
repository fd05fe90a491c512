// Chargebacks in the reports: a case counts on the São Paulo day it was opened and comes off net;
// a case the merchant won leaves the figures (the money came back), a lost one stays; the daily
// series (sales) and another merchant's reports are untouched.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, merchant } from './helpers.ts';
import { ctx, dispute, ledgerBalanced, m, openChargeback, paidCard, simulate, useChargebacksApp } from './chargebacks-kit.ts';

useChargebacksApp();
const today = async (key: string) => {
  const res = await call(ctx.app, 'GET', '/api/v1/reports/summary?preset=today', { key });
  assert.equal(res.status, 200, res.raw);
  return res.body.data.current as { grossCents: number; feeCents: number; refundedCents: number; netCents: number; chargebackCents: number; chargebackCount: number; paidCount: number };
};

describe('chargebacks in the reports', () => {
  test('opened: counted that day and off net; won: out again; lost: stays; sales and other merchants untouched', async () => {
    const other = await merchant(ctx.app);
    const before = await today(m.devKey);
    const theirs = await today(other.devKey);
    const a = await paidCard(m.devKey, 10_000);
    const b = await paidCard(m.devKey, 25_000);
    const sold = await today(m.devKey);
    assert.equal(sold.grossCents, before.grossCents + a.chargedCents + b.chargedCents);

    const opened = await openChargeback(m.devKey, a.id);
    await openChargeback(m.devKey, b.id);
    const both = await today(m.devKey);
    const amounts = [opened.chargeback.amountCents as number];
    assert.equal(both.chargebackCount, before.chargebackCount + 2);
    assert.equal(both.chargebackCents, before.chargebackCents + a.chargedCents + b.chargedCents);
    assert.equal(amounts[0], a.chargedCents);
    assert.equal(both.netCents, both.grossCents - both.feeCents - both.refundedCents - both.chargebackCents);
    assert.equal(both.netCents, sold.netCents - a.chargedCents - b.chargedCents);
    assert.equal(both.grossCents, sold.grossCents, 'the sales stay sales');

    // Both contested; the acquirer decides a for the merchant and b against.
    for (const id of [a.id, b.id]) assert.equal((await dispute(m.devKey, id, { action: 'CONTEST', text: 'Curso entregue: acesso liberado e aulas assistidas pelo cliente.' })).status, 200);
    assert.equal((await simulate(m.devKey, a.id, 'CHARGEBACK_WON')).status, 200);
    assert.equal((await simulate(m.devKey, b.id, 'CHARGEBACK_LOST')).status, 200);
    const decided = await today(m.devKey);
    assert.deepEqual([decided.chargebackCount, decided.chargebackCents], [before.chargebackCount + 1, before.chargebackCents + b.chargedCents]);
    assert.equal(decided.netCents, sold.netCents - b.chargedCents);

    const series = await call(ctx.app, 'GET', '/api/v1/reports/timeseries?preset=today', { key: m.devKey });
    assert.equal(series.status, 200, series.raw);
    assert.equal(series.body.data.days.at(-1).paidCount, decided.paidCount);
    assert.deepEqual(await today(other.devKey), theirs);
    await ledgerBalanced();
  });
});
