// The payment fee formula: percentage rounded half up, a minimum of 1 cent for a non-zero rate,
// never more than the payment.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Fees } from '../../src/config.ts';
import { paymentFee, percentOf } from '../../src/payments/fees.ts';

const FEES: Fees = { pixPercentBp: 99, boletoFixedCents: 349, cardPercentBp: 399, cardFixedCents: 39, withdrawalCents: 350, advanceMonthlyBp: 299 };

describe('paymentFee', () => {
  it('PIX of 50 cents or less pays the 1-cent minimum, not zero', () => {
    for (const cents of [1, 2, 10, 50]) assert.equal(paymentFee(FEES, 'PIX', cents), 1, `${cents} cents`);
    assert.equal(paymentFee(FEES, 'PIX', 51), 1); // 0.5049 rounds to 1 anyway
    assert.equal(paymentFee(FEES, 'PIX', 7990), 79); // 79.1 -> 79: the minimum changes nothing above it
    assert.equal(paymentFee(FEES, 'PIX', 50000), 495);
  });

  it('a rate of 0 stays free; the fee never exceeds the payment', () => {
    assert.equal(paymentFee({ ...FEES, pixPercentBp: 0 }, 'PIX', 30), 0);
    assert.equal(paymentFee({ ...FEES, cardPercentBp: 0, cardFixedCents: 0 }, 'CARD', 30), 0);
    assert.equal(paymentFee(FEES, 'BOLETO', 100), 100);
    assert.equal(paymentFee({ ...FEES, cardFixedCents: 0 }, 'CARD', 10), 1);
  });

  it('is the rounded percentage whenever that is at least 1 cent, and at least 1 cent otherwise', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000 }), fc.integer({ min: 1, max: 10_000 }), (cents, bp) => {
        const fee = paymentFee({ ...FEES, pixPercentBp: bp }, 'PIX', cents);
        assert.equal(fee, Math.min(cents, Math.max(1, percentOf(cents, bp))));
        assert.ok(fee >= 1 && fee <= cents);
      }),
    );
  });
});
