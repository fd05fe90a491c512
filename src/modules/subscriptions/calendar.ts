// Billing periods in São Paulo calendar time (UTC-3 all year since 2019; payments/calendar.ts).
// Period k of a subscription starts at the anchor moved k intervals forward, always counted from
// the anchor and never from the previous period: a monthly subscription anchored on the 31st bills
// on the last day of shorter months (30 April, 28 or 29 February) and on the 31st again after.
// The wall-clock time of the anchor is kept. Pure functions.
import type { PlanInterval } from '../../db/types.ts';
import { DAY_MS } from '../../payments/calendar.ts';

const SP_OFFSET_MS = 3 * 3600_000;
const MONTHS: Partial<Record<PlanInterval, number>> = { MONTHLY: 1, QUARTERLY: 3, SEMIANNUAL: 6, ANNUAL: 12 };

export interface Cadence {
  interval: PlanInterval;
  intervalCount: number;
}

const daysInMonth = (year: number, month0: number) => new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();

/** The start of period k (k >= 0; period 0 starts at the anchor). */
export function periodStart(anchor: Date, c: Cadence, k: number): Date {
  if (c.interval === 'DAILY' || c.interval === 'WEEKLY') {
    return new Date(anchor.getTime() + k * c.intervalCount * (c.interval === 'DAILY' ? 1 : 7) * DAY_MS);
  }
  const local = new Date(anchor.getTime() - SP_OFFSET_MS); // UTC fields = São Paulo wall clock
  const months = local.getUTCMonth() + k * c.intervalCount * MONTHS[c.interval]!;
  const year = local.getUTCFullYear() + Math.floor(months / 12);
  const month0 = ((months % 12) + 12) % 12;
  const day = Math.min(local.getUTCDate(), daysInMonth(year, month0));
  return new Date(Date.UTC(year, month0, day, local.getUTCHours(), local.getUTCMinutes(), local.getUTCSeconds(), local.getUTCMilliseconds()) + SP_OFFSET_MS);
}

/** Period k as [start, end): its end is the start of period k + 1. */
export function period(anchor: Date, c: Cadence, k: number): { start: Date; end: Date } {
  return { start: periodStart(anchor, c, k), end: periodStart(anchor, c, k + 1) };
}

/** How many months one period is worth (MRR normalisation): 12 months = 365 days for day-based plans. */
export function monthsPerPeriod(c: Cadence): number {
  if (c.interval === 'DAILY') return (c.intervalCount * 12) / 365;
  if (c.interval === 'WEEKLY') return (c.intervalCount * 7 * 12) / 365;
  return c.intervalCount * MONTHS[c.interval]!;
}

/** pt-BR label of the cadence, after an amount: "por mês", "a cada 3 meses", "por ano". */
export function cadenceLabel(c: Cadence): string {
  const n = c.intervalCount;
  switch (c.interval) {
    case 'DAILY':
      return n === 1 ? 'por dia' : `a cada ${n} dias`;
    case 'WEEKLY':
      return n === 1 ? 'por semana' : `a cada ${n} semanas`;
    case 'MONTHLY':
      return n === 1 ? 'por mês' : `a cada ${n} meses`;
    case 'QUARTERLY':
      return n === 1 ? 'por trimestre' : `a cada ${3 * n} meses`;
    case 'SEMIANNUAL':
      return n === 1 ? 'por semestre' : `a cada ${6 * n} meses`;
    case 'ANNUAL':
      return n === 1 ? 'por ano' : `a cada ${n} anos`;
  }
}
