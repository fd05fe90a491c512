// What falls due for a subscription, and when: a trial ending, a PIX or boleto issued ahead of its
// due date, a period renewal, a dunning retry, the final action, an unpaid first charge expiring, a
// pause ending, a charge attempt its worker did not finish. Pure: no I/O and no wall clock; `now` is
// the subscription's own clock (clockOf).
import type { Subscription, SubscriptionCycle, SubscriptionPlan } from '../../db/types.ts';
import { DAY_MS } from '../../payments/calendar.ts';
import { dunningWithDefaults } from './plans.ts';

/** An unpaid first charge expires after this long (card and PIX); a boleto's at the end of its due date. */
export const INCOMPLETE_TTL_MS = 23 * 3600_000;

/** subscription.trial_will_end is sent this long before the trial ends. */
export const TRIAL_WILL_END_MS = 3 * DAY_MS;

/**
 * How long a counted charge attempt is left to the worker issuing it (the provider's answer
 * included) before the sweep finishes it instead (a crash, an answer that never came).
 */
export const CHARGE_LEASE_MS = 5 * 60_000;

/**
 * When the lease of an attempt counted at `now` (the subscription's clock) ends: on the wall clock,
 * because it is a worker's time to finish, which a simulated jump of the subscription's clock must
 * not cut short (two simulations racing took over each other's attempts and charged them twice).
 */
export const leaseEnd = (sub: Pick<Subscription, 'clock_offset_ms'>, now: Date) => new Date(now.getTime() - sub.clock_offset_ms + CHARGE_LEASE_MS);

/** The subscription's own clock: the wall clock plus its simulation offset (development). */
export const clockOf = (sub: Pick<Subscription, 'clock_offset_ms'>, wallNow: Date) => new Date(wallNow.getTime() + sub.clock_offset_ms);

function unpaidTime(sub: Subscription, cycles: SubscriptionCycle[]): Date {
  // The first charge: card and PIX expire after 23 h, a boleto at the end of its due date.
  if (sub.payment_method === 'BOLETO') {
    const c = cycles.find((x) => x.number === 1);
    if (c) return new Date(c.due_at.getTime() + DAY_MS);
  }
  return new Date(sub.created_at.getTime() + INCOMPLETE_TTL_MS);
}

const daysBefore = (sub: Subscription, plan: SubscriptionPlan) =>
  sub.payment_method === 'PIX' ? plan.dunning.pixDaysBefore : sub.payment_method === 'BOLETO' ? plan.dunning.boletoDaysBefore : sub.payment_method === 'PIX_AUTOMATICO' ? dunningWithDefaults(plan.dunning).pixAutomaticoDaysBefore : 0;

/**
 * The retries of a failed cycle, in days after its first failure. Pix Automático (politicaRetentativa
 * PERMITE_3R_7D): at most 3, each asked for the next day and within 7 days of the due date, so the
 * plan's retry days up to 6 and the first 3 of them.
 */
export const PIX_AUTOMATICO_MAX_RETRIES = 3;
export const PIX_AUTOMATICO_RETRY_WINDOW_DAYS = 7;
export function retryDaysOf(sub: Pick<Subscription, 'payment_method'>, plan: SubscriptionPlan): number[] {
  if (sub.payment_method !== 'PIX_AUTOMATICO') return plan.dunning.retryDays;
  return plan.dunning.retryDays.filter((d) => d <= PIX_AUTOMATICO_RETRY_WINDOW_DAYS - 1).slice(0, PIX_AUTOMATICO_MAX_RETRIES);
}

/** Whether the cycle of the period starting at `start` exists among the cycles given. */
const issuedFor = (cycles: SubscriptionCycle[], start: Date) => cycles.some((c) => c.kind === 'PERIOD' && c.period_start.getTime() >= start.getTime());

export type Step =
  | { kind: 'resume' }
  | { kind: 'expire' }
  | { kind: 'trial_will_end' }
  | { kind: 'issue' }
  | { kind: 'roll' }
  | { kind: 'retry'; cycle: SubscriptionCycle }
  | { kind: 'final'; cycle: SubscriptionCycle }
  | { kind: 'recover'; cycle: SubscriptionCycle };

/** Retries left after `attempts` charges of a cycle (the first charge is attempt 1). */
const retriesLeft = (retryDays: number[], c: SubscriptionCycle) => (c.hard_declined ? 0 : Math.max(0, retryDays.length - (c.attempts - 1)));

/**
 * Everything that can fall due for a subscription, with its time; `cycles` are its unpaid cycles
 * plus (for the PIX/boleto issue check) the next period's. Pure.
 */
export function agenda(sub: Subscription, plan: SubscriptionPlan, cycles: SubscriptionCycle[]): { at: Date; step: Step }[] {
  const out: { at: Date; step: Step }[] = [];
  const ahead = daysBefore(sub, plan) * DAY_MS;
  // A charge attempt whose worker did not finish it in time (crashed, or no answer from the provider).
  for (const c of cycles) {
    if (c.charge_until && (c.status === 'OPEN' || c.status === 'PAST_DUE')) out.push({ at: new Date(c.charge_until.getTime() + sub.clock_offset_ms), step: { kind: 'recover', cycle: c } });
  }
  switch (sub.status) {
    case 'PAUSED':
      if (sub.resumes_at) out.push({ at: sub.resumes_at, step: { kind: 'resume' } });
      break;
    case 'INCOMPLETE':
      out.push({ at: unpaidTime(sub, cycles), step: { kind: 'expire' } });
      break;
    case 'TRIALING': {
      const end = sub.trial_end ?? sub.current_period_end;
      if (!sub.trial_will_end_sent && end.getTime() - TRIAL_WILL_END_MS > sub.created_at.getTime()) out.push({ at: new Date(end.getTime() - TRIAL_WILL_END_MS), step: { kind: 'trial_will_end' } });
      if (ahead && !issuedFor(cycles, end)) out.push({ at: new Date(end.getTime() - ahead), step: { kind: 'issue' } });
      out.push({ at: end, step: { kind: 'roll' } });
      break;
    }
    case 'ACTIVE':
    case 'PAST_DUE':
      for (const c of cycles) {
        if (c.next_retry_at && (c.status === 'PAST_DUE' || c.status === 'OPEN')) out.push({ at: c.next_retry_at, step: retriesLeft(retryDaysOf(sub, plan), c) > 0 ? { kind: 'retry', cycle: c } : { kind: 'final', cycle: c } });
      }
      if (ahead && !sub.cancel_at_period_end && !issuedFor(cycles, sub.current_period_end)) out.push({ at: new Date(sub.current_period_end.getTime() - ahead), step: { kind: 'issue' } });
      out.push({ at: sub.current_period_end, step: { kind: 'roll' } });
      break;
  }
  // Chronological; at the same instant, in the order pushed (e.g. an issue before the roll it feeds).
  return out.map((x, i) => ({ ...x, i })).sort((a, b) => a.at.getTime() - b.at.getTime() || a.i - b.i);
}
