// Subscription metrics of one month (São Paulo calendar), formulas in docs/subscriptions.md.
// The SQL gathers, per subscription, what the formulas need as of the month's start and end (the
// price it paid then, from its paid cycles); metricsOf is pure, so its identities are property-tested:
// mrrEnd - mrrStart = new + expansion + reactivation - contraction - churn, to the cent.
import { sql } from 'kysely';
import { inTx, type Executor } from '../../db/index.ts';
import type { PlanInterval, SubscriptionStatus } from '../../db/types.ts';
import type { Scope } from '../../http/scope.ts';
import { monthsPerPeriod } from './calendar.ts';

export interface MetricsRow {
  status: SubscriptionStatus;
  createdAt: Date;
  /** When it first held a place (its trial's start, or its first paid charge); null: never (INCOMPLETE, EXPIRED). */
  activatedAt: Date | null;
  trialEnd: Date | null;
  endedAt: Date | null;
  cancelled: boolean;
  /** Whether the pause history has it paused at the month's start / at its last instant. */
  pausedAtStart: boolean;
  pausedAtEnd: boolean;
  interval: PlanInterval;
  intervalCount: number;
  /** The price billed for the period running at the month's start / end (null: no period billed by then). */
  amountAtStart: number | null;
  amountAtEnd: number | null;
  planAmount: number;
  /** A charge had failed by the month's last instant and was neither paid nor withdrawn by then. */
  pastDueAtEnd: boolean;
  /** How many subscriptions this row stands for (the SQL groups identical ones; default 1). */
  count?: number;
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

/** Whether the subscription is paying (counts in MRR) at instant t, `paused` by the pause history at t. */
export function payingAt(r: MetricsRow, t: Date, paused: boolean): boolean {
  if (!before(r.activatedAt, t) || r.createdAt.getTime() > t.getTime()) return false;
  if (before(r.endedAt, t)) return false;
  if (r.trialEnd && r.trialEnd.getTime() > t.getTime()) return false;
  return !paused;
}

/** Monthly recurring revenue of one subscription at t, in whole cents (its period price over its months). */
export function mrrAt(r: MetricsRow, t: Date, paused: boolean, amount: number | null): number {
  if (!payingAt(r, t, paused)) return 0;
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
    const n = r.count ?? 1;
    const a = mrrAt(r, start, r.pausedAtStart, r.amountAtStart);
    const b = mrrAt(r, last, r.pausedAtEnd, r.amountAtEnd);
    mrrStart += n * a;
    mrrEnd += n * b;
    if (a === 0 && b > 0) {
      // New when it first pays this month; otherwise it came back (from a pause; a trial ending counts as new).
      if (r.createdAt.getTime() >= start.getTime() || (r.trialEnd && r.trialEnd.getTime() >= start.getTime())) mv.newCents += n * b;
      else mv.reactivationCents += n * b;
    } else if (a > 0 && b === 0) mv.churnCents += n * a;
    else if (b > a) mv.expansionCents += n * (b - a);
    else if (a > b) mv.contractionCents += n * (a - b);
    const activeAtEnd = payingAt(r, last, r.pausedAtEnd);
    if (activeAtEnd) active += n;
    if (payingAt(r, start, r.pausedAtStart)) {
      activeAtStart += n;
      if (r.cancelled && r.endedAt && r.endedAt.getTime() >= start.getTime() && r.endedAt.getTime() < end.getTime()) cancellations += n;
    }
    const live = before(r.activatedAt, last) && r.createdAt.getTime() <= last.getTime() && !before(r.endedAt, last);
    if (r.cancelled && before(r.endedAt, last)) totalCancelled += n;
    if (live && r.pausedAtEnd) totalPaused += n;
    if (live && !r.pausedAtEnd && r.trialEnd && r.trialEnd.getTime() > last.getTime()) trialing += n;
    if (activeAtEnd && r.pastDueAtEnd) pastDue += n;
    if (before(r.activatedAt, last) && r.createdAt.getTime() >= start.getTime() && r.createdAt.getTime() < end.getTime()) newSubscribers += n;
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

/**
 * Where an instant lies against the month, which is all metricsOf asks of it: before its start (0),
 * at its start (1), after the start up to its last instant (2), after that (3). The SQL sends the
 * class, not the instant, so that identical subscriptions come as one row with a count.
 */
export type Place = 0 | 1 | 2 | 3;

/** An instant of that class (metricsOf gives the same answer for every instant of a class). */
export function instantOf(place: Place | null, start: Date, last: Date): Date | null {
  if (place === null) return null;
  return new Date([start.getTime() - 1, start.getTime(), last.getTime(), last.getTime() + 1][place]);
}

/** Metrics of the merchant's subscriptions in `month` (default: the current São Paulo month). */
export async function subscriptionMetrics(db: Executor, scope: Scope, month: string | undefined, now = new Date()): Promise<Metrics> {
  const current = new Date(now.getTime() - 3 * 3600_000).toISOString().slice(0, 7);
  const m = month ?? current;
  const bounds = monthBounds(m);
  // Up to now for the current month (nothing has happened after it); a future month is as of now.
  const end = bounds.end.getTime() > now.getTime() ? new Date(Math.max(now.getTime(), bounds.start.getTime()) + 1) : bounds.end;
  const t0 = bounds.start;
  const t1 = new Date(end.getTime() - 1);
  // The planner cannot know how few groups there are (a few hundred): with the memory to hash them
  // it groups 100,000 rows in one pass instead of sorting them on disk; JIT compiling costs more than it saves here.
  // With the default random_page_cost (4, for spinning disks) a freshly vacuumed table looks cheaper to
  // read whole than through the covering index (subscriptions_metrics), which is a fraction of its width.
  const { rows } = await inTx(db, async (trx) => {
    await sql`SET LOCAL work_mem = '32MB'`.execute(trx);
    await sql`SET LOCAL jit = off`.execute(trx);
    await sql`SET LOCAL random_page_cost = 1.1`.execute(trx);
    return sql<{
    status: SubscriptionStatus;
    created: Place;
    activated: Place | null;
    trial_end: Place | null;
    ended: Place | null;
    interval: PlanInterval;
    interval_count: number;
    plan_amount: string | number;
    paused_start: boolean;
    paused_end: boolean;
    amount_start: string | number | null;
    amount_end: string | number | null;
    past_due: boolean;
    n: string | number;
  }>`
    WITH live AS (
      -- A subscription's state at t matters only if it had started by t and not ended by it.
      SELECT s.*, s.activated_at <= ${t0} AND (s.ended_at IS NULL OR s.ended_at > ${t0}) AS at_start,
        s.activated_at <= ${t1} AND (s.ended_at IS NULL OR s.ended_at > ${t1}) AS at_end
      FROM subscriptions s
      WHERE s.user_id = ${scope.userId} AND s.livemode = ${scope.livemode} AND s.created_at <= ${t1}
    ), paused AS (
      SELECT h.subscription_id, bool_or(h.started_at <= ${t0} AND (h.ended_at IS NULL OR h.ended_at > ${t0})) AS p0,
        bool_or(h.started_at <= ${t1} AND (h.ended_at IS NULL OR h.ended_at > ${t1})) AS p1
      FROM subscription_pauses h
      WHERE h.user_id = ${scope.userId} AND h.livemode = ${scope.livemode} AND h.started_at <= ${t1} AND (h.ended_at IS NULL OR h.ended_at > ${t0})
      GROUP BY h.subscription_id
    ), failing AS (
      SELECT DISTINCT c.subscription_id FROM subscription_cycles c
      WHERE c.user_id = ${scope.userId} AND c.livemode = ${scope.livemode} AND c.first_failed_at IS NOT NULL AND c.first_failed_at <= ${t1}
        AND (c.paid_at IS NULL OR c.paid_at > ${t1}) AND (c.voided_at IS NULL OR c.voided_at > ${t1})
    ), s AS (
      SELECT s.status, s.created_at, s.activated_at, s.trial_end, s.ended_at, p.interval, p.interval_count, p.amount_cents AS plan_amount,
        s.at_start AND coalesce(h.p0, false) AS paused_start,
        s.at_end AND coalesce(h.p1, false) AS paused_end,
        -- The price billed for the period running at t: its cycle's (a cycle keeps the price it was created with).
        -- (price_cents, from price_since on; before that, looked up among the cycles).
        CASE WHEN NOT s.at_start THEN NULL WHEN s.price_since <= ${t0} THEN s.price_cents ELSE (SELECT c.amount_cents FROM subscription_cycles c
          WHERE c.subscription_id = s.id AND c.kind = 'PERIOD' AND c.period_start <= ${t0} AND c.created_at <= ${t0} ORDER BY c.period_start DESC LIMIT 1) END AS amount_start,
        CASE WHEN NOT s.at_end THEN NULL WHEN s.price_since <= ${t1} THEN s.price_cents ELSE (SELECT c.amount_cents FROM subscription_cycles c
          WHERE c.subscription_id = s.id AND c.kind = 'PERIOD' AND c.period_start <= ${t1} AND c.created_at <= ${t1} ORDER BY c.period_start DESC LIMIT 1) END AS amount_end,
        s.at_end AND f.subscription_id IS NOT NULL AS past_due
      FROM live s JOIN subscription_plans p ON p.id = s.plan_id
        LEFT JOIN paused h ON h.subscription_id = s.id
        LEFT JOIN failing f ON f.subscription_id = s.id
    ), placed AS (
      SELECT status, interval, interval_count, plan_amount, paused_start, paused_end, amount_start, amount_end, past_due,
        ${placeOf('created_at', t0, t1)} AS created, ${placeOf('activated_at', t0, t1)} AS activated,
        ${placeOf('trial_end', t0, t1)} AS trial_end, ${placeOf('ended_at', t0, t1)} AS ended
      FROM s
    )
    SELECT status, created, activated, trial_end, ended, interval, interval_count, plan_amount, paused_start, paused_end, amount_start, amount_end, past_due, count(*) AS n
    FROM placed GROUP BY status, created, activated, trial_end, ended, interval, interval_count, plan_amount, paused_start, paused_end, amount_start, amount_end, past_due
  `.execute(trx);
  });
  const at = (p: Place | null) => instantOf(p === null ? null : (Number(p) as Place), t0, t1);
  const num = (v: string | number | null) => (v === null ? null : Number(v));
  return metricsOf(
    m,
    rows.map((r) => ({
      status: r.status,
      createdAt: at(r.created)!,
      activatedAt: at(r.activated),
      trialEnd: at(r.trial_end),
      endedAt: at(r.ended),
      cancelled: r.status === 'CANCELLED',
      pausedAtStart: r.paused_start,
      pausedAtEnd: r.paused_end,
      interval: r.interval,
      intervalCount: r.interval_count,
      amountAtStart: num(r.amount_start),
      amountAtEnd: num(r.amount_end),
      planAmount: Number(r.plan_amount),
      pastDueAtEnd: r.past_due,
      count: Number(r.n),
    })),
    bounds.start,
    end,
  );
}

/** The SQL of a column's Place (see Place). */
function placeOf(col: 'created_at' | 'activated_at' | 'trial_end' | 'ended_at', t0: Date, t1: Date) {
  const c = sql.ref(col);
  return sql<Place | null>`CASE WHEN ${c} IS NULL THEN NULL WHEN ${c} < ${t0} THEN 0 WHEN ${c} = ${t0} THEN 1 WHEN ${c} <= ${t1} THEN 2 ELSE 3 END`;
}
