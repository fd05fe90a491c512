// The billing calendar (modules/subscriptions/calendar.ts): São Paulo dates, month ends clamped
// and restored, periods counted from the anchor. Examples and fast-check properties.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { period, periodStart, type Cadence } from '../src/modules/subscriptions/calendar.ts';
import type { PlanInterval } from '../src/db/types.ts';

const sp = (d: Date) => new Date(d.getTime() - 3 * 3600_000).toISOString().replace('Z', '-03:00');
const monthly: Cadence = { interval: 'MONTHLY', intervalCount: 1 };

test('a monthly plan started on 31 January bills on the last day of shorter months and on the 31st again', () => {
  const anchor = new Date('2027-01-31T10:30:00-03:00');
  const starts = Array.from({ length: 8 }, (_, k) => sp(periodStart(anchor, monthly, k)).slice(0, 10));
  assert.deepEqual(starts, ['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31', '2027-06-30', '2027-07-31', '2027-08-31']);
  assert.equal(sp(periodStart(new Date('2028-01-31T10:30:00-03:00'), monthly, 1)).slice(0, 10), '2028-02-29', 'leap year');
  assert.equal(sp(periodStart(anchor, monthly, 3)), '2027-04-30T10:30:00.000-03:00', 'time of day kept');
});

test('the São Paulo date decides: 23:30 on the 31st in São Paulo is already the 1st in UTC', () => {
  const anchor = new Date('2027-01-31T23:30:00-03:00');
  assert.equal(sp(periodStart(anchor, monthly, 1)), '2027-02-28T23:30:00.000-03:00');
});

test('quarterly, semiannual, annual (29 February -> 28 February), weekly and daily cadences, with intervalCount', () => {
  const anchor = new Date('2028-02-29T09:00:00-03:00');
  assert.equal(sp(periodStart(anchor, { interval: 'ANNUAL', intervalCount: 1 }, 1)).slice(0, 10), '2029-02-28');
  assert.equal(sp(periodStart(anchor, { interval: 'ANNUAL', intervalCount: 1 }, 4)).slice(0, 10), '2032-02-29');
  assert.equal(sp(periodStart(anchor, { interval: 'QUARTERLY', intervalCount: 1 }, 1)).slice(0, 10), '2028-05-29');
  assert.equal(sp(periodStart(anchor, { interval: 'SEMIANNUAL', intervalCount: 1 }, 1)).slice(0, 10), '2028-08-29');
  assert.equal(sp(periodStart(anchor, { interval: 'MONTHLY', intervalCount: 2 }, 1)).slice(0, 10), '2028-04-29');
  assert.equal(sp(periodStart(anchor, { interval: 'WEEKLY', intervalCount: 2 }, 1)).slice(0, 10), '2028-03-14');
  assert.equal(sp(periodStart(anchor, { interval: 'DAILY', intervalCount: 3 }, 2)).slice(0, 10), '2028-03-06');
});

const cadences = fc.record({
  interval: fc.constantFrom<PlanInterval>('DAILY', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'),
  intervalCount: fc.integer({ min: 1, max: 12 }),
});
const anchors = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2060-12-31T00:00:00Z'), noInvalidDate: true });

test('property: periods are contiguous and strictly increasing, period 0 starts at the anchor', () => {
  fc.assert(
    fc.property(anchors, cadences, fc.integer({ min: 0, max: 60 }), (anchor, c, k) => {
      assert.equal(periodStart(anchor, c, 0).getTime(), anchor.getTime());
      const p = period(anchor, c, k);
      assert.ok(p.end.getTime() > p.start.getTime());
      assert.equal(period(anchor, c, k + 1).start.getTime(), p.end.getTime());
    }),
  );
});

test('property: month-based periods fall on the anchor day, or the month\'s last day when it is shorter, at the anchor\'s time', () => {
  fc.assert(
    fc.property(anchors, cadences.filter((c) => c.interval !== 'DAILY' && c.interval !== 'WEEKLY'), fc.integer({ min: 0, max: 60 }), (anchor, c, k) => {
      const a = sp(anchor);
      const s = sp(periodStart(anchor, c, k));
      const [y, m] = s.slice(0, 7).split('-').map(Number);
      const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
      assert.equal(Number(s.slice(8, 10)), Math.min(Number(a.slice(8, 10)), last));
      assert.equal(s.slice(10), a.slice(10), 'same wall-clock time');
      const months = (y - Number(a.slice(0, 4))) * 12 + m - Number(a.slice(5, 7));
      const per = { MONTHLY: 1, QUARTERLY: 3, SEMIANNUAL: 6, ANNUAL: 12 }[c.interval as 'MONTHLY'];
      assert.equal(months, k * c.intervalCount * per);
    }),
  );
});

test('property: day-based periods are exact multiples of a day', () => {
  fc.assert(
    fc.property(anchors, cadences.filter((c) => c.interval === 'DAILY' || c.interval === 'WEEKLY'), fc.integer({ min: 0, max: 400 }), (anchor, c, k) => {
      const days = (periodStart(anchor, c, k).getTime() - anchor.getTime()) / 86_400_000;
      assert.equal(days, k * c.intervalCount * (c.interval === 'DAILY' ? 1 : 7));
    }),
  );
});
