// Production withdrawals an operator looks at before money leaves: one above the review threshold
// (PAYOUT_REVIEW_ABOVE_CENTS), or one that takes the merchant past its daily limit
// (PAYOUT_DAILY_LIMIT_CENTS, a São Paulo calendar day). A held withdrawal stays PENDING with its
// funds reserved (the merchant may still cancel it) until approved (service.ts approveWithdrawal);
// the payout job skips it.
import type { ReviewRules } from '../../config.ts';
import type { Trx } from '../../db/index.ts';
import type { WithdrawalHold } from '../../db/types.ts';
import type { Scope } from '../../http/scope.ts';
import { spDate, startOfSpDay } from '../../payments/calendar.ts';

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
