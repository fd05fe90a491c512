import type { Fees } from '../config.ts';
import type { PaymentMethod } from '../db/types.ts';

/** Rounds amount x basisPoints / 10000 half up, in integer arithmetic. */
export function percentOf(amountCents: number, basisPoints: number): number {
  return Math.floor((amountCents * basisPoints + 5000) / 10000);
}

/**
 * A percentage fee of a payment: amount x basisPoints / 10000 rounded half up, and at least 1 cent
 * when the rate is not zero. Rounding alone makes every PIX of 50 cents or less free at 0.99%
 * (0.495 cents rounds to 0), so a merchant could split sales into tiny payments and pay nothing.
 * A rate of 0 (a negotiated free rate) stays free.
 */
export function percentFee(amountCents: number, basisPoints: number): number {
  if (basisPoints <= 0 || amountCents <= 0) return 0;
  return Math.max(1, percentOf(amountCents, basisPoints));
}

/** The platform's fee on a payment of chargedCents; never more than the payment itself. */
export function paymentFee(fees: Fees, method: PaymentMethod, chargedCents: number): number {
  const fee =
    method === 'PIX'
      ? percentFee(chargedCents, fees.pixPercentBp)
      : method === 'BOLETO'
        ? fees.boletoFixedCents
        : percentFee(chargedCents, fees.cardPercentBp) + fees.cardFixedCents;
  return Math.min(fee, chargedCents);
}

/** Splits total into n integer parts that sum exactly to total (remainder on the first parts). */
export function split(total: number, n: number): number[] {
  const base = Math.floor(total / n);
  const rest = total - base * n;
  return Array.from({ length: n }, (_, i) => base + (i < rest ? 1 : 0));
}
