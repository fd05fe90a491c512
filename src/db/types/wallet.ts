// Wallet: withdrawals, advances of card receivables, KYC (src/modules/{withdrawals,advances,kyc}).
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';

export type WithdrawalStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
export type PixKeyType = 'cpf' | 'cnpj' | 'email' | 'phone' | 'random';
/**
 * An account a payout reaches by Pix without a key (the DICT's account data: a Pix, not a TED).
 * `holderDocument`: the holder's CPF or CNPJ, digits (CNPJ letters allowed).
 */
export interface BankAccount {
  /** The institution's ISPB: 8 digits. */
  ispb: string;
  /** Agência: 1-4 digits, without its check digit. */
  branch: string;
  /** Conta with its check digit, digits only (1-20). */
  account: string;
  accountType: 'checking' | 'savings' | 'payment' | 'salary';
  holderName: string;
  holderDocument: string;
}

/**
 * ABOVE_REVIEW_THRESHOLD: more than PAYOUT_REVIEW_ABOVE_CENTS; DAILY_LIMIT: past PAYOUT_DAILY_LIMIT_CENTS
 * today (both until an operator approves); NEW_DESTINATION: a key or account never paid out to, until hold_until.
 */
export type WithdrawalHold = 'ABOVE_REVIEW_THRESHOLD' | 'DAILY_LIMIT' | 'NEW_DESTINATION';

export interface WithdrawalsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  amount_cents: number;
  fee_cents: number;
  net_amount_cents: number;
  status: WithdrawalStatus;
  /** The destination: a Pix key (both set) or an account's data (bank_account); never both. */
  pix_key_type: PixKeyType | null;
  pix_key: string | null;
  bank_account: ColumnType<BankAccount | null, string | null | undefined, string | null>;
  description: string | null;
  /** Our reference at the payout connector, chosen when it is first claimed and kept for every retry. */
  payout_ref: string | null;
  /** Production only: why it waits for an operator's approval (null: it does not, or was approved). */
  hold: WithdrawalHold | null;
  /** NEW_DESTINATION: when the hold ends by itself (the payout job sends it from then on). */
  hold_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  approved_at: NullableTimestamp;
  approved_by: string | null;
  /** The platform's account at the PSP lacked funds: sent again from then on. */
  next_attempt_at: NullableTimestamp;
  /** What the connector last said when it could not take the payout (for operators). */
  last_error: string | null;
  /** Payout provider that took it (set when it moves to PROCESSING; 'manual' when an operator settled it). */
  provider: string | null;
  external_id: string | null;
  failure_reason: string | null;
  payout_attempts: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  processed_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  failed_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
}

export type AdvanceStatus = 'PENDING' | 'APPROVED' | 'COMPLETED' | 'REJECTED' | 'CANCELLED';

export interface AdvancesTable {
  id: string;
  user_id: string;
  livemode: boolean;
  amount_cents: number;
  fee_cents: number;
  net_amount_cents: number;
  status: AdvanceStatus;
  reason: string;
  decision_reason: string | null;
  decided_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  approved_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  rejected_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
}

export interface AdvanceItemsTable {
  id: string;
  user_id: string;
  advance_id: string;
  receivable_id: string;
  transaction_id: string;
  installment_number: number;
  amount_cents: number;
  fee_cents: number;
  days: number;
  settle_at: Timestamp;
  created_at: Timestamp;
}

export type KycStatus = 'SUBMITTED' | 'APPROVED' | 'REJECTED';

export interface KycAddress {
  street: string;
  number: string;
  complement?: string;
  district: string;
  city: string;
  state: string;
  zipCode: string;
}

export interface KycSubmissionsTable {
  id: string;
  user_id: string;
  status: KycStatus;
  person_type: 'PF' | 'PJ';
  legal_name: string;
  document: string;
  birth_date: ColumnType<string | null, string | null | undefined, string | null>;
  founding_date: ColumnType<string | null, string | null | undefined, string | null>;
  address: Json<KycAddress>;
  review_reason: string | null;
  reviewed_by: string | null;
  reviewed_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface KycDocumentsTable {
  id: string;
  user_id: string;
  submission_id: string;
  /** Order of the file in the submission. */
  position: number;
  type: string;
  file_name: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  content: Uint8Array;
  created_at: Timestamp;
}

export type Withdrawal = Selectable<WithdrawalsTable>;
export type Advance = Selectable<AdvancesTable>;
export type AdvanceItem = Selectable<AdvanceItemsTable>;
export type KycSubmission = Selectable<KycSubmissionsTable>;
