// Recorded events and their webhook subscriptions, deliveries and attempts.
import type { Generated, Selectable } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';

export interface EventsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

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
