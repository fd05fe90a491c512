// Sales reports of one merchant and environment, summed in SQL from the daily totals that the
// database keeps beside every write to transactions and refunds (report_days, migration 018): a
// report reads at most 8 rows per day and method, however many payments the merchant has. Days are
// São Paulo calendar days (the triggers bucket with AT TIME ZONE 'America/Sao_Paulo').
import { sql } from 'kysely';
import type { Executor } from '../../db/index.ts';
import type { PaymentMethod } from '../../db/types.ts';
import { validation } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS, spDate } from '../../payments/calendar.ts';
import type { Preset, ReportQuery, Totals } from './schemas.ts';

export const MAX_REPORT_DAYS = 366;
const METHODS: PaymentMethod[] = ['PIX', 'CARD', 'BOLETO'];

/** A period of whole São Paulo days, both ends included. */
export interface Period {
  from: string;
  to: string;
}

const dayNumber = (ymd: string) => Date.parse(`${ymd}T00:00:00Z`) / DAY_MS;
const ymd = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const PRESET_DAYS: Record<Exclude<Preset, 'yesterday'>, number> = { today: 1, '7d': 7, '30d': 30, '90d': 90 };

/** The period a report query asks for: from/to, or a preset counted back from today in São Paulo. */
export function reportPeriod(q: ReportQuery, now = new Date()): Period {
  if (q.from !== undefined || q.to !== undefined) {
    if (q.preset !== undefined) throw validation('preset', 'give either preset or from and to, not both');
    if (q.from === undefined) throw validation('from', 'is required with to');
    if (q.to === undefined) throw validation('to', 'is required with from');
    const days = dayNumber(q.to) - dayNumber(q.from) + 1;
    if (days < 1) throw validation('to', 'must not be before from');
    if (days > MAX_REPORT_DAYS) throw validation('to', `must be at most ${MAX_REPORT_DAYS} days from from (both included)`);
    return { from: q.from, to: q.to };
  }
  const today = dayNumber(spDate(now));
  const preset = q.preset ?? 'today';
  if (preset === 'yesterday') return { from: ymd(today - 1), to: ymd(today - 1) };
  return { from: ymd(today - PRESET_DAYS[preset] + 1), to: ymd(today) };
}

/** The period of the same length just before. */
export function previousPeriod(p: Period): Period {
  const length = dayNumber(p.to) - dayNumber(p.from) + 1;
  return { from: ymd(dayNumber(p.from) - length), to: ymd(dayNumber(p.from) - 1) };
}

const n = (v: unknown) => Number(v ?? 0);
const rate = (part: number, whole: number) => (whole === 0 ? null : part / whole);

function emptyTotals(): Totals {
  return {
    grossCents: 0,
    netCents: 0,
    feeCents: 0,
    paidCount: 0,
    averageTicketCents: 0,
    refundedCents: 0,
    refundCount: 0,
    chargebackCents: 0,
    chargebackCount: 0,
    chargebackWonCents: 0,
    chargebackWonCount: 0,
    card: { attempted: 0, approved: 0, approvalRate: null },
    pix: { issued: 0, paid: 0, conversionRate: null },
    boleto: { issued: 0, paid: 0, conversionRate: null },
    byMethod: { PIX: { grossCents: 0, paidCount: 0 }, CARD: { grossCents: 0, paidCount: 0 }, BOLETO: { grossCents: 0, paidCount: 0 } },
  };
}

interface SummaryRow {
  method: PaymentMethod | 'REFUND' | 'CHARGEBACK';
  current: boolean;
  paid: unknown;
  gross: unknown;
  fees: unknown;
  created: unknown;
  created_paid: unknown;
  attempted: unknown;
  approved: unknown;
  refunds: unknown;
  refunded: unknown;
  chargebacks: unknown;
  charged_back: unknown;
  won: unknown;
  won_back: unknown;
}

