// Bank business days (payments/calendar.ts): what a boleto paid by barcode waits for before its
// money is credited. FEBRABAN's calendar: weekends, national holidays, Carnaval, Good Friday and
// Corpus Christi (the last ones follow Easter).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isBankHoliday, nextBusinessDay } from '../../src/payments/calendar.ts';

test('the days banks do not settle: weekends, fixed national holidays and those that follow Easter', () => {
  for (const d of ['2026-11-28', '2026-11-29', '2026-01-01', '2026-04-21', '2026-09-07', '2026-11-20', '2026-12-25']) assert.ok(isBankHoliday(d), d);
  // Easter 2026 is 5 April: Carnaval 16-17 Feb, Good Friday 3 Apr, Corpus Christi 4 Jun; 2027: Easter 28 Mar.
  for (const d of ['2026-02-16', '2026-02-17', '2026-04-03', '2026-06-04', '2027-02-08', '2027-02-09', '2027-03-26', '2027-05-27']) assert.ok(isBankHoliday(d), d);
  for (const d of ['2026-11-27', '2026-11-30', '2026-02-18', '2026-04-06', '2026-06-05']) assert.equal(isBankHoliday(d), false, d);
});

test('the next business day skips weekends and holidays', () => {
  assert.equal(nextBusinessDay('2026-11-26'), '2026-11-27');
  assert.equal(nextBusinessDay('2026-11-27'), '2026-11-30', 'Friday -> Monday');
  assert.equal(nextBusinessDay('2026-11-19'), '2026-11-23', 'over Consciência Negra (Friday 20) and the weekend');
  assert.equal(nextBusinessDay('2026-12-24'), '2026-12-28');
  assert.equal(nextBusinessDay('2026-02-13'), '2026-02-18', 'over the weekend and Carnaval');
});
