// Table types for Kysely, one file per domain under db/types/ (all re-exported here: import from this file).
// Columns with defaults are Generated; money is bigint in SQL, number here.
import type { ApiKeysTable, AuditLogTable, EmailsTable, IdempotencyKeysTable, SessionsTable, UsersTable } from './types/accounts.ts';
import type { AffiliateClicksTable, AffiliateCommissionsTable, AffiliateLinksTable, AffiliateProgramsTable, ReferralRewardsTable } from './types/affiliates.ts';
import type { CartAbandonmentsTable, ClientsTable, CouponRedemptionsTable, CouponsTable, PaymentLinkProductsTable, PaymentLinksTable, ProductsTable } from './types/catalog.ts';
import type { SavedCardsTable } from './types/cards.ts';
import type { LedgerAccountsTable, LedgerEntriesTable, LedgerJournalsTable, ReceivablesTable } from './types/ledger.ts';
import type { SubscriptionCyclesTable, SubscriptionPausesTable, SubscriptionPlansTable, SubscriptionsTable } from './types/subscriptions.ts';
import type { CardAttemptsTable, ChargebacksTable, RefundsTable, ReportDaysTable, SandboxOperationsTable, TransactionsTable } from './types/transactions.ts';
import type { AdvanceItemsTable, AdvancesTable, KycDocumentsTable, KycSubmissionsTable, WithdrawalsTable } from './types/wallet.ts';
import type { EventsTable, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookSubscriptionsTable } from './types/webhooks.ts';

export type * from './types/accounts.ts';
export type * from './types/catalog.ts';
export type * from './types/transactions.ts';
export type * from './types/ledger.ts';
export type * from './types/webhooks.ts';
export type * from './types/wallet.ts';
export type * from './types/affiliates.ts';
export type * from './types/subscriptions.ts';
export type * from './types/cards.ts';

export interface DB {
  users: UsersTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  products: ProductsTable;
  clients: ClientsTable;
  transactions: TransactionsTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_journals: LedgerJournalsTable;
  ledger_entries: LedgerEntriesTable;
  receivables: ReceivablesTable;
  events: EventsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  withdrawals: WithdrawalsTable;
  advances: AdvancesTable;
  advance_items: AdvanceItemsTable;
  kyc_submissions: KycSubmissionsTable;
  kyc_documents: KycDocumentsTable;
  payment_links: PaymentLinksTable;
  payment_link_products: PaymentLinkProductsTable;
  coupons: CouponsTable;
  coupon_redemptions: CouponRedemptionsTable;
  cart_abandonments: CartAbandonmentsTable;
  refunds: RefundsTable;
  chargebacks: ChargebacksTable;
  sandbox_operations: SandboxOperationsTable;
  card_attempts: CardAttemptsTable;
  report_days: ReportDaysTable;
  affiliate_programs: AffiliateProgramsTable;
  affiliate_links: AffiliateLinksTable;
  affiliate_commissions: AffiliateCommissionsTable;
  affiliate_clicks: AffiliateClicksTable;
  referral_rewards: ReferralRewardsTable;
  emails: EmailsTable;
  subscription_plans: SubscriptionPlansTable;
  subscriptions: SubscriptionsTable;
  subscription_cycles: SubscriptionCyclesTable;
  subscription_pauses: SubscriptionPausesTable;
  saved_cards: SavedCardsTable;
  audit_log: AuditLogTable;
}