/**
 * The period's totals and those of the period just before: one statement summing the daily totals
 * (report_days, kept by triggers: migration 018) of both periods, per method.
 */
export async function reportSummary(db: Executor, scope: Scope, period: Period) {
  const previous = previousPeriod(period);
  const { rows } = await sql<SummaryRow>`
    SELECT method, day >= ${period.from}::date AS current,
           sum(paid_count) AS paid, sum(gross_cents) AS gross, sum(fee_cents) AS fees,
           sum(created_count) AS created, sum(created_paid) AS created_paid,
           sum(card_attempted) AS attempted, sum(card_approved) AS approved,
           sum(refund_count) AS refunds, sum(refunded_cents) AS refunded,
           sum(chargeback_count) AS chargebacks, sum(chargeback_cents) AS charged_back,
           sum(chargeback_won_count) AS won, sum(chargeback_won_cents) AS won_back
      FROM report_days
     WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND day >= ${previous.from}::date AND day <= ${period.to}::date
     GROUP BY 1, 2
  `.execute(db);

  const totals = { current: emptyTotals(), previous: emptyTotals() };
  for (const r of rows) {
    const t = r.current ? totals.current : totals.previous;
    if (r.method === 'REFUND') {
      t.refundCount = n(r.refunds);
      t.refundedCents = n(r.refunded);
      continue;
    }
    if (r.method === 'CHARGEBACK') {
      t.chargebackCount = n(r.chargebacks);
      t.chargebackCents = n(r.charged_back);
      t.chargebackWonCount = n(r.won);
      t.chargebackWonCents = n(r.won_back);
      continue;
    }
    t.byMethod[r.method] = { grossCents: n(r.gross), paidCount: n(r.paid) };
    t.grossCents += n(r.gross);
    t.feeCents += n(r.fees);
    t.paidCount += n(r.paid);
    if (r.method === 'CARD') t.card = { attempted: n(r.attempted), approved: n(r.approved), approvalRate: null };
    else t[r.method === 'PIX' ? 'pix' : 'boleto'] = { issued: n(r.created), paid: n(r.created_paid), conversionRate: null };
  }
  for (const t of [totals.current, totals.previous]) {
    t.netCents = t.grossCents - t.feeCents - t.refundedCents - t.chargebackCents + t.chargebackWonCents;
    t.averageTicketCents = t.paidCount === 0 ? 0 : Math.floor((2 * t.grossCents + t.paidCount) / (2 * t.paidCount));
    t.card.approvalRate = rate(t.card.approved, t.card.attempted);
    t.pix.conversionRate = rate(t.pix.paid, t.pix.issued);
    t.boleto.conversionRate = rate(t.boleto.paid, t.boleto.issued);
  }
  return { ...period, ...totals };
}

/** Gross paid per São Paulo day and method, one statement over the daily totals; days without sales are zeros. */
export async function reportTimeseries(db: Executor, scope: Scope, period: Period) {
  const { rows } = await sql<{ day: string; method: PaymentMethod; count: unknown; gross: unknown }>`
    SELECT to_char(day, 'YYYY-MM-DD') AS day, method, sum(paid_count) AS count, sum(gross_cents) AS gross
      FROM report_days
     WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND day >= ${period.from}::date AND day <= ${period.to}::date AND method NOT IN ('REFUND', 'CHARGEBACK')
     GROUP BY 1, 2
  `.execute(db);
  const days = new Map<string, { date: string; PIX: number; CARD: number; BOLETO: number; paidCount: number }>();
  for (let d = dayNumber(period.from); d <= dayNumber(period.to); d++) days.set(ymd(d), { date: ymd(d), PIX: 0, CARD: 0, BOLETO: 0, paidCount: 0 });
  for (const r of rows) {
    const day = days.get(r.day);
    if (!day || !METHODS.includes(r.method)) continue;
    day[r.method] += n(r.gross);
    day.paidCount += n(r.count);
  }
  return { ...period, days: [...days.values()] };
}
