// Enqueueing: for every recorded event, inside the event's own database transaction, one delivery
// per matching ACTIVE subscription of the merchant and environment, plus one to the transaction's
// postbackUrl. The rows are the durable job queue: they commit or roll back with the change itself.
// pg_notify is transactional too: the dispatchers are woken when (and only if) the commit happens.
import { sql } from 'kysely';
import type { Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Scope } from '../../http/scope.ts';
import { onEvents, type EventRecord } from '../events/service.ts';

export const NOTIFY_CHANNEL = 'cofre_webhooks';

/** The spec's envelope; `timestamp` is re-stamped at every attempt (see docs/webhooks.md). */
export function envelope(e: { id: string; type: string; data: Record<string, unknown>; createdAt: Date }, livemode: boolean, subscription: { id: string | null; url: string }): string {
  const at = e.createdAt.toISOString();
  return JSON.stringify({ id: e.id, type: e.type, data: e.data, timestamp: at, subscription, createdAt: at, livemode });
}

interface Target {
  kind: 's' | 'p';
  id: string;
  url: string;
  events: string[] | null;
}

export async function enqueueDeliveries(trx: Trx, scope: Scope, events: EventRecord[]): Promise<number> {
  const txIds = [...new Set(events.filter((e) => e.type.startsWith('transaction.') && typeof e.data.id === 'string').map((e) => e.data.id as string))];
  // One round trip: the merchant's active subscriptions and the postback URLs of the transactions concerned.
  const postbacks = txIds.length
    ? sql`UNION ALL
      SELECT 'p' AS kind, id, postback_url AS url, NULL::jsonb AS events FROM transactions
      WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND id IN (${sql.join(txIds)}) AND postback_url IS NOT NULL`
    : sql``;
  const { rows: targets } = await sql<Target>`
    SELECT 's' AS kind, id, url, events FROM webhook_subscriptions
    WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND status = 'ACTIVE' AND deleted_at IS NULL
    ${postbacks}`.execute(trx);
  if (!targets.length) return 0;

  const rows = [];
  for (const e of events) {
    for (const t of targets) {
      if (t.kind === 's' ? !t.events?.includes(e.type) : t.id !== e.data.id) continue;
      const subscription = { id: t.kind === 's' ? t.id : null, url: t.url };
      rows.push({
        id: uuidv7(),
        user_id: scope.userId,
        livemode: scope.livemode,
        event_id: e.id,
        event_type: e.type,
        subscription_id: subscription.id,
        url: t.url,
        body: envelope(e, scope.livemode, subscription),
        status: 'PENDING' as const,
        next_attempt_at: sql<Date>`now()`,
        created_at: e.createdAt,
        updated_at: e.createdAt,
      });
    }
  }
  if (!rows.length) return 0;
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  await sql`SELECT pg_notify(${NOTIFY_CHANNEL}, '')`.execute(trx);
  return rows.length;
}

// Registered once, when this module is first imported (by the app and by the worker).
let registered = false;
export function registerEnqueueHook() {
  if (registered) return;
  registered = true;
  onEvents(async (trx, scope, events) => {
    await enqueueDeliveries(trx, scope, events);
  });
}
registerEnqueueHook();
