// Subscription metrics of one month (São Paulo calendar), formulas in docs/subscriptions.md.
// The SQL gathers, per subscription, what the formulas need as of the month's start and end (the
// price it paid then, from its paid cycles); metricsOf is pure, so its identities are property-tested:
// mrrEnd - mrrStart = new + expansion + reactivation - contraction - churn, to the cent.
import { sql } from 'kysely';
import type { Executor } from '../../db/index.ts';
import type { PlanInterval, SubscriptionStatus } from '../../db/types.ts';
import type { Scope } from '../../http/scope.ts';
import { monthsPerPeriod } from './calendar.ts';

export interface MetricsRow {
  status: SubscriptionStatus;
  createdAt: Date;
  /** When it first held a paid (or trial) place: not set for a subscription that never got past INCOMPLETE. */
  activated: boolean;
  trialEnd: Date | null;
  endedAt: Date | null;
  cancelled: boolean;
  pausedAt: Date | null;
  interval: PlanInterval;
  intervalCount: number;
  /** The period price it paid for the period running at the month's start / end (null: none paid yet). */
  amountAtStart: number | null;
  amountAtEnd: number | null;
  planAmount: number;
  pastDueAtEnd: boolean;
}

export interface Metrics {
  month: string;
  mrrCents: number;
  mrr: number;
  activeSubscribers: number;
  totalActive: number;
  totalCancelled: number;
  totalPaused: number;
  trialing: number;
  pastDue: number;
  newSubscribers: number;
  cancellations: number;
  activeAtStart: number;
  churnRate: number;
  mrrAtStartCents: number;
  revenueChurnRate: number;
  movements: { newCents: number; expansionCents: number; contractionCents: number; churnCents: number; reactivationCents: number; netCents: number };
}

const before = (d: Date | null, t: Date) => d !== null && d.getTime() <= t.getTime();

/** Whether the subscription is paying (counts in MRR) at instant t. */
export function payingAt(r: MetricsRow, t: Date): boolean {
  if (!r.activated || r.createdAt.getTime() > t.getTime()) return false;
  if (before(r.endedAt, t)) return false;
  if (r.trialEnd && r.trialEnd.getTime() > t.getTime()) return false;
  if (r.status === 'PAUSED' && before(r.pausedAt, t)) return false;
  return true;
}

/** Monthly recurring revenue of one subscription at t, in whole cents (its period price over its months). */
export function mrrAt(r: MetricsRow, t: Date, amount: number | null): number {
  if (!payingAt(r, t)) return 0;
  return Math.round((amount ?? r.planAmount) / monthsPerPeriod({ interval: r.interval, intervalCount: r.intervalCount }));
}

const ratio = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 10_000) / 10_000);

/** The month's metrics: `start` and `end` bound it ([start, end)); `end` is now for the current month. */
export function metricsOf(month: string, rows: MetricsRow[], start: Date, end: Date): Metrics {
  const mv = { newCents: 0, expansionCents: 0, contractionCents: 0, churnCents: 0, reactivationCents: 0, netCents: 0 };
  let mrrStart = 0;
  let mrrEnd = 0;
  let active = 0;
  let activeAtStart = 0;
  let cancellations = 0;
  let totalCancelled = 0;
  let totalPaused = 0;
  let trialing = 0;
  let pastDue = 0;
  let newSubscribers = 0;
  const last = new Date(end.getTime() - 1);
  for (const r of rows) {
    const a = mrrAt(r, start, r.amountAtStart);
    const b = mrrAt(r, last, r.amountAtEnd);
    mrrStart += a;
    mrrEnd += b;
    if (a === 0 && b > 0) {
      // New when it first pays this month; otherwise it came back (a trial ending counts as new).
      if (r.createdAt.getTime() >= start.getTime() || (r.trialEnd && r.trialEnd.getTime() >= start.getTime())) mv.newCents += b;
      else mv.reactivationCents += b;
    } else if (a > 0 && b === 0) mv.churnCents += a;
    else if (b > a) mv.expansionCents += b - a;
    else if (a > b) mv.contractionCents += a - b;
    const activeAtEnd = payingAt(r, last);
    if (activeAtEnd) active++;
    if (payingAt(r, start)) {
      activeAtStart++;
      if (r.cancelled && r.endedAt && r.endedAt.getTime() >= start.getTime() && r.endedAt.getTime() < end.getTime()) cancellations++;
    }
    if (r.cancelled && before(r.endedAt, last)) totalCancelled++;
    if (r.status === 'PAUSED' && before(r.pausedAt, last)) totalPaused++;
    if (r.activated && r.createdAt.getTime() <= last.getTime() && r.trialEnd && r.trialEnd.getTime() > last.getTime() && !before(r.endedAt, last)) trialing++;
    if (activeAtEnd && r.pastDueAtEnd) pastDue++;
    if (r.activated && r.createdAt.getTime() >= start.getTime() && r.createdAt.getTime() < end.getTime()) newSubscribers++;
  }
  mv.netCents = mv.newCents + mv.expansionCents + mv.reactivationCents - mv.contractionCents - mv.churnCents;
  return {
    month,
    mrrCents: mrrEnd,
    mrr: mrrEnd,
    activeSubscribers: active,
    totalActive: active,
    totalCancelled,
    totalPaused,
    trialing,
    pastDue,
    newSubscribers,
    cancellations,
    activeAtStart,
    churnRate: ratio(cancellations, activeAtStart),
    mrrAtStartCents: mrrStart,
    revenueChurnRate: ratio(mv.churnCents + mv.contractionCents, mrrStart),
    movements: mv,
  };
}

