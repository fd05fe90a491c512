import { Type } from '@sinclair/typebox';
import { CursorPagination, CursorQuery, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { EVENT_TYPES, type EventType } from '../events/service.ts';

/** Type of the test event sent by POST /api/v1/webhooks/subscriptions/{id}/test. */
export const TEST_EVENT_TYPE = 'webhook.test';

// One enum (not a union of literals) so that an unknown type is one clear error on its index.
export const EventTypeField = Type.Unsafe<EventType>({ type: 'string', enum: [...EVENT_TYPES], description: 'An event type (see docs/webhooks.md)' });

/** What each event type means (the spec's table), for GET /api/v1/webhooks/events. */
export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  'transaction.created': 'A transaction is created (status PENDING)',
  'transaction.updated': 'A transaction status changes',
  'transaction.completed': 'Payment confirmed and balance credited (PAID)',
  'transaction.failed': 'Payment failed (FAILED)',
  'transaction.refunded': 'A refund is made (the money taken from the balance; see refunds[] for its outcome at the provider)',
  'transaction.refund_failed': 'The provider did not make a refund (a production PIX devolução NAO_REALIZADO): the refund is undone, its money back in the available balance; refund again to retry',
  'transaction.authorized': 'A card is authorised without capture (AUTHORIZED; nothing credited yet)',
  'transaction.captured': 'An authorisation is captured (PAID)',
  'transaction.cancelled': 'An authorisation is voided or a pending payment cancelled (CANCELLED)',
  'transaction.chargeback': 'The acquirer opened a chargeback on a card payment (CHARGEBACK): the disputed amount debited from the balance (it may go negative); answer with POST /api/v1/transactions/{id}/dispute',
  'transaction.chargeback_won': 'A chargeback was decided for the merchant: the money is back in the available balance, the transaction PAID again',
  'transaction.chargeback_lost': 'A chargeback was decided against the merchant, or accepted by it (final; the transaction stays CHARGEBACK)',
  'transaction.split_received': "Another merchant's sale paid you a share (a split): the share, the sale and its seller (to the recipient)",
  'transaction.split_reversed': "A refund or chargeback of that sale took back part or all of your share (to the recipient; your balance may go negative)",
  'payment_link.created': 'A payment link is created',
  'payment_link.updated': 'A payment link is updated',
  'balance.updated': 'The wallet balance changes',
  'subscription.cancelled': 'A subscription is cancelled',
  'subscription.cancel_scheduled': 'A subscription is set to cancel at the end of its current period (cancelAtPeriodEnd); subscription.cancelled follows then',
  'subscription.expired': 'A subscription ends before it was paid for (its first charge unpaid or not issued, its Pix Automático authorisation refused)',
  'kyc.submitted': 'KYC submitted for review',
  'kyc.approved': 'KYC approved',
  'kyc.rejected': 'KYC rejected',
  'advance.created': 'An advance is requested',
  'advance.approved': 'An advance is approved (and credited)',
  'advance.rejected': 'An advance is rejected',
  'withdrawal.requested': 'A withdrawal is requested',
  'withdrawal.completed': 'A withdrawal reached its PIX key',
  'withdrawal.failed': 'A withdrawal failed (funds returned)',
  'affiliate.joined': 'An affiliate joined a program (to the program owner and the affiliate)',
  'affiliate.approved': 'An affiliate was approved in a program',
  'commission.created': 'A commission was split off a sale (PENDING until released)',
  'commission.paid': 'A commission was released to the affiliate (available)',
  'commission.cancelled': 'A commission was cancelled (a refund before release, or a self-purchase)',
  'plan.created': 'A subscription plan is created',
  'plan.updated': 'A subscription plan is changed or deactivated',
  'subscription.created': 'A customer subscribed',
  'subscription.trial_will_end': 'A trial ends in 3 days',
  'subscription.mandate_updated': "A Pix Automático subscription's authorisation changed state at the payer's bank (approved, rejected, expired, cancelled)",
  'subscription.renewed': 'A subscription period was paid (renewed)',
  'subscription.past_due': 'A subscription charge failed or went unpaid (PAST_DUE)',
  'subscription.paused': 'A subscription is paused',
  'subscription.resumed': 'A subscription is resumed',
};

export const EventTypesResponse = Type.Object({
  message: Type.String(),
  events: Type.Array(Type.Object({ type: EventTypeField, description: Type.String() })),
});

/** At most this many subscriptions per merchant and environment. */
export const MAX_SUBSCRIPTIONS = 20;

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'HTTPS endpoint (http, private, loopback and metadata addresses are refused unless the gateway runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true, for local development)' });
const Events = Type.Array(EventTypeField, { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true, description: 'Event types to receive (at least one)' });
const Description = Type.String({ maxLength: 500 });
const SubscriptionStatus = Type.Union([Type.Literal('ACTIVE'), Type.Literal('DISABLED')]);

