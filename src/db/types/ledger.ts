// The double-entry ledger (accounts, journals, entries) and card receivables.
import type { Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

/**
 * commission_pending: an affiliate's commissions not released yet; transfers: money moved to or from
 * another merchant in the same journal (an affiliate's share), so each merchant's accounts sum to zero.
 */
export type AccountKind = 'available' | 'receivable' | 'reserved' | 'fees' | 'external' | 'commission_pending' | 'transfers';

export interface LedgerAccountsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  kind: AccountKind;
  balance_cents: number;
  updated_at: Timestamp;
}

export interface LedgerJournalsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  kind: string;
  reference_type: string;
  reference_id: string;
  description: string;
  created_at: Timestamp;
}

export interface LedgerEntriesTable {
  id: string;
  journal_id: string;
  account_id: string;
  user_id: string;
  livemode: boolean;
  account_kind: AccountKind;
  amount_cents: number;
  balance_after_cents: number;
  created_at: Timestamp;
}

export interface ReceivablesTable {
  id: string;
  user_id: string;
  livemode: boolean;
  transaction_id: string;
  installment_number: number;
  amount_cents: number;
  settle_at: Timestamp;
  status: 'PENDING' | 'SETTLED' | 'ADVANCED' | 'CANCELLED';
  settled_at: NullableTimestamp;
  created_at: Timestamp;
}

export type Receivable = Selectable<ReceivablesTable>;
