// Table types for Kysely. Columns with defaults are Generated; money is bigint in SQL, number here.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string, string>;

export interface UsersTable {
  id: string;
  name: string;
  email: string;
  password_hash: string;
  role: Generated<'USER' | 'ADMIN'>;
  referral_code: string;
  referred_by: string | null;
  /** Signs postbacks (deliveries to a transaction's postbackUrl); generated on first use. */
  postback_secret: string | null;
  /** An operator's overrides of the platform's fees (modules/fees/schedule.ts); null = none. */
  fees: ColumnType<Record<string, number> | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A dashboard session: one per issued token (its `jti`); see migrations/008_sessions.ts. */
export interface SessionsTable {
  user_id: string;
  id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  livemode: boolean;
  permissions: Json<string[]>;
  prefix: string;
  key_hash: string;
  revoked_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface ProductsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  name: string;
  description: string | null;
  price_cents: number;
  currency: Generated<string>;
  stock_quantity: number | null;
  stock_enabled: Generated<boolean>;
  is_digital: Generated<boolean>;
  image_url: string | null;
  sku: Generated<string | null>;
  status: Generated<'ACTIVE' | 'INACTIVE'>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ClientsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  name: string;
  email: string;
  document: string;
  phone: string | null;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

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
  sandbox_operations: SandboxOperationsTable;
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
}

export type User = Selectable<UsersTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type Product = Selectable<ProductsTable>;
export type NewProduct = Insertable<ProductsTable>;
export type ProductUpdate = Updateable<ProductsTable>;
export type Client = Selectable<ClientsTable>;

/**
 * A PIX with a due date: its late-payment terms (payments/late-payment.ts). `fineBp`: a fine of this
 * share of the amount (basis points: 200 = 2,00 %), once, from the day after the due date.
 * `interestMonthlyBp`: simple interest per month (100 = 1,00 % a.m.), counted per calendar day late
 * as 1/30 of it. Either may be 0 (none).
 */
export interface LatePayment {
  daysAfterDue: number;
  fineBp: number;
  interestMonthlyBp: number;
}

export type TransactionStatus = 'PENDING' | 'AUTHORIZED' | 'PAID' | 'FAILED' | 'EXPIRED' | 'CANCELLED' | 'REFUNDED' | 'PARTIALLY_REFUNDED';
export type PaymentMethod = 'PIX' | 'CARD' | 'BOLETO';

export interface TransactionsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  display_id: string;
  product: string;
  amount_cents: number;
  charged_cents: number;
  fee_cents: number;
  refunded_cents: Generated<number>;
  status: TransactionStatus;
  payment_method: PaymentMethod;
  client_id: string;
  client_name: string;
  client_email: string;
  client_document: string;
  client_phone: string | null;
  installments: number;
  installment_cents: number | null;
  card_brand: string | null;
  card_last4: string | null;
  pix_txid: string | null;
  pix_qr_code: string | null;
  boleto_barcode: string | null;
  boleto_line: string | null;
  due_date: ColumnType<string | null, string | null | undefined, string | null>;
  /** A PIX with a due date: its late-payment terms (payments/late-payment.ts), or null. */
  late_payment: ColumnType<LatePayment | null, string | null | undefined, string | null>;
  expires_at: NullableTimestamp;
  payment_link_id: string | null;
  coupon_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The affiliate link a checkout attributed the sale to. */
  affiliate_link_id: ColumnType<string | null, string | null | undefined, string | null>;
  discount_cents: Generated<number>;
  /** Delivery address given at a checkout that requires one. */
  address: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  metadata: Json<Record<string, unknown>>;
  tracking_params: Json<Record<string, string>>;
  postback_url: string | null;
  /** The subscription and cycle this payment bills (modules/subscriptions), or null. */
  subscription_id: ColumnType<string | null, string | null | undefined, string | null>;
  subscription_cycle_id: ColumnType<string | null, string | null | undefined, string | null>;
  provider: string;
  /** The provider's own reference of the payment (a card charge id), once it gave one. */
  provider_ref: ColumnType<string | null, string | null | undefined, string | null>;
  failure_reason: string | null;
  authorized_at: NullableTimestamp;
  captured_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  paid_at: NullableTimestamp;
  failed_at: NullableTimestamp;
  expired_at: NullableTimestamp;
  refunded_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type RefundStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/**
 * Daily sales totals per merchant, environment, São Paulo day and method ('REFUND' for refunds),
 * spread over slots; written only by the database's triggers (migration 018), read by the reports.
 */
export interface ReportDaysTable {
  user_id: string;
  livemode: boolean;
  day: string;
  method: PaymentMethod | 'REFUND';
  slot: number;
  paid_count: number;
  gross_cents: number;
  fee_cents: number;
  created_count: number;
  created_paid: number;
  card_attempted: number;
  card_approved: number;
  refund_count: number;
  refunded_cents: number;
}

/** A refund sent (or to be sent) to the payment's provider; the money moved when it was created. */
export interface RefundsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  transaction_id: string;
  amount_cents: number;
  /** The part of the payment's fee this refund returned to the merchant. */
  fee_returned_cents: number;
  status: RefundStatus;
  provider: string;
  provider_ref: string | null;
  failure_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type Refund = Selectable<RefundsTable>;

/** The sandbox connector's answers by our reference (charge:, refund:, payout:), as a provider's own books. */
export interface SandboxOperationsTable {
  reference: string;
  outcome: unknown;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

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

export interface EventsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  user_id: string;
  livemode: boolean;
  key: string;
  fingerprint: string;
  response_status: number | null;
  response_body: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export type Transaction = Selectable<TransactionsTable>;
export type Receivable = Selectable<ReceivablesTable>;

export interface WebhookSubscriptionsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  url: string;
  events: Json<string[]>;
  description: string | null;
  secret: string;
  status: Generated<'ACTIVE' | 'DISABLED'>;
  disabled_reason: string | null;
  failing_since: NullableTimestamp;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface WebhookDeliveriesTable {
  id: string;
  user_id: string;
  livemode: boolean;
  event_id: string;
  event_type: string;
  /** null for a postback (delivery to a transaction's postbackUrl). */
  subscription_id: string | null;
  url: string;
  /** The envelope as built at enqueue time; each attempt re-stamps `timestamp` and signs the result. */
  body: string;
  status: DeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  first_attempt_at: NullableTimestamp;
  locked_until: NullableTimestamp;
  last_status: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  user_id: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_retry_at: NullableTimestamp;
  created_at: Timestamp;
}

export type WebhookSubscription = Selectable<WebhookSubscriptionsTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
export type WebhookAttempt = Selectable<WebhookAttemptsTable>;

// Checkout (payment links, coupons, cart abandonment): see src/modules/checkout.
export interface PaymentLinkSettings {
  pixEnabled: boolean;
  boletoEnabled: boolean;
  creditCardEnabled: boolean;
  maxInstallments: number;
  interestFreeInstallments: number;
  /** Monthly percent (2.99 = 2.99% a month), Price table beyond interestFreeInstallments. */
  interestRate: number;
  requirePhone: boolean;
  requireAddress: boolean;
}

export interface PaymentLinksTable {
  id: string;
  user_id: string;
  livemode: boolean;
  slug: string;
  title: string;
  description: string | null;
  product_description: string | null;
  amount_cents: number | null;
  currency: Generated<string>;
  status: Generated<'ACTIVE' | 'INACTIVE'>;
  expires_at: NullableTimestamp;
  redirect_url: string | null;
  settings: Json<PaymentLinkSettings>;
  stock_enabled: Generated<boolean>;
  stock_quantity: number | null;
  meta_pixel_code: string | null;
  sales_count: Generated<number>;
  times_used: Generated<number>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PaymentLinkProductsTable {
  user_id: string;
  link_id: string;
  product_id: string;
  position: number;
  /** Snapshot of the product's name and price when the link was saved. */
  name: string;
  quantity: number;
  unit_price_cents: number;
}

export interface CouponsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  code: string;
  code_lower: string;
  discount_type: 'PERCENTAGE' | 'FIXED';
  discount_value: number;
  description: string | null;
  min_purchase_cents: number | null;
  max_discount_cents: number | null;
  usage_limit: number | null;
  per_user_limit: number | null;
  valid_from: NullableTimestamp;
  valid_until: NullableTimestamp;
  product_ids: Json<string[]>;
  /** How many charges of a subscription the coupon discounts (null: the first only). */
  subscription_cycles: ColumnType<number | null, number | null | undefined, number | null>;
  /** An affiliate coupon: the affiliate link (of one of the merchant's programs) its sales are attributed to, and its code. */
  affiliate_link_id: ColumnType<string | null, string | null | undefined, string | null>;
  affiliate_code: ColumnType<string | null, string | null | undefined, string | null>;
  status: Generated<'ACTIVE' | 'INACTIVE'>;
  used_count: Generated<number>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type RedemptionStatus = 'RESERVED' | 'USED' | 'RELEASED';

export interface CouponRedemptionsTable {
  id: string;
  user_id: string;
  coupon_id: string;
  /** Null only while a reservation's transaction is being created. */
  transaction_id: string | null;
  /** The subscription holding the use until its first charge is paid (then also transaction_id), or null. */
  subscription_id: ColumnType<string | null, string | null | undefined, string | null>;
  status: ColumnType<RedemptionStatus, RedemptionStatus | undefined, RedemptionStatus>;
  document: string;
  email: string;
  created_at: Timestamp;
}

export interface CartAbandonmentsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  link_id: string;
  client_email: string;
  client_name: string | null;
  client_document: string | null;
  client_phone: string | null;
  recovered_at: NullableTimestamp;
  transaction_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type PaymentLink = Selectable<PaymentLinksTable>;
export type PaymentLinkProduct = Selectable<PaymentLinkProductsTable>;
export type Coupon = Selectable<CouponsTable>;
export type CartAbandonment = Selectable<CartAbandonmentsTable>;

// Wallet (withdrawals, advances, KYC): see src/modules/{withdrawals,advances,kyc}.
export type WithdrawalStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
export type PixKeyType = 'cpf' | 'cnpj' | 'email' | 'phone' | 'random';

export interface WithdrawalsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  amount_cents: number;
  fee_cents: number;
  net_amount_cents: number;
  status: WithdrawalStatus;
  pix_key_type: PixKeyType;
  pix_key: string;
  description: string | null;
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

export type EmailStatus = 'QUEUED' | 'SENT' | 'STORED' | 'FAILED';

/** The outbox of outgoing e-mail (src/mail/outbox.ts). */
export interface EmailsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  template: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  status: EmailStatus;
  attempts: Generated<number>;
  /** When the sweep may (re)try a QUEUED message; a claimed one is pushed ahead by the lease. */
  next_attempt_at: NullableTimestamp;
  last_error: string | null;
  /** The SMTP server's Message-ID once sent. */
  message_id: string | null;
  /** What the message is about (a subscription), for listing. */
  related_id: string | null;
  sent_at: NullableTimestamp;
  created_at: Timestamp;
}
export type Email = Selectable<EmailsTable>;

export type PlanInterval = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';
export type DunningFinalAction = 'CANCEL' | 'PAUSE' | 'PAST_DUE';
export interface DunningPolicy {
  /** Card retries, in days after the first failure (default 1, 3, 5, 7). */
  retryDays: number[];
  finalAction: DunningFinalAction;
  /** PIX and boleto charges are issued this many days before the due date. */
  pixDaysBefore: number;
  boletoDaysBefore: number;
  /** Pix Automático charges (cobr) are sent this many days before the due date (2 to 10; absent on older plans: 3). */
  pixAutomaticoDaysBefore?: number;
}

/** How a subscription is paid: a transaction's methods, or Pix Automático (its cycles are PIX transactions). */
export type SubscriptionMethod = PaymentMethod | 'PIX_AUTOMATICO';
/** A Pix Automático authorisation's state at the PSP (API Pix RecStatus). */
export type MandateStatus = 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';

export interface SubscriptionPlansTable {
  id: string;
  user_id: string;
  livemode: boolean;
  name: string;
  description: string | null;
  amount_cents: number;
  interval: PlanInterval;
  interval_count: number;
  trial_days: number;
  max_subscribers: number | null;
  /** Seats taken: subscriptions not CANCELLED or EXPIRED (the race-safe maxSubscribers counter). */
  subscriber_count: Generated<number>;
  payment_methods: Json<SubscriptionMethod[]>;
  dunning: Json<DunningPolicy>;
  status: 'ACTIVE' | 'INACTIVE';
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The product the plan sells (its affiliate program covers the plan's subscriptions); null = none. */
  product_id: ColumnType<string | null, string | null | undefined, string | null>;
}
export type SubscriptionPlan = Selectable<SubscriptionPlansTable>;

export type SubscriptionStatus = 'TRIALING' | 'INCOMPLETE' | 'ACTIVE' | 'PAST_DUE' | 'PAUSED' | 'CANCELLED' | 'EXPIRED';

export interface SubscriptionsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  plan_id: string;
  client_id: string;
  client_name: string;
  client_email: string;
  client_document: string;
  client_phone: string | null;
  status: SubscriptionStatus;
  payment_method: SubscriptionMethod;
  /** PIX_AUTOMATICO: the payer's authorisation at the PSP (idRec) and its last known state. */
  pix_rec_id: Generated<string | null>;
  pix_rec_status: Generated<MandateStatus | null>;
  /** The provider's card token: the PAN and CVV are never stored. */
  card_token: string | null;
  card_brand: string | null;
  card_last4: string | null;
  card_exp_month: number | null;
  card_exp_year: number | null;
  /** The instant periods are counted from (calendar.ts): the first paid period's start. */
  anchor_at: Timestamp;
  /** The current period's index from the anchor (-1 during a trial); period k is billed by cycle k + 1. */
  period_index: Generated<number>;
  current_period_start: Timestamp;
  current_period_end: Timestamp;
  trial_end: NullableTimestamp;
  trial_will_end_sent: Generated<boolean>;
  cancel_at_period_end: Generated<boolean>;
  cancel_reason: string | null;
  cancelled_at: NullableTimestamp;
  paused_at: NullableTimestamp;
  resumes_at: NullableTimestamp;
  ended_at: NullableTimestamp;
  coupon_id: string | null;
  pending_plan_id: string | null;
  metadata: ColumnType<Record<string, unknown>, string | undefined, string>;
  next_action_at: NullableTimestamp;
  /** When it first held a place (its trial's start, or its first paid charge); null: never (metrics). */
  activated_at: NullableTimestamp;
  /** The price of its latest period cycle, and an instant from which every period running was billed at it (metrics). */
  price_cents: number | null;
  price_since: NullableTimestamp;
  /**
   * How far this subscription's clock runs ahead of the wall clock (development simulations,
   * POST .../simulate): its steps run at now + offset; next_action_at is kept in wall-clock time.
   */
  clock_offset_ms: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The affiliate link the subscription's checkout was attributed to: each of its charges carries it. */
  affiliate_link_id: ColumnType<string | null, string | null | undefined, string | null>;
}
export type Subscription = Selectable<SubscriptionsTable>;

export type CycleStatus = 'OPEN' | 'PAID' | 'PAST_DUE' | 'VOID' | 'UNCOLLECTIBLE';

export interface SubscriptionCyclesTable {
  id: string;
  subscription_id: string;
  user_id: string;
  livemode: boolean;
  number: number;
  kind: 'PERIOD' | 'PRORATION';
  period_start: Timestamp;
  period_end: Timestamp;
  due_at: Timestamp;
  amount_cents: number;
  discount_cents: Generated<number>;
  status: CycleStatus;
  attempts: Generated<number>;
  next_retry_at: NullableTimestamp;
  transaction_id: string | null;
  failure_reason: string | null;
  hard_declined: Generated<boolean>;
  /** When the cycle first failed (card declined, PIX/boleto unpaid): retries count from here. */
  first_failed_at: NullableTimestamp;
  /** When the last charge of this cycle was issued (the sweep's clock, so simulated time counts). */
  last_attempt_at: NullableTimestamp;
  paid_at: NullableTimestamp;
  /** When it was withdrawn (VOID: the subscription paused or ended). */
  voided_at: NullableTimestamp;
  /** The attempt in flight: the transaction id it pays with (the provider's idempotency key), chosen when it was counted. */
  charge_tx_id: string | null;
  /** Until when the worker that counted the attempt issues it; after it the sweep finishes the attempt (migration 020). */
  charge_until: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type SubscriptionCycle = Selectable<SubscriptionCyclesTable>;

/** One pause of a subscription, [started_at, ended_at): the metrics' pause history. */
export interface SubscriptionPausesTable {
  id: string;
  subscription_id: string;
  user_id: string;
  livemode: boolean;
  started_at: Timestamp;
  /** Resumed, or ended while paused; null while it lasts. */
  ended_at: NullableTimestamp;
  /** PAYMENT_FAILED when the dunning's final action paused it; null when the merchant or subscriber did. */
  reason: string | null;
}
