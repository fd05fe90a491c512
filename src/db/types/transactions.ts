// Payments: transactions, their refunds, and the daily report totals the database's triggers keep.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';
import type { SplitColumn, TransactionSplitRule } from './splits.ts';

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

export type TransactionStatus = 'PENDING' | 'AUTHORIZED' | 'PAID' | 'FAILED' | 'EXPIRED' | 'CANCELLED' | 'REFUNDED' | 'PARTIALLY_REFUNDED' | 'CHARGEBACK';
export type PaymentMethod = 'PIX' | 'CARD' | 'BOLETO';

/** One line of a hosted checkout's order; the lines' (unitPriceCents x quantity - discountCents) add up to amount_cents. */
export interface TransactionItem {
  kind: 'MAIN' | 'BUMP';
  productId: string | null;
  name: string;
  quantity: number;
  unitPriceCents: number;
  /** The bump's own discount and the coupon's share on this line. */
  discountCents: number;
}

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
  /** The bank's id of an issued (or issuing) boleto, e.g. Inter's codigoSolicitacao; the sandbox's is null. */
  boleto_ref: ColumnType<string | null, string | null | undefined, string | null>;
  /** A hybrid boleto's Pix code (copia e cola), once issued. */
  boleto_pix: ColumnType<string | null, string | null | undefined, string | null>;
  /** A paid boleto: whether the payer paid its barcode (BOLETO) or its Pix QR (PIX). */
  paid_with: ColumnType<'BOLETO' | 'PIX' | null, 'BOLETO' | 'PIX' | null | undefined, 'BOLETO' | 'PIX' | null>;
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
  /** What a hosted checkout sold (main product and ticked order bumps); null for other payments. */
  items: ColumnType<TransactionItem[] | null, string | null | undefined, string | null>;
  /** The split rule the sale was created with (recipients resolved); null: no split. */
  split: SplitColumn<TransactionSplitRule>;
  /** The payment an accepted upsell or downsell follows. */
  parent_transaction_id: ColumnType<string | null, string | null | undefined, string | null>;
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

export type Transaction = Selectable<TransactionsTable>;

export type RefundStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/**
 * Daily sales totals per merchant, environment, São Paulo day and method ('REFUND' for refunds),
 * spread over slots; written only by the database's triggers (migration 018), read by the reports.
 */
export interface ReportDaysTable {
  user_id: string;
  livemode: boolean;
  day: string;
  method: PaymentMethod | 'REFUND' | 'CHARGEBACK';
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
  chargeback_count: number;
  chargeback_cents: number;
  chargeback_won_count: number;
  chargeback_won_cents: number;
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
  /** A refund sent as a Pix to the payer (a boleto's): the payer's key, and the payout connector that sends it. */
  pix_key_type: ColumnType<string | null, string | null | undefined, string | null>;
  pix_key: ColumnType<string | null, string | null | undefined, string | null>;
  payout_provider: ColumnType<string | null, string | null | undefined, string | null>;
  /** The order lines (positions in the transaction's items) a refund named. */
  items: ColumnType<number[] | null, string | null | undefined, string | null>;
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

export type ChargebackStatus = 'OPEN' | 'CONTESTED' | 'WON' | 'LOST';

/**
 * A chargeback case an acquirer reported on a card payment (modules/transactions/chargeback.ts).
 * OPEN: debited, awaiting the merchant's answer; CONTESTED: evidence sent, awaiting the acquirer;
 * WON (money back) and LOST are final. Evidence files went to the acquirer: only names and types here.
 */
export interface ChargebacksTable {
  id: string;
  user_id: string;
  livemode: boolean;
  transaction_id: string;
  /** The connector that reported it, and its own case id (unique together: a report repeated changes nothing). */
  provider: string;
  case_id: string;
  status: ChargebackStatus;
  /** What the merchant answered (ACCEPTED makes it LOST at once), or null before it did. */
  response: 'ACCEPTED' | 'CONTESTED' | null;
  amount_cents: number;
  /** The part of the payment's fee returned with the debit (as a refund returns it); charged again if won. */
  fee_returned_cents: number;
  reason_code: string | null;
  reason: string | null;
  evidence_text: string | null;
  evidence_files: ColumnType<{ name: string; contentType: string; bytes: number }[] | null, string | null | undefined, string | null>;
  respond_by: NullableTimestamp;
  opened_at: Timestamp;
  responded_at: NullableTimestamp;
  closed_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type Chargeback = Selectable<ChargebacksTable>;

/** How one try of a card charge at a connector ended (PENDING: asked, no answer recorded yet). */
export type CardAttemptOutcome = 'PENDING' | 'APPROVED' | 'DECLINED' | 'UNAVAILABLE' | 'SKIPPED';

/** One try of a production card charge at one connector of the failover chain (modules/transactions/failover.ts). */
export interface CardAttemptsTable {
  id: string;
  transaction_id: string;
  connector: string;
  outcome: CardAttemptOutcome;
  /** The connector's own code (e.g. e.Rede's returnCode), when it answered one. */
  return_code: string | null;
  /** Why: a decline reason, "circuit open", or what the call failed with (never card data). */
  reason: string | null;
  latency_ms: number | null;
  /** When an UNAVAILABLE try was asked again for a late sale (late-sales.ts); null: not yet. */
  checked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}
export type CardAttempt = Selectable<CardAttemptsTable>;

/** The boleto issuing sweep's claims (payments/boleto-issuing.ts). */
export interface BoletoIssuingTable {
  transaction_id: string;
  lease_until: ColumnType<Date, Date | string, Date | string>;
  tries: Generated<number>;
  last_error: string | null;
}

/** An upsell or downsell offered after one payment (modules/checkout/upsell.ts). */
export interface UpsellOffersTable {
  id: string;
  parent_transaction_id: string;
  user_id: string;
  livemode: boolean;
  kind: 'UPSELL' | 'DOWNSELL';
  product_id: string;
  title: string;
  description: string | null;
  price_cents: number;
  list_price_cents: number;
  status: Generated<'OPEN' | 'ACCEPTED' | 'DECLINED'>;
  expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  card_token: ColumnType<string | null, string | null | undefined, string | null>;
  card_brand: ColumnType<string | null, string | null | undefined, string | null>;
  card_last4: ColumnType<string | null, string | null | undefined, string | null>;
  card_connector: ColumnType<string | null, string | null | undefined, string | null>;
  transaction_id: ColumnType<string | null, string | null | undefined, string | null>;
  decided_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Date;
}
export type UpsellOffer = Selectable<UpsellOffersTable>;