/** [start, end) of a São Paulo calendar month 'YYYY-MM'. */
export function monthBounds(month: string): { start: Date; end: Date } {
  const [y, m] = month.split('-').map(Number);
  const start = new Date(`${month}-01T00:00:00-03:00`);
  const next = m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
  return { start, end: new Date(`${next}-01T00:00:00-03:00`) };
}

/** Metrics of the merchant's subscriptions in `month` (default: the current São Paulo month). */
export async function subscriptionMetrics(db: Executor, scope: Scope, month: string | undefined, now = new Date()): Promise<Metrics> {
  const current = new Date(now.getTime() - 3 * 3600_000).toISOString().slice(0, 7);
  const m = month ?? current;
  const bounds = monthBounds(m);
  // Up to now for the current month (nothing has happened after it); a future month is as of now.
  const end = bounds.end.getTime() > now.getTime() ? new Date(Math.max(now.getTime(), bounds.start.getTime()) + 1) : bounds.end;
  const paidAt = (t: Date) => sql<number | null>`(SELECT c.amount_cents FROM subscription_cycles c
      WHERE c.subscription_id = s.id AND c.kind = 'PERIOD' AND c.status = 'PAID' AND c.period_start <= ${t}
      ORDER BY c.period_start DESC LIMIT 1)`;
  const last = new Date(end.getTime() - 1);
  const rows = await db
    .selectFrom('subscriptions as s')
    .innerJoin('subscription_plans as p', 'p.id', 's.plan_id')
    .select([
      's.status',
      's.created_at',
      's.trial_end',
      's.ended_at',
      's.paused_at',
      'p.interval',
      'p.interval_count',
      'p.amount_cents as plan_amount',
      // Activated: it had a trial, or paid a cycle (an INCOMPLETE that expired never did).
      sql<boolean>`(s.trial_end IS NOT NULL OR EXISTS (SELECT 1 FROM subscription_cycles c WHERE c.subscription_id = s.id AND c.status = 'PAID'))`.as('activated'),
      paidAt(bounds.start).as('amount_at_start'),
      paidAt(last).as('amount_at_end'),
      sql<boolean>`EXISTS (SELECT 1 FROM subscription_cycles c WHERE c.subscription_id = s.id AND c.status <> 'VOID'
        AND c.first_failed_at <= ${last} AND (c.paid_at IS NULL OR c.paid_at > ${last}))`.as('past_due_at_end'),
    ])
    .where('s.user_id', '=', scope.userId)
    .where('s.livemode', '=', scope.livemode)
    .where('s.created_at', '<', end)
    .execute();
  return metricsOf(
    m,
    rows.map((r) => ({
      status: r.status,
      createdAt: r.created_at,
      activated: r.activated,
      trialEnd: r.trial_end,
      endedAt: r.ended_at,
      cancelled: r.status === 'CANCELLED',
      pausedAt: r.paused_at,
      interval: r.interval,
      intervalCount: r.interval_count,
      amountAtStart: r.amount_at_start === null ? null : Number(r.amount_at_start),
      amountAtEnd: r.amount_at_end === null ? null : Number(r.amount_at_end),
      planAmount: r.plan_amount,
      pastDueAtEnd: r.past_due_at_end,
    })),
    bounds.start,
    end,
  );
}
