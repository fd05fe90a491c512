import type { HttpApp } from '../../http/app-type.ts';
import type { Webhooks } from './service.ts';
import { actorOf } from '../audit/service.ts';
import { EVENT_TYPES } from '../events/service.ts';
import { errors, IdParams, Message } from '../../http/schemas.ts';
import {
  AllDeliveriesQuery,
  AttemptOutcome,
  CreateSubscriptionBody,
  DeliveryListResponse,
  DeliveryResponse,
  EVENT_DESCRIPTIONS,
  EventTypesResponse,
  ListDeliveriesQuery,
  ListSubscriptionsQuery,
  PostbackSecretResponse,
  SubscriptionListResponse,
  SubscriptionResponse,
  SubscriptionSecretResponse,
  UpdateSubscriptionBody,
} from './schemas.ts';
import {
  createSubscription,
  deleteSubscription,
  getDelivery,
  getPostbackSecret,
  getSubscription,
  listDeliveries,
  listSubscriptions,
  retryDelivery,
  rotatePostbackSecret,
  rotateSecret,
  sendTestEvent,
  subscriptionView,
  updateSubscription,
} from './service.ts';

/** The options of webhookRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface WebhookRouteDeps {
  webhooks: Webhooks;
}

export default async function webhookRoutes(app: HttpApp, deps: WebhookRouteDeps) {
  const wh = deps.webhooks;
  const tags = ['Webhooks'];
  const read = { auth: { key: 'webhooks:read' as const } };
  const write = { auth: { key: 'webhooks:write' as const } };
  // Responses carrying a secret are never stored for Idempotency-Key replays (see http/idempotency.ts).
  const writeSecret = { ...write, idempotency: 'off' as const };
  const withSecret = (s: Parameters<typeof subscriptionView>[0]) => ({ ...subscriptionView(s), secret: s.secret });

  app.post(
    '/api/v1/webhooks/subscriptions',
    {
      // Also from the dashboard, where a production endpoint needs the second factor: it would receive every sale.
      config: { auth: { key: 'webhooks:write', token: true }, idempotency: 'off', secondFactor: 'production' },
      schema: {
        tags,
        operationId: 'createWebhookSubscription',
        summary: 'Subscribe an HTTPS endpoint to event types',
        description:
          'The URL must be HTTPS and resolve to a public address. The response carries `secret` (signs every delivery: X-Webhook-Signature); it is shown only here and on rotation.',
        body: CreateSubscriptionBody,
        response: { 201: SubscriptionSecretResponse, ...errors(400, 401, 403, 409) },
      },
    },
    async (req, reply) => {
      const sub = await createSubscription(wh, req.auth, req.body, actorOf(req));
      return reply.code(201).send({ message: 'Webhook subscription created', subscription: withSecret(sub) });
    },
  );

  app.get(
    '/api/v1/webhooks/subscriptions',
    {
      config: read,
      schema: { tags, operationId: 'listWebhookSubscriptions', summary: 'List webhook subscriptions (newest first)', querystring: ListSubscriptionsQuery, response: { 200: SubscriptionListResponse, ...errors(400, 401, 403) } },
    },
    async (req) => {
      const { rows, pagination } = await listSubscriptions(wh, req.auth, req.query);
      return { message: 'OK', subscriptions: rows.map(subscriptionView), pagination };
    },
  );

  app.get(
    '/api/v1/webhooks/subscriptions/:id',
    { config: read, schema: { tags, operationId: 'getWebhookSubscription', summary: 'Get a webhook subscription (without its secret)', params: IdParams, response: { 200: SubscriptionResponse, ...errors(401, 403, 404) } } },
    async (req) => ({ message: 'OK', subscription: subscriptionView(await getSubscription(wh.db, req.auth, req.params.id)) }),
  );

  app.patch(
    '/api/v1/webhooks/subscriptions/:id',
    {
      config: write,
      schema: {
        tags,
        operationId: 'updateWebhookSubscription',
        summary: 'Update url, events, description or status',
        description: 'status ACTIVE re-enables a disabled subscription (and clears its failure record); DISABLED stops deliveries until re-enabled.',
        params: IdParams,
        body: UpdateSubscriptionBody,
        response: { 200: SubscriptionResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ message: 'Webhook subscription updated', subscription: subscriptionView(await updateSubscription(wh, req.auth, req.params.id, req.body, actorOf(req))) }),
  );

  app.delete(
    '/api/v1/webhooks/subscriptions/:id',
    {
      config: write,
      schema: { tags, operationId: 'deleteWebhookSubscription', summary: 'Delete a webhook subscription', description: 'Pending deliveries to it are dropped unsent.', params: IdParams, response: { 200: Message, ...errors(401, 403, 404) } },
    },
    async (req) => {
      await deleteSubscription(wh, req.auth, req.params.id, actorOf(req));
      return { message: 'Webhook subscription deleted' };
    },
  );

  app.post(
    '/api/v1/webhooks/subscriptions/:id/rotate-secret',
    {
      config: writeSecret,
      schema: {
        tags,
        operationId: 'rotateWebhookSubscriptionSecret',
        summary: 'Replace the signing secret',
        description: 'The new secret is returned once and signs every attempt from now on, including retries of earlier events.',
        params: IdParams,
        response: { 200: SubscriptionSecretResponse, ...errors(401, 403, 404, 409) },
      },
    },
    async (req) => ({ message: 'Webhook secret rotated', subscription: withSecret(await rotateSecret(wh, req.auth, req.params.id, actorOf(req))) }),
  );

  app.post(
    '/api/v1/webhooks/subscriptions/:id/test',
    {
      config: write,
      schema: {
        tags,
        operationId: 'testWebhookSubscription',
        summary: 'Send a signed test event now',
        description: 'Sends a `webhook.test` event to the subscription (also when disabled) and answers with the outcome of that one attempt. Test events are not retried.',
        params: IdParams,
        response: { 200: AttemptOutcome, ...errors(401, 403, 404, 409) },
      },
    },
    async (req) => {
      const out = await sendTestEvent(wh, req.auth, req.params.id);
      return { message: out.success ? 'Test event delivered' : 'Test event was not accepted by the endpoint', ...out };
    },
  );

  app.get(
    '/api/v1/webhooks/subscriptions/:id/deliveries',
    {
      config: read,
      schema: {
        tags,
        operationId: 'listWebhookSubscriptionDeliveries',
        summary: 'Delivery log of a subscription, with every attempt',
        params: IdParams,
        querystring: ListDeliveriesQuery,
        response: { 200: DeliveryListResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      await getSubscription(wh.db, req.auth, req.params.id);
      return { message: 'OK', ...(await listDeliveries(wh, req.auth, { ...req.query, subscriptionId: req.params.id })) };
    },
  );

  app.get(
    '/api/v1/webhooks/deliveries',
    {
      config: read,
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'All deliveries (subscriptions and postbacks), with every attempt',
        description: '`transactionId` narrows the log to the deliveries of one sale (what its page shows beside its timeline).',
        querystring: AllDeliveriesQuery,
        response: { 200: DeliveryListResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      if (req.query.subscriptionId) await getSubscription(wh.db, req.auth, req.query.subscriptionId, { archived: true });
      return { message: 'OK', ...(await listDeliveries(wh, req.auth, req.query)) };
    },
  );

  app.get(
    '/api/v1/webhooks/deliveries/:id',
    { config: read, schema: { tags, operationId: 'getWebhookDelivery', summary: 'One delivery with its payload and attempts', params: IdParams, response: { 200: DeliveryResponse, ...errors(401, 403, 404) } } },
    async (req) => ({ message: 'OK', delivery: await getDelivery(wh, req.auth, req.params.id) }),
  );

  app.post(
    '/api/v1/webhooks/deliveries/:id/retry',
    {
      config: write,
      schema: {
        tags,
        operationId: 'retryWebhookDelivery',
        summary: 'Redeliver now',
        description:
          'Makes one attempt now and answers with its outcome. On a pending delivery it counts as its next scheduled attempt; on a finished one it is an extra try (success marks it SUCCEEDED). 409 while a worker is attempting it.',
        params: IdParams,
        response: { 200: AttemptOutcome, ...errors(401, 403, 404, 409) },
      },
    },
    async (req) => {
      const out = await retryDelivery(wh, req.auth, req.params.id);
      return { message: out.success ? 'Delivered' : 'The endpoint did not accept the delivery', ...out };
    },
  );

  app.get(
    '/api/v1/webhooks/events',
    {
      config: read,
      schema: {
        tags,
        operationId: 'listWebhookEventTypes',
        summary: 'The event types a subscription can list',
        description: 'What `events` accepts on a subscription, with what each means (docs/webhooks.md).',
        response: { 200: EventTypesResponse, ...errors(401, 403) },
      },
    },
    async () => ({ message: 'OK', events: EVENT_TYPES.map((type) => ({ type, description: EVENT_DESCRIPTIONS[type] })) }),
  );

  app.get(
    '/api/v1/webhooks/postback-secret',
    {
      // The secret lets its holder forge signed postbacks: reading it takes the write permission.
      config: write,
      schema: {
        tags,
        operationId: 'getPostbackSecret',
        summary: 'The secret that signs postbacks',
        description: 'Deliveries to a transaction\'s postbackUrl carry X-Webhook-Signature keyed with this per-merchant secret (one for both environments). Needs webhooks:write: whoever holds the secret can sign postbacks.',
        response: { 200: PostbackSecretResponse, ...errors(401, 403) },
      },
    },
    async (req) => ({ message: 'OK', secret: await getPostbackSecret(wh.db, req.auth) }),
  );

  app.post(
    '/api/v1/webhooks/postback-secret/rotate',
    {
      config: writeSecret,
      schema: { tags, operationId: 'rotatePostbackSecret', summary: 'Replace the postback secret', description: 'Effective at once for every later attempt.', response: { 200: PostbackSecretResponse, ...errors(401, 403, 409) } },
    },
    async (req) => ({ message: 'Postback secret rotated', secret: await rotatePostbackSecret(wh.db, req.auth, actorOf(req)) }),
  );
}
