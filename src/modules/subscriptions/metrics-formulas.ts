// Subscription metrics of one month (São Paulo calendar): the formulas of docs/subscriptions.md over
// what the SQL (metrics.ts) gathers per subscription as of the month's start and end (the price it
// paid then, from its paid cycles). Pure, so its identities are property-tested:
// mrrEnd - mrrStart = new + expansion + reactivation - contraction - churn, to the cent.
import type { PlanInterval } from '../../db/types.ts';
import { monthsPerPeriod } from './calendar.ts';

export interface MetricsRow {
  createdAt: Date;
  /** When it first held a place (its trial's start, or its first paid charge); null: never (INCOMPLETE, EXPIRED). */
  activatedAt: Date | null;
  trialEnd: Date | null;
  endedAt: Date | null;
  /** Cancelled (not expired); the SQL sends it only once the cancellation has happened (ended by the month's last instant). */
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
