// Subscriptions: plans, subscriptions, their cycles and pauses.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';
import type { PaymentMethod } from './transactions.ts';
import type { SplitColumn, SplitRule } from './splits.ts';

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
  /** Every renewal's split rule (modules/splits), or null. */
  split: SplitColumn<SplitRule>;
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
  /** The offset a simulation is moving the clock to, and the Idempotency-Key of the request that set it (a retry resumes). */
  clock_target_ms: ColumnType<number | null, number | null | undefined, number | null>;
  clock_target_key: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The affiliate link the subscription's checkout was attributed to: each of its charges carries it. */
  affiliate_link_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** BOLETO: the payer's address (transactions.address's shape), copied to each cycle's boleto; a bank that registers boletos needs it (migration 041). */
  client_address: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
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
