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
  created_at: Timestamp;
  updated_at: Timestamp;
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
}

export type User = Selectable<UsersTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type Product = Selectable<ProductsTable>;
export type NewProduct = Insertable<ProductsTable>;
export type ProductUpdate = Updateable<ProductsTable>;
export type Client = Selectable<ClientsTable>;

export type TransactionStatus = 'PENDING' | 'PAID' | 'FAILED' | 'EXPIRED' | 'CANCELLED' | 'REFUNDED' | 'PARTIALLY_REFUNDED';
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
  expires_at: NullableTimestamp;
  payment_link_id: string | null;
  metadata: Json<Record<string, unknown>>;
  tracking_params: Json<Record<string, string>>;
  postback_url: string | null;
  provider: string;
  failure_reason: string | null;
  paid_at: NullableTimestamp;
  failed_at: NullableTimestamp;
  expired_at: NullableTimestamp;
  refunded_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type AccountKind = 'available' | 'receivable' | 'reserved' | 'fees' | 'external';

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
