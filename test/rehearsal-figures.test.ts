// The rehearsal's figures (scripts/cluster/windows.ts): failed requests put on the fault that
// caused them, throughput of a phase, duplicate webhook receipts; and which answers it retries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retriable } from '../scripts/cluster/client.ts';
import { faultWindows, receipts, refusedOnRetry, throughput } from '../scripts/cluster/windows.ts';

const at = (t: number, status: number) => ({ at: t, op: 'x', status });

test('each failure goes to the latest fault before it, within the horizon', () => {
  const faults = [{ name: 'kill', at: 1000 }, { name: 'restart', at: 5000 }];
  const attempts = [at(500, 502), at(1200, 0), at(1250, 201), at(1900, 503), at(5100, 500), at(40_000, 502), at(6000, 409)];
  const { windows, unattributed } = faultWindows(faults, attempts, 30_000);
  assert.deepEqual(windows, [
    { name: 'kill', failures: 2, firstMs: 200, lastMs: 900, windowMs: 700 },
    { name: 'restart', failures: 1, firstMs: 100, lastMs: 100, windowMs: 0 },
  ]);
  assert.equal(unattributed, 2); // before any fault, and 35 s after the last
  assert.deepEqual(faultWindows([{ name: 'quiet', at: 0 }], [at(10, 200)]).windows[0], { name: 'quiet', failures: 0, firstMs: null, lastMs: null, windowMs: null });
});

test('throughput counts answered requests in the phase, per second', () => {
  const attempts = [at(999, 200), at(1000, 200), at(1500, 503), at(1600, 0), at(2999, 201), at(3000, 200)];
  assert.equal(throughput(attempts, 1000, 3000), 1.5);
});

test('duplicates are receipts beyond the first of each event', () => {
  assert.deepEqual(receipts(new Map([['a', 1], ['b', 3], ['c', 1]])), { events: 3, duplicates: 2 });
});

test('a POST is sent again on no answer, a 5xx or a key in progress; never on another 4xx', () => {
  assert.equal(retriable(0, null), true);
  assert.equal(retriable(502, ''), true);
  assert.equal(retriable(409, { message: 'A request with this Idempotency-Key is in progress; retry shortly' }), true);
  assert.equal(retriable(409, { message: 'Transaction is not pending' }), false);
  assert.equal(retriable(400, {}), false);
  assert.equal(retriable(201, {}), false);
});

test('a request refused after a failed try is flagged; one refused at once, or answered 2xx after a retry, is not', () => {
  const o = (status: number, history: number[]) => ({ status, history });
  const flagged = o(400, [0, 409, 409, 400]);
  assert.deepEqual(refusedOnRetry([flagged, o(400, [400]), o(201, [502, 201]), o(409, [409]), o(400, [502, 400])]), [flagged, o(400, [502, 400])]);
});
