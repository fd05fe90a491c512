// Splits and sub-accounts (migrations/045_splits.ts; docs/splits.md).
import type { ColumnType, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

export type SplitBasis = 'NET' | 'GROSS';

/**
 * One recipient of a split rule: exactly one of fixedCents and percentageBp, of the sale's net
 * (charged less the gateway fee; the default) or gross (`basis`); `chargeFees` (GROSS only): the
 * share bears its part of the fee.
 */
export interface SplitRecipient {
  walletId: string;
  fixedCents?: number;
  percentageBp?: number;
  basis?: SplitBasis;
  chargeFees?: boolean;
}

/** A split rule as a link, a checkout or a plan stores it: its recipients, at most 10. */
export type SplitRule = SplitRecipient[];

/** A split rule as a transaction stores it: each recipient's merchant resolved when it was created. */
export type TransactionSplitRule = (SplitRecipient & { userId: string })[];

export type SplitColumn<T> = ColumnType<T | null, string | null | undefined, string | null>;

/** A merchant created by a platform for one of its sellers. */
export interface SubAccountsTable {
  user_id: string;
  platform_id: string;
  document: string;
  phone: string;
  address: ColumnType<Record<string, string>, string, string>;
  pix_key: string | null;
  /** When the seller first set a password (migrations/046_sub_account_login.ts); null: not yet. */
  login_enabled_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type SplitPartnerStatus = 'PENDING' | 'ACCEPTED' | 'DECLINED' | 'REVOKED';

/** A merchant (user_id) and another it may send shares of its sales to (partner_id), once it accepted. */
export interface SplitPartnersTable {
  id: string;
  user_id: string;
  partner_id: string;
  status: SplitPartnerStatus;
  message: string | null;
  created_at: Timestamp;
  decided_at: NullableTimestamp;
  updated_at: Timestamp;
}

export type SplitShareStatus = 'PAID' | 'PARTIALLY_REVERSED' | 'REVERSED';

/** One recipient's share of a paid sale. */
export interface TransactionSplitsTable {
  id: string;
  transaction_id: string;
  /** The seller of record. */
  user_id: string;
  recipient_id: string;
  livemode: boolean;
  basis: SplitBasis;
  fixed_cents: number | null;
  percentage_bp: number | null;
  charge_fees: boolean;
  /** What the recipient was credited. */
  amount_cents: number;
  /** The part of the gateway fee its share bore (chargeFees). */
  fee_cents: number;
  reversed_cents: ColumnType<number, number | undefined, number>;
  status: SplitShareStatus;
  /** Where the share landed: available at once, or receivable as the sale settles. */
  account: 'available' | 'receivable';
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type SubAccount = Selectable<SubAccountsTable>;
export type SplitPartner = Selectable<SplitPartnersTable>;
export type TransactionSplit = Selectable<TransactionSplitsTable>;
