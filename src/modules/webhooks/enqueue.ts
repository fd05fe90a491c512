// Enqueueing: for every recorded event, by the very statement that writes the event (so inside its
// database transaction), one delivery per matching ACTIVE subscription of the merchant and
// environment, plus one to the transaction's postbackUrl. The rows are the durable job queue: they
// commit or roll back with the change itself. pg_notify is transactional too: the dispatchers are
// woken when (and only if) the commit happens, and only when a delivery was written.
import { sql, type RawBuilder } from 'kysely';
import type { Env, EventFanout, EventShape } from '../events/service.ts';

export const NOTIFY_CHANNEL = 'cofre_webhooks';

/**
 * The spec's envelope, field by field and in order: its one definition, from which both builders
 * below are made. `timestamp` is re-stamped at every attempt (see docs/webhooks.md and `stamp`).
 */
function envelopeFields<T>(v: { id: T; type: T; data: T; at: T; subscription: T; livemode: T }): [string, T][] {
  return [
    ['id', v.id],
    ['type', v.type],
    ['data', v.data],
    ['timestamp', v.at],
    ['subscription', v.subscription],
    ['createdAt', v.at],
    ['livemode', v.livemode],
  ];
}

/** The envelope as JSON text, in JS (the test event, which is no recorded event). */
export function envelope(e: { id: string; type: string; data: Record<string, unknown>; createdAt: Date }, livemode: boolean, subscription: { id: string | null; url: string }): string {
  return JSON.stringify(Object.fromEntries(envelopeFields<unknown>({ id: e.id, type: e.type, data: e.data, at: e.createdAt.toISOString(), subscription, livemode })));
}

/** The envelope as JSON text, in SQL (every recorded event): json, not jsonb, keeps the key order. */
function envelopeSql(v: Parameters<typeof envelopeFields<RawBuilder<unknown>>>[0]): RawBuilder<unknown> {
  return sql`json_build_object(${sql.join(envelopeFields(v).map(([k, x]) => sql`${sql.lit(k)}::text, ${x}`))})::text`;
}

/**
 * The deliveries of the events in `ev` (see EVENT_COLUMNS in the events module) as CTEs: one
 * INSERT ... SELECT over the merchant's matching subscriptions and the postback targets, and a
 * pg_notify that runs only if it inserted something. Delivery ids are UUID v7 with the event's
 * millisecond (time-ordered, like every other id). The postback branches are left out of the
 * statement when `shape` says no event can have one (less for PostgreSQL to plan).
 */
export function enqueueDeliveries(env: Env, shape: EventShape): RawBuilder<unknown> {
  const l = sql`${env.livemode}::boolean`;
  const body = envelopeSql({
    id: sql`x.event_id`,
    type: sql`x.type`,
    data: sql`x.data::json`,
    at: sql`x.at`,
    subscription: sql`json_build_object('id', x.subscription_id, 'url', x.url)`,
    livemode: l,
  });
  const knownPostbacks = shape.postbackUrls
    ? sql`
        UNION ALL
        SELECT ev.id, ev.user_id, ev.type, ev.data, ev.at, ev.created_at, NULL::uuid, ev.postback_url
        FROM ev WHERE ev.postback_url IS NOT NULL`
    : sql``;
  const storedPostbacks = shape.postbackLookups
    ? sql`
        UNION ALL
        SELECT ev.id, ev.user_id, ev.type, ev.data, ev.at, ev.created_at, NULL::uuid, t.postback_url
        FROM ev JOIN transactions t ON t.user_id = ev.user_id AND t.livemode = ${l} AND t.id = ev.postback_of
        WHERE ev.postback_url IS NULL AND t.postback_url IS NOT NULL`
    : sql``;
  return sql`,
    webhook_rows AS (
      INSERT INTO webhook_deliveries (id, user_id, livemode, event_id, event_type, subscription_id, url, body, status, next_attempt_at, created_at, updated_at)
      SELECT (substr(x.event_id::text, 1, 14) || '7' || substr(gen_random_uuid()::text, 16))::uuid, x.user_id, ${l}, x.event_id, x.type, x.subscription_id, x.url,
        ${body}, 'PENDING', now(), x.created_at, x.created_at
      FROM (
        SELECT ev.id AS event_id, ev.user_id, ev.type, ev.data, ev.at, ev.created_at, s.id AS subscription_id, s.url
        FROM ev JOIN webhook_subscriptions s
          ON s.user_id = ev.user_id AND s.livemode = ${l} AND s.status = 'ACTIVE' AND s.deleted_at IS NULL AND s.events ? ev.type${knownPostbacks}${storedPostbacks}
      ) x
      RETURNING 1
    ),
    webhook_notify AS (SELECT pg_notify(${NOTIFY_CHANNEL}, '') FROM (SELECT 1 FROM webhook_rows LIMIT 1) AS any_row)`;
}

/** The webhook fan-out of every recorded event (given to the EventLog by deps.ts). */
export const webhookFanout: EventFanout = { ctes: enqueueDeliveries, result: () => sql`(SELECT count(*) FROM webhook_notify)` };
