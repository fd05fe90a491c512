import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

const RewardStatus = Type.Union([Type.Literal('PENDING'), Type.Literal('PAID'), Type.Literal('CANCELLED')]);
const RewardKind = Type.Union([Type.Literal('FIXED'), Type.Literal('COMMISSION')], {
  description: 'FIXED (type 1): the referred account reached the sales threshold; COMMISSION (type 2): a share of the platform fee on one of its sales.',
});

export const ReferralCodeResponse = Type.Object(
  {
    data: Type.Object(
      {
        code: Type.String({ description: 'Your invite code: the referralCode of POST /api/auth/register.' }),
        link: Type.String({ description: 'Your invite link: the sign-up page (REFERRAL_SIGNUP_URL) with ?ref=CODE.' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** Spec "Referral stats": exactly these fields, all integers. */
export const ReferralStatsResponse = Type.Object(
  {
    totalReferrals: Type.Integer({ description: 'Accounts registered with your code.' }),
    completedReferrals: Type.Integer({ description: 'Of those, the ones that earned you the fixed reward (not cancelled).' }),
    pendingReferrals: Type.Integer({ description: 'The others.' }),
    totalFixedRewards: Type.Integer({ description: 'Type 1 rewards, not cancelled.' }),
    totalFixedRewardAmountCents: Type.Integer(),
    totalCommissions: Type.Integer({ description: 'Type 2 commissions, not cancelled.' }),
    totalCommissionAmountCents: Type.Integer(),
    totalRewards: Type.Integer(),
    totalRewardAmountCents: Type.Integer({ description: 'Pending and released, from the ledger.' }),
    totalWithdrawnCents: Type.Integer({ description: 'Your completed production withdrawals (amount paid out plus fee).' }),
    availableBalanceCents: Type.Integer({ description: 'Your production available balance, where released rewards go.' }),
  },
  { additionalProperties: false },
);

export const ListRewardsQuery = Type.Object({ ...PageQuery, status: Type.Optional(RewardStatus), kind: Type.Optional(RewardKind) }, { additionalProperties: false });

export const RewardView = Type.Object({
  id: Uuid,
  kind: RewardKind,
  referred: Type.Object({ id: Uuid, name: Type.String() }),
  transactionId: Uuid,
  baseCents: Type.Integer({ description: "FIXED: the referred account's paid sales with the sale that reached the threshold; COMMISSION: the sale's platform fee." }),
  rateBp: Nullable(Type.Integer({ description: 'COMMISSION: your share of the fee in basis points at the time of the sale.' })),
  amountCents: Type.Integer(),
  status: RewardStatus,
  reason: Nullable(Type.String({ description: 'Why it was cancelled: REFUNDED (before the release) or REFUNDED_AFTER_RELEASE (clawed back).' })),
  releaseAt: Timestamp,
  paidAt: Nullable(Timestamp),
  cancelledAt: Nullable(Timestamp),
  createdAt: Timestamp,
});

export const RewardListResponse = Type.Object({ data: Type.Array(RewardView), meta: PagePagination });