export const CreateSubscriptionBody = Type.Object(
  {
    url: Url,
    events: Events,
    description: Type.Optional(Description),
    status: Type.Optional({ ...SubscriptionStatus, description: 'DISABLED creates it without sending anything until re-enabled (default ACTIVE)' }),
  },
  { additionalProperties: false, description: 'Origin clients may send isActive (true = ACTIVE, false = DISABLED) instead of status.' },
);

export const UpdateSubscriptionBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Nullable(Description)),
    status: Type.Optional(SubscriptionStatus),
  },
  { additionalProperties: false, minProperties: 1, description: 'Origin clients may send isActive (true = ACTIVE, false = DISABLED) instead of status.' },
);

export const SubscriptionView = Type.Object({
  id: Uuid,
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  status: SubscriptionStatus,
  disabledReason: Nullable(Type.String({ description: 'Why the subscription was disabled (410 Gone, failing for days, or by request)' })),
  failingSince: Nullable(Timestamp),
  isActive: Type.Boolean({ description: 'status is ACTIVE (the origin\'s name for it)' }),
  livemode: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const SubscriptionWithSecret = Type.Composite([
  SubscriptionView,
  Type.Object({ secret: Type.String({ description: 'Signing secret. Shown only now (creation and rotation): store it.' }) }),
]);

export const SubscriptionResponse = Type.Object({ message: Type.String(), subscription: SubscriptionView });
export const SubscriptionSecretResponse = Type.Object({ message: Type.String(), subscription: SubscriptionWithSecret });
export const SubscriptionListResponse = Type.Object({ message: Type.String(), subscriptions: Type.Array(SubscriptionView), pagination: CursorPagination });

export const ListSubscriptionsQuery = Type.Object(CursorQuery, { additionalProperties: false });

const DeliveryStatus = Type.Union([Type.Literal('PENDING'), Type.Literal('SUCCEEDED'), Type.Literal('FAILED')]);

export const AttemptView = Type.Object({
  attempt: Type.Integer({ description: 'Attempt number within the delivery, from 1' }),
  statusCode: Nullable(Type.Integer({ description: 'HTTP status answered; null when no answer came' })),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
  nextRetryAt: Nullable(Timestamp),
  createdAt: Timestamp,
});

export const DeliveryView = Type.Object({
  id: Uuid,
  eventId: Uuid,
  eventType: Type.String(),
  subscriptionId: Nullable(Uuid),
  kind: Type.Union([Type.Literal('subscription'), Type.Literal('postback')]),
  url: Type.String(),
  status: DeliveryStatus,
  attemptCount: Type.Integer(),
  nextAttemptAt: Nullable(Timestamp),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  attempts: Type.Array(AttemptView),
});

export const DeliveryDetail = Type.Composite([DeliveryView, Type.Object({ payload: Type.Record(Type.String(), Type.Unknown(), { description: 'The envelope as built for the event (each attempt re-stamps timestamp)' }) })]);

export const DeliveryListResponse = Type.Object({ message: Type.String(), deliveries: Type.Array(DeliveryView), pagination: CursorPagination });
export const DeliveryResponse = Type.Object({ message: Type.String(), delivery: DeliveryDetail });

export const ListDeliveriesQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
    orderDirection: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
    status: Type.Optional(DeliveryStatus),
    eventType: Type.Optional(Type.Unsafe<EventType | typeof TEST_EVENT_TYPE>({ type: 'string', enum: [...EVENT_TYPES, TEST_EVENT_TYPE], description: 'Only the deliveries of this event type (an unknown type is a 400)' })),
    eventId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const AllDeliveriesQuery = Type.Composite([
  ListDeliveriesQuery,
  Type.Object({
    subscriptionId: Type.Optional({ ...Uuid, description: "Only the deliveries to this subscription (a deleted one's too); 404 when it is not yours" }),
    kind: Type.Optional(Type.Union([Type.Literal('subscription'), Type.Literal('postback')])),
    transactionId: Type.Optional({ ...Uuid, description: "Only the deliveries of this transaction's events (transaction.*); 404 when it is not yours" }),
  }),
], { additionalProperties: false });

export const AttemptOutcome = Type.Object({
  message: Type.String(),
  success: Type.Boolean({ description: 'The endpoint answered 2xx in time' }),
  attempt: AttemptView,
  delivery: DeliveryView,
});

export const PostbackSecretResponse = Type.Object({
  message: Type.String(),
  secret: Type.String({ description: 'Signs deliveries to transaction postbackUrl (X-Webhook-Signature), for both environments' }),
});
