// Sales reports of one merchant and environment, aggregated in SQL over the report indexes
// (migration 018): calendar days are São Paulo's, each bound computed by the database itself
// (AT TIME ZONE 'America/Sao_Paulo'), so that day boundaries and daily buckets always agree.
import { sql } from 'kysely';
import type { Executor } from '../../db/index.ts';
import type { PaymentMethod } from '../../db/types.ts';
import { validation } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { DAY_MS, spDate } from '../../payments/calendar.ts';
import type { Preset, ReportQuery, Totals } from './schemas.ts';

export const REPORT_TZ = 'America/Sao_Paulo';
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

/** The first instant of a São Paulo day, as the database computes it. */
const startOf = (day: string) => sql`((${day}::date)::timestamp AT TIME ZONE ${REPORT_TZ})`;
const endOf = (day: string) => sql`((${day}::date + 1)::timestamp AT TIME ZONE ${REPORT_TZ})`;

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
    card: { attempted: 0, approved: 0, approvalRate: null },
    pix: { issued: 0, paid: 0, conversionRate: null },
    boleto: { issued: 0, paid: 0, conversionRate: null },
    byMethod: { PIX: { grossCents: 0, paidCount: 0 }, CARD: { grossCents: 0, paidCount: 0 }, BOLETO: { grossCents: 0, paidCount: 0 } },
  };
}

interface SummaryRow {
  part: 'paid' | 'created' | 'refunds';
  method: PaymentMethod | null;
  current: boolean;
  a: unknown;
  b: unknown;
  c: unknown;
  d: unknown;
}

/**
 * The period's totals and those of the period just before, in one statement of three aggregates,
 * each one range of an index: payments paid (by paidAt), payments created (the funnels, by
 * createdAt), refunds made (by their createdAt).
 */
export async function reportSummary(db: Executor, scope: Scope, period: Period) {
  const previous = previousPeriod(period);
  const lo = startOf(previous.from);
  const mid = startOf(period.from);
  const hi = endOf(period.to);
  const { rows } = await sql<SummaryRow>`
    SELECT 'paid' AS part, payment_method AS method, paid_at >= ${mid} AS current,
           count(*) AS a, sum(amount_cents) AS b, sum(fee_cents) AS c, 0 AS d
      FROM transactions
     WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND paid_at >= ${lo} AND paid_at < ${hi}
     GROUP BY 2, 3
    UNION ALL
    SELECT 'created', payment_method, created_at >= ${mid},
           count(*),
           count(*) FILTER (WHERE paid_at IS NOT NULL),
           count(*) FILTER (WHERE card_last4 IS NOT NULL),
           count(*) FILTER (WHERE card_last4 IS NOT NULL AND (authorized_at IS NOT NULL OR paid_at IS NOT NULL))
      FROM transactions
     WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND created_at >= ${lo} AND created_at < ${hi}
     GROUP BY 2, 3
    UNION ALL
    SELECT 'refunds', NULL, created_at >= ${mid}, count(*), sum(amount_cents), 0, 0
      FROM refunds
     WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND created_at >= ${lo} AND created_at < ${hi} AND status <> 'FAILED'
     GROUP BY 3
  `.execute(db);

  const totals = { current: emptyTotals(), previous: emptyTotals() };
  for (const r of rows) {
    const t = r.current ? totals.current : totals.previous;
    if (r.part === 'paid' && r.method) {
      t.byMethod[r.method] = { grossCents: n(r.b), paidCount: n(r.a) };
      t.grossCents += n(r.b);
      t.feeCents += n(r.c);
      t.paidCount += n(r.a);
    } else if (r.part === 'created' && r.method === 'CARD') {
      t.card.attempted = n(r.c);
      t.card.approved = n(r.d);
    } else if (r.part === 'created' && r.method) {
      t[r.method === 'PIX' ? 'pix' : 'boleto'] = { issued: n(r.a), paid: n(r.b), conversionRate: null };
    } else if (r.part === 'refunds') {
      t.refundCount = n(r.a);
      t.refundedCents = n(r.b);
    }
  }
  for (const t of [totals.current, totals.previous]) {
    t.netCents = t.grossCents - t.feeCents - t.refundedCents;
    t.averageTicketCents = t.paidCount === 0 ? 0 : Math.floor((2 * t.grossCents + t.paidCount) / (2 * t.paidCount));
    t.card.approvalRate = rate(t.card.approved, t.card.attempted);
    t.pix.conversionRate = rate(t.pix.paid, t.pix.issued);
    t.boleto.conversionRate = rate(t.boleto.paid, t.boleto.issued);
  }
  return { ...period, ...totals };
}

/** Gross paid per São Paulo day and method, one statement over the paid index; days without sales are zeros. */
export async function reportTimeseries(db: Executor, scope: Scope, period: Period) {
  const { rows } = await sql<{ day: string; method: PaymentMethod; count: unknown; gross: unknown }>`
    SELECT to_char(paid_at AT TIME ZONE ${REPORT_TZ}, 'YYYY-MM-DD') AS day, payment_method AS method, count(*) AS count, sum(amount_cents) AS gross
      FROM transactions
     WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND paid_at >= ${startOf(period.from)} AND paid_at < ${endOf(period.to)}
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
