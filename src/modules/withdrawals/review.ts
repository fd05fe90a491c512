// Production withdrawals that wait before money leaves: one above the review threshold
// (PAYOUT_REVIEW_ABOVE_CENTS), or one that takes the merchant past its daily limit
// (PAYOUT_DAILY_LIMIT_CENTS, a São Paulo calendar day), until an operator approves it; one to a
// destination never paid out to (NEW_DESTINATION, new-destination.ts) until its hold_until, or an
// operator's earlier approval. A held withdrawal stays PENDING with its funds reserved (the merchant
// may still cancel it); the payout job skips it.
import type { ReviewRules } from '../../config.ts';
import type { Trx } from '../../db/index.ts';
import type { WithdrawalHold } from '../../db/types.ts';
import type { Scope } from '../../http/scope.ts';
import { spDate, startOfSpDay } from '../../payments/calendar.ts';
import type { DestinationColumns } from './destination.ts';
import { paidBefore } from './new-destination.ts';

/** What a new withdrawal waits for; `newDestination`: its owner is e-mailed. */
export interface HoldDecision {
  hold: WithdrawalHold | null;
  holdUntil: Date | null;
  newDestination: boolean;
}

/**
 * The hold of a new withdrawal (development: none). An operator's review comes first (its approval
 * also lets a new destination go); otherwise a new destination waits `newDestinationHours`.
 */
export async function decideHold(trx: Trx, scope: Scope, amountCents: number, destination: DestinationColumns, rules: ReviewRules, now: Date): Promise<HoldDecision> {
  if (!scope.livemode) return { hold: null, holdUntil: null, newDestination: false };
  const newDestination = rules.newDestinationHours > 0 && !(await paidBefore(trx, scope, destination));
  const review = await holdFor(trx, scope, amountCents, rules, now);
  if (review || !newDestination) return { hold: review, holdUntil: null, newDestination };
  return { hold: 'NEW_DESTINATION', holdUntil: new Date(now.getTime() + rules.newDestinationHours * 3_600_000), newDestination };
}

/**
 * Why a new production withdrawal must wait, if it must. Called under the lock of the merchant's
 * available balance, so two withdrawals of the same merchant cannot both slip under the limit.
 */
export async function holdFor(trx: Trx, scope: Scope, amountCents: number, rules: ReviewRules, now: Date): Promise<WithdrawalHold | null> {
  if (rules.aboveCents > 0 && amountCents > rules.aboveCents) return 'ABOVE_REVIEW_THRESHOLD';
  if (rules.dailyLimitCents === null) return null;
  const row = await trx
    .selectFrom('withdrawals')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('amount_cents'), eb.lit(0)).as('total'))
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', true)
    .where('created_at', '>=', startOfSpDay(spDate(now)))
    .where('status', 'not in', ['CANCELLED', 'FAILED'])
    .executeTakeFirstOrThrow();
  return Number(row.total) + amountCents > rules.dailyLimitCents ? 'DAILY_LIMIT' : null;
}
