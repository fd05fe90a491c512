// Webhook subscriptions (CRUD, secrets), the delivery log, manual redelivery and the test event.
import type { Static } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../../config.ts';
import { inTx, type Database, type Db, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { WebhookAttempt, WebhookDelivery, WebhookSubscription } from '../../db/types.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { createdAtPage, type Cursors } from '../../http/pagination.ts';
import { sanitizeOptional } from '../../http/sanitize.ts';
import { owned, ownedUpdate, type Scope } from '../../http/scope.ts';
import { assertCallableUrl } from '../../http/ssrf.ts';
import { recordAudit, type Actor } from '../audit/service.ts';
import { ATTEMPT_STARTED, attempt, claimOne, ensurePostbackSecret, type RecordedAttempt } from './deliveries.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { envelope } from './enqueue.ts';
import type { AllDeliveriesQuery, AttemptView, CreateSubscriptionBody, DeliveryView, ListSubscriptionsQuery, SubscriptionView, UpdateSubscriptionBody } from './schemas.ts';
import { MAX_SUBSCRIPTIONS, TEST_EVENT_TYPE } from './schemas.ts';
import { newSecret } from './secrets.ts';
import { WebhookSender } from './sender.ts';

/** The webhook machinery of one process: the sender (shared by API and dispatcher) and the dispatcher. */
export class Webhooks {
  readonly sender: WebhookSender;
  readonly dispatcher: WebhookDispatcher;
  readonly db: Db;
  readonly config: Config;
  readonly cursors: Cursors;
  constructor(opts: { db: Db; database?: Pick<Database, 'listen'>; config: Config; cursors: Cursors; log: FastifyBaseLogger }) {
    this.db = opts.db;
    this.config = opts.config;
    this.cursors = opts.cursors;
    this.sender = new WebhookSender(opts.config.webhooks);
    this.dispatcher = new WebhookDispatcher({ db: opts.db, database: opts.database, config: opts.config.webhooks, sender: this.sender, log: opts.log });
  }

  async close() {
    await this.dispatcher.stop();
    this.sender.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Views

export function subscriptionView(s: WebhookSubscription): Static<typeof SubscriptionView> {
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    description: s.description,
    status: s.status,
    disabledReason: s.disabled_reason,
    failingSince: s.failing_since,
    isActive: s.status === 'ACTIVE',
    livemode: s.livemode,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
  };
}

type AttemptRow = Pick<WebhookAttempt, 'attempt' | 'status_code' | 'duration_ms' | 'error' | 'next_retry_at' | 'created_at'>;

export function attemptView(a: AttemptRow): Static<typeof AttemptView> {
  return { attempt: a.attempt, statusCode: a.status_code, durationMs: a.duration_ms, error: a.error, nextRetryAt: a.next_retry_at, createdAt: a.created_at };
}

export function deliveryView(d: WebhookDelivery, attempts: AttemptRow[]): Static<typeof DeliveryView> {
  return {
    id: d.id,
    eventId: d.event_id,
    eventType: d.event_type,
    subscriptionId: d.subscription_id,
    kind: d.subscription_id ? 'subscription' : 'postback',
    url: d.url,
    status: d.status,
    attemptCount: d.attempts,
    nextAttemptAt: d.status === 'PENDING' ? d.next_attempt_at : null,
    lastStatusCode: d.last_status,
    lastError: d.last_error,
    createdAt: d.created_at,
    updatedAt: d.updated_at,
    attempts: attempts.map(attemptView),
  };
}

// ---------------------------------------------------------------------------------------------
// Subscriptions

async function checkUrl(config: Config, url: string) {
  await assertCallableUrl(url, 'url', { allowPrivate: config.webhooks.allowPrivateTargets });
}

/** The audit entry of a change to a subscription: its view before and after (never its secret). */
function audit(trx: Trx, actor: Actor, action: string, before: WebhookSubscription | null, after: WebhookSubscription) {
  const entry = { userId: after.user_id, livemode: after.livemode, objectType: 'webhook_subscription', objectId: after.id };
  return recordAudit(trx, actor, { ...entry, action, before: before && subscriptionView(before), after: subscriptionView(after) });
}

export async function createSubscription(wh: Webhooks, scope: Scope, input: Static<typeof CreateSubscriptionBody>, actor: Actor) {
  await checkUrl(wh.config, input.url);
  const count = await owned(wh.db, 'webhook_subscriptions', scope)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= MAX_SUBSCRIPTIONS) {
    throw badRequest('VALIDATION_ERROR', `At most ${MAX_SUBSCRIPTIONS} webhook subscriptions per environment`, [
      { field: 'url', message: `this environment already has ${MAX_SUBSCRIPTIONS} subscriptions; delete one first` },
    ]);
  }
  const now = new Date();
  return inTx(wh.db, async (trx) => {
    const row = await trx
    .insertInto('webhook_subscriptions')
    .values({
      id: uuidv7(now.getTime()),
      user_id: scope.userId,
      livemode: scope.livemode,
      url: input.url,
      events: JSON.stringify(input.events),
      description: sanitizeOptional(input.description) ?? null,
      secret: newSecret(),
      status: input.status ?? 'ACTIVE',
      disabled_reason: input.status === 'DISABLED' ? 'Disabled by request' : null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
    await audit(trx, actor, 'webhook.created', null, row);
    return row;
  });
}

/** One subscription of this scope (`archived`: a deleted one too, e.g. to read its delivery log); 404 otherwise. */
export async function getSubscription(db: Executor, scope: Scope, id: string, { archived = false } = {}): Promise<WebhookSubscription> {
  const s = await owned(db, 'webhook_subscriptions', scope, { archived })
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!s) throw notFound('Webhook subscription');
  return s;
}

export async function listSubscriptions(wh: Webhooks, scope: Scope, q: Static<typeof ListSubscriptionsQuery>) {
  const query = owned(wh.db, 'webhook_subscriptions', scope).selectAll();
  return createdAtPage(wh.cursors.of('webhook-subscriptions', scope), query, q);
}

export async function updateSubscription(wh: Webhooks, scope: Scope, id: string, input: Static<typeof UpdateSubscriptionBody>, actor: Actor) {
  await getSubscription(wh.db, scope, id);
  if (input.url !== undefined) await checkUrl(wh.config, input.url);
  const set: Record<string, unknown> = { updated_at: new Date() };
  if (input.url !== undefined) set.url = input.url;
  if (input.events !== undefined) set.events = JSON.stringify(input.events);
  if (input.description !== undefined) set.description = sanitizeOptional(input.description) ?? null;
  if (input.status === 'ACTIVE') Object.assign(set, { status: 'ACTIVE', disabled_reason: null, failing_since: null });
  if (input.status === 'DISABLED') Object.assign(set, { status: 'DISABLED', disabled_reason: 'Disabled by request' });
  return changeSubscription(wh, scope, id, set, actor, 'webhook.updated');
}

/** Changes one subscription of this scope (404 otherwise) and writes its audit entry, in one commit. */
function changeSubscription(wh: Webhooks, scope: Scope, id: string, set: Record<string, unknown>, actor: Actor, action: string): Promise<WebhookSubscription> {
  return inTx(wh.db, async (trx) => {
    const before = await getSubscription(trx, scope, id);
    const row = await ownedUpdate(trx, 'webhook_subscriptions', scope, id).set(set).returningAll().executeTakeFirstOrThrow();
    await audit(trx, actor, action, before, row);
    return row;
  });
}

/** Deleting keeps the row (and its delivery log) out of sight; pending deliveries are dropped unsent. */
export async function deleteSubscription(wh: Webhooks, scope: Scope, id: string, actor: Actor): Promise<void> {
  const now = new Date();
  await changeSubscription(wh, scope, id, { deleted_at: now, status: 'DISABLED', disabled_reason: 'Deleted', updated_at: now }, actor, 'webhook.deleted');
}

/** A new secret, effective at once: the next attempt of every pending delivery is signed with it. */
export function rotateSecret(wh: Webhooks, scope: Scope, id: string, actor: Actor) {
  return changeSubscription(wh, scope, id, { secret: newSecret(), updated_at: new Date() }, actor, 'webhook.secret_rotated');
}

// ---------------------------------------------------------------------------------------------
// Postback secret (one per merchant, both environments)

export function getPostbackSecret(db: Executor, scope: Scope): Promise<string> {
  return ensurePostbackSecret(db, scope.userId);
}

export async function rotatePostbackSecret(db: Db, scope: Scope, actor: Actor): Promise<string> {
  const secret = newSecret();
  return inTx(db, async (trx) => {
    await trx.updateTable('users').set({ postback_secret: secret, updated_at: new Date() }).where('id', '=', scope.userId).execute();
    // Account-level (one secret signs both environments' postbacks); the entry says it changed, never what to.
    await recordAudit(trx, actor, { userId: scope.userId, livemode: null, action: 'postback_secret.rotated', objectType: 'postback_secret', objectId: scope.userId });
    return secret;
  });
}

// ---------------------------------------------------------------------------------------------
// Deliveries

async function attemptsOf(db: Executor, userId: string, ids: string[]): Promise<Map<string, AttemptRow[]>> {
  const out = new Map<string, AttemptRow[]>();
  if (!ids.length) return out;
  const rows = await db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select(['a.delivery_id', 'a.attempt', 'a.status_code', 'a.duration_ms', 'a.error', 'a.next_retry_at', 'a.created_at'])
    .where('a.user_id', '=', userId)
    .where('a.delivery_id', 'in', ids)
    // The attempt under way (started row, lease still held) shows once it has an outcome; one cut
    // off by a stopped worker shows when its lease runs out (see deliveries.ts).
    .where((eb) => eb.not(eb.and([eb('a.error', 'is not', null), eb('a.error', '=', ATTEMPT_STARTED), eb('a.attempt', '=', eb.ref('d.attempts')), eb('d.locked_until', 'is not', null), eb('d.locked_until', '>', sql<Date>`now()`)])))
    .orderBy('a.delivery_id')
    .orderBy('a.attempt')
    .execute();
  for (const r of rows) {
    const list = out.get(r.delivery_id) ?? [];
    list.push(r);
    out.set(r.delivery_id, list);
  }
  return out;
}

/**
 * The events of a transaction (transaction.*: their `data.id` is its id), for narrowing the delivery
 * log to one sale. Nothing about a sale happens before it is created, so events and deliveries are
 * read from its creation on (their (user, livemode, created_at) indexes). 404 for a transaction that
 * is not the caller's in this environment.
 */
async function eventsOfTransaction(db: Executor, scope: Scope, transactionId: string) {
  const tx = await db.selectFrom('transactions').select('created_at').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', transactionId).executeTakeFirst();
  if (!tx) throw notFound('Transaction');
  const ids = db
    .selectFrom('events')
    .select('id')
    .where('user_id', '=', scope.userId)
    .where('livemode', '=', scope.livemode)
    .where('created_at', '>=', tx.created_at)
    .where('type', 'like', 'transaction.%')
    .where(sql<string>`data->>'id'`, '=', transactionId);
  return { since: tx.created_at, ids };
}

export async function listDeliveries(wh: Webhooks, scope: Scope, q: Static<typeof AllDeliveriesQuery>) {
  let query = wh.db.selectFrom('webhook_deliveries').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
  if (q.subscriptionId) query = query.where('subscription_id', '=', q.subscriptionId);
  if (q.kind === 'postback') query = query.where('subscription_id', 'is', null);
  if (q.kind === 'subscription') query = query.where('subscription_id', 'is not', null);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.eventType) query = query.where('event_type', '=', q.eventType);
  if (q.eventId) query = query.where('event_id', '=', q.eventId);
  if (q.transactionId) {
    const events = await eventsOfTransaction(wh.db, scope, q.transactionId);
    query = query.where('created_at', '>=', events.since).where('event_id', 'in', events.ids);
  }
  const result = await createdAtPage(wh.cursors.of('webhook-deliveries', scope), query, q);
  const attempts = await attemptsOf(wh.db, scope.userId, result.rows.map((r) => r.id));
  return { deliveries: result.rows.map((d) => deliveryView(d, attempts.get(d.id) ?? [])), pagination: result.pagination };
}

export async function getDelivery(wh: Webhooks, scope: Scope, id: string) {
  const d = await wh.db.selectFrom('webhook_deliveries').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', id).executeTakeFirst();
  if (!d) throw notFound('Webhook delivery');
  const attempts = await attemptsOf(wh.db, scope.userId, [d.id]);
  return { ...deliveryView(d, attempts.get(d.id) ?? []), payload: JSON.parse(d.body) as Record<string, unknown> };
}

async function outcomeView(wh: Webhooks, scope: Scope, recorded: RecordedAttempt | null, deliveryId: string) {
  if (!recorded) throw conflict('The delivery was claimed by a worker meanwhile; its outcome is in the delivery log');
  const attempts = await attemptsOf(wh.db, scope.userId, [deliveryId]);
  const code = recorded.attempt.status_code;
  const success = code !== null && code >= 200 && code < 300;
  return {
    success,
    attempt: attemptView(recorded.attempt),
    delivery: deliveryView(recorded.delivery, attempts.get(deliveryId) ?? []),
  };
}

/** Redelivers now and waits for the outcome (one attempt, at most WEBHOOK_TIMEOUT_MS). */
export async function retryDelivery(wh: Webhooks, scope: Scope, id: string) {
  const claimed = await claimOne(wh.db, scope, id, wh.config.webhooks.lockMs);
  if (!claimed) {
    const exists = await wh.db.selectFrom('webhook_deliveries').select('id').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', id).executeTakeFirst();
    if (!exists) throw notFound('Webhook delivery');
    throw conflict('This delivery is being attempted right now; try again in a moment');
  }
  const recorded = await attempt({ db: wh.db, config: wh.config.webhooks, sender: wh.sender }, claimed, 'manual');
  // A failed early attempt of a pending delivery scheduled the next one: let the dispatcher know.
  if (recorded?.delivery.status === 'PENDING') wh.dispatcher.wake();
  return outcomeView(wh, scope, recorded, id);
}

/** Sends a signed `webhook.test` event to the subscription now (even a disabled one) and waits for the outcome. */
export async function sendTestEvent(wh: Webhooks, scope: Scope, subscriptionId: string) {
  const sub = await getSubscription(wh.db, scope, subscriptionId);
  const now = new Date();
  const event = { id: uuidv7(now.getTime()), type: TEST_EVENT_TYPE, createdAt: now, data: { message: 'Test event from Cofre: your endpoint is reachable and verifies signatures.', subscriptionId: sub.id } };
  // Written already leased and FAILED (the state it keeps unless the attempt succeeds): no dispatcher ever retries it.
  const row = await wh.db
    .insertInto('webhook_deliveries')
    .values({
      id: uuidv7(now.getTime()),
      user_id: scope.userId,
      livemode: scope.livemode,
      event_id: event.id,
      event_type: TEST_EVENT_TYPE,
      subscription_id: sub.id,
      url: sub.url,
      body: envelope(event, scope.livemode, { id: sub.id, url: sub.url }),
      status: 'FAILED',
      attempts: 1,
      next_attempt_at: now,
      first_attempt_at: now,
      locked_until: sql<Date>`now() + ${wh.config.webhooks.lockMs}::double precision * interval '1 millisecond'`,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const recorded = await attempt(
    { db: wh.db, config: wh.config.webhooks, sender: wh.sender },
    { ...row, subscription_url: sub.url, subscription_secret: sub.secret, subscription_status: sub.status, subscription_deleted_at: null, postback_secret: null },
    'test',
  );
  return outcomeView(wh, scope, recorded, row.id);
}
