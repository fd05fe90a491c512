// Affiliate programs, links, clicks and commissions; referral rewards.
import type { Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

/** An affiliate program: one per product (migrations/015_affiliates.ts). */
export interface AffiliateProgramsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  product_id: string;
  description: string | null;
  rules: string | null;
  affiliate_page: string | null;
  sales_page: string | null;
  /** Days a click attributes a sale; null = unlimited. */
  cookie_days: number | null;
  attribution: 'LAST_CLICK' | 'FIRST_CLICK';
  extended_commission: boolean;
  /** Renewals paid at most this many months after the first sale; null = no cap. */
  extended_months: number | null;
  /** Commissions on the whole order, order bumps included. */
  commission_on_bumps: Generated<boolean>;
  commission_type: 'PERCENTAGE' | 'FIXED';
  /** Basis points of the amount paid (PERCENTAGE) or cents (FIXED). */
  commission_value: number;
  approval: 'AUTO' | 'MANUAL';
  guarantee_days: number;
  status: 'ACTIVE' | 'INACTIVE';
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type AffiliateProgram = Selectable<AffiliateProgramsTable>;

export type AffiliateLinkStatus = 'PENDING' | 'ACTIVE' | 'REFUSED' | 'BLOCKED';

/** One affiliate's membership of a program, with its tracking code. */
export interface AffiliateLinksTable {
  id: string;
  program_id: string;
  /** The affiliate (another merchant account). */
  user_id: string;
  livemode: boolean;
  code: string;
  status: AffiliateLinkStatus;
  clicks: Generated<number>;
  conversions: Generated<number>;
  approved_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type AffiliateLink = Selectable<AffiliateLinksTable>;

export type CommissionStatus = 'PENDING' | 'PAID' | 'CANCELLED';

/** An affiliate's commission on one sale, with the program's terms at the time of the sale. */
export interface AffiliateCommissionsTable {
  id: string;
  program_id: string;
  link_id: string;
  /** The affiliate. */
  user_id: string;
  /** The program's owner, who made the sale. */
  merchant_id: string;
  livemode: boolean;
  transaction_id: string;
  commission_type: 'PERCENTAGE' | 'FIXED';
  commission_value: number;
  base_cents: number;
  amount_cents: number;
  status: CommissionStatus;
  /** Why a commission was cancelled (a refund, the buyer being the affiliate). */
  reason: string | null;
  release_at: Timestamp;
  paid_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  /** A refund after the release took the commission back from the affiliate's balance. */
  clawed_back_at: NullableTimestamp;
  created_at: Timestamp;
}
export type AffiliateCommission = Selectable<AffiliateCommissionsTable>;

export type ReferralRewardKind = 'FIXED' | 'COMMISSION';

/** A referrer's reward for an account it referred: FIXED (sales threshold) or COMMISSION (share of a sale's fee). */
export interface ReferralRewardsTable {
  id: string;
  /** The referrer, who is credited. */
  user_id: string;
  /** The referred account, whose sale earned it. */
  referred_id: string;
  /** Always true: development never produces referral money. */
  livemode: boolean;
  kind: ReferralRewardKind;
  transaction_id: string;
  /** FIXED: the referred account's paid sales with this sale; COMMISSION: the sale's fee. */
  base_cents: number;
  /** COMMISSION: basis points of the fee. */
  rate_bp: number | null;
  amount_cents: number;
  status: CommissionStatus;
  reason: string | null;
  release_at: Timestamp;
  paid_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  clawed_back_at: NullableTimestamp;
  created_at: Timestamp;
}
export type ReferralReward = Selectable<ReferralRewardsTable>;

/** One counted click: a link, a visitor's IP (keyed hash) and the hour it fell in. */
export interface AffiliateClicksTable {
  link_id: string;
  ip_hash: string;
  hour: Timestamp;
}
