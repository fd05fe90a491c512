// Late-payment terms of a PIX with a due date (API Pix cobv: validadeAposVencimento, valor.multa,
// valor.juros): the merchant's terms, what they send to the PSP, and the most a late payment can
// cost under them. Pure functions, no I/O.
import type { LatePayment } from '../db/types.ts';
import { DAY_MS } from './calendar.ts';

export type { LatePayment };

/** Calendar days from `from` to `to` (YYYY-MM-DD), negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/**
 * The most a payment made on `paidDate` (São Paulo date) can be under these terms: the amount,
 * plus the fine and the interest for the days late, each rounded up (a PSP rounds them its own way,
 * never above this). On or before the due date it is the amount. A PSP also moves a due date that
 * falls on a weekend or holiday to the next business day, which can only lower what it charges.
 * Null when the charge was not payable that day (past `daysAfterDue`).
 */
export function latePaymentCeiling(amountCents: number, terms: LatePayment, dueDate: string, paidDate: string): number | null {
  const late = daysBetween(dueDate, paidDate);
  if (late <= 0) return amountCents;
  if (late > terms.daysAfterDue) return null;
  const fine = Math.ceil((amountCents * terms.fineBp) / 10_000);
  const interest = Math.ceil((amountCents * terms.interestMonthlyBp * late) / (30 * 10_000));
  return amountCents + fine + interest;
}

/**
 * Whether a PSP's settlement of `paidCents` for a charge of `amountCents` is what these terms
 * allow on `paidDate`: at least the amount (no discount is offered) and at most the ceiling.
 */
export function explainsLatePayment(amountCents: number, terms: LatePayment, dueDate: string, paidDate: string, paidCents: number): boolean {
  const ceiling = latePaymentCeiling(amountCents, terms, dueDate, paidDate);
  return ceiling !== null && paidCents >= amountCents && paidCents <= ceiling;
}
