import type { Fees } from '../config.ts';
import type { PaymentMethod } from '../db/types.ts';

/** Rounds amount x basisPoints / 10000 half up, in integer arithmetic. */
export function percentOf(amountCents: number, basisPoints: number): number {
  return Math.floor((amountCents * basisPoints + 5000) / 10000);
}

/** The platform's fee on a payment of chargedCents; never more than the payment itself. */
export function paymentFee(fees: Fees, method: PaymentMethod, chargedCents: number): number {
  const fee =
    method === 'PIX'
      ? percentOf(chargedCents, fees.pixPercentBp)
      : method === 'BOLETO'
        ? fees.boletoFixedCents
        : percentOf(chargedCents, fees.cardPercentBp) + fees.cardFixedCents;
  return Math.min(fee, chargedCents);
}

/** Splits total into n integer parts that sum exactly to total (remainder on the first parts). */
export function split(total: number, n: number): number[] {
  const base = Math.floor(total / n);
  const rest = total - base * n;
  return Array.from({ length: n }, (_, i) => base + (i < rest ? 1 : 0));
}
