// Events are written in the same database transaction as the change they describe, by the same
// statement as their fan-out. The fan-outs (today: webhook deliveries, see webhooks/enqueue.ts) are
// given to the EventLog by the composition root (deps.ts): nothing is switched on by an import.
import { sql, type RawBuilder } from 'kysely';
import { deferred } from '../../db/deferred.ts';
import { prepared, type Executor } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Scope } from '../../http/scope.ts';

export const EVENT_TYPES = [
  'transaction.created',
  'transaction.updated',
  'transaction.completed',
  'transaction.failed',
  'transaction.refunded',
  'transaction.refund_failed',
  'transaction.authorized',
  'transaction.captured',
  'transaction.cancelled',
  'transaction.chargeback',
  'transaction.chargeback_won',
  'transaction.chargeback_lost',
  'transaction.split_received',
  'transaction.split_reversed',
  'payment_link.created',
  'payment_link.updated',
  'balance.updated',
  'subscription.cancelled',
  'subscription.expired',
  'subscription.cancel_scheduled',
  'plan.created',
  'plan.updated',
  'subscription.created',
  'subscription.trial_will_end',
  'subscription.renewed',
  'subscription.past_due',
  'subscription.paused',
  'subscription.resumed',
  'subscription.mandate_updated',
  'kyc.submitted',
  'kyc.approved',
  'kyc.rejected',
  'advance.created',
  'advance.approved',
  'advance.rejected',
  'withdrawal.requested',
  'withdrawal.completed',
  'withdrawal.failed',
  'affiliate.joined',
  'affiliate.approved',
  'commission.created',
  'commission.paid',
  'commission.cancelled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventRecord {
  id: string;
  type: EventType;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * The events a statement writes are the relation `ev`, one row per event, with these columns:
 * - id uuid, user_id uuid (whose event: one statement may write several merchants'), type text,
 *   created_at timestamptz;
 * - data text: the JSON text as built in JS (the events table stores it as jsonb, parsed once there;
 *   a fan-out that needs it as JSON casts it to json, which keeps its key order);
 * - at text: created_at in ISO 8601 as JS writes it (Date#toISOString);
 * - postback_url text: the URL of the transaction's postback when the caller knows it (a transaction
 *   inserted by the same statement is not visible to a lookup);
 * - postback_of uuid: otherwise, the transaction whose stored postback URL applies, if any.
 */
export const EVENT_COLUMNS = sql.raw('ev (id, user_id, type, data, created_at, at, postback_url, postback_of)');

/** What the events of a statement can carry, so that fan-outs leave out of the SQL what cannot apply. */
export interface EventShape {
  /** Some event may have a postback_url. */
  postbackUrls: boolean;
  /** Some event may have a postback_of. */
  postbackLookups: boolean;
}

/**
 * Work written by the same statement as the events (one statement: it commits with them, and costs
 * no round trip of its own). `ctes` are further CTEs (", name AS (...)") that read `ev`; `result` a
 * number the statement selects, so that plain (not data-modifying) CTEs among them run as well.
 */
export interface EventFanout {
  ctes(env: Env, shape: EventShape): RawBuilder<unknown>;
  result(): RawBuilder<unknown>;
}
/**
 * Events of transactions (transaction.*) carry the transaction's id: its postback URL applies. Not a
 * split recipient's (transaction.split_*): the seller's postback is the seller's.
 */
const postbackOf = (e: { type: string; data: Record<string, unknown> }) =>
  e.type.startsWith('transaction.') && !e.type.startsWith('transaction.split_') && typeof e.data.id === 'string' ? e.data.id : null;

/** The environment every event of one statement belongs to (a value, or the creation statement's parameter). */
export type Env = Pick<Scope, 'livemode'>;

/** Events of several merchants of one environment, recorded together: merchant id -> its events. */
export type EventsByMerchant = Map<string, EventInput[]>;

/** Adds `items` to `userId`'s events of `into`. */
export function collectEvents(into: EventsByMerchant, userId: string, items: EventInput[]): void {
  if (!items.length) return;
  const mine = into.get(userId);
  if (mine) mine.push(...items);
  else into.set(userId, [...items]);
}

export type EventInput = { type: EventType; data: Record<string, unknown> };

/** An event as recordAll has drawn it (id and time), with whose it is. */
type StoredEvent = EventRecord & { userId: string };

/** Records events with their fan-outs: one instance per process, built by deps.ts. */
export class EventLog {
  private fanouts: readonly EventFanout[];
  constructor(fanouts: readonly EventFanout[]) {
    this.fanouts = fanouts;
  }

  /**
   * The CTEs that write the events of `source` (a VALUES list or a SELECT with EVENT_COLUMNS) and
   * their fan-out, and a scalar the statement must select to make them all run. For statements that
   * write something else too (transaction creation); record() is the plain case.
   */
  writes(env: Env, shape: EventShape, source: RawBuilder<unknown>): { ctes: RawBuilder<unknown>; result: RawBuilder<unknown> } {
    const ctes = sql`${EVENT_COLUMNS} AS (${source}),
    ev_rows AS (
      INSERT INTO events (id, user_id, livemode, type, data, created_at)
      SELECT id, user_id, ${env.livemode}::boolean, type, data::jsonb, created_at FROM ev
    )${sql.join(
      this.fanouts.map((f) => f.ctes(env, shape)),
      sql``,
    )}`;
    const result = this.fanouts.length
      ? sql`(${sql.join(
          this.fanouts.map((f) => f.result()),
          sql` + `,
        )})`
      : sql`0`;
    return { ctes, result };
  }

  /** Writes the events and their fan-out in one statement; inside the caller's transaction, if any. */
  record(trx: Executor, scope: Scope, items: EventInput[]): Promise<EventRecord[]> {
    return this.recordAll(trx, scope.livemode, new Map([[scope.userId, items]]));
  }

  /**
   * Writes several merchants' events (one environment) and their fan-out in one statement. In a
   * transaction that defers its writes (a batch of status changes, db/deferred.ts) they are written
   * at its end with the batch's other events: their ids and times are drawn now, in order.
   */
  async recordAll(trx: Executor, livemode: boolean, byMerchant: EventsByMerchant): Promise<EventRecord[]> {
    const now = new Date();
    const events = [...byMerchant].flatMap(([userId, items]) => items.map((e) => ({ id: uuidv7(), userId, type: e.type, data: e.data, createdAt: now })));
    if (!events.length) return [];
    const later = deferred<StoredEvent>(trx, `events:${livemode}`, 1, (t, all) => this.write(t, livemode, all));
    if (later) later.push(...events);
    else await this.write(trx, livemode, events);
    return events.map(({ userId: _, ...e }) => e);
  }

  /**
   * Writes the events in one statement (the data serialised now: a balance's is filled in late),
   * given as one JSON parameter: the statement's text depends only on the shape, never on the number
   * of events (a prepared statement, prepared()).
   */
  private async write(trx: Executor, livemode: boolean, events: StoredEvent[]): Promise<void> {
    const rows = events.map((e) => {
      const at = e.createdAt.toISOString();
      return { id: e.id, user_id: e.userId, type: e.type, data: JSON.stringify(e.data), created_at: at, at, postback_of: postbackOf(e) };
    });
    const shape = { postbackUrls: false, postbackLookups: events.some((e) => postbackOf(e) !== null) };
    const source = sql`SELECT id, user_id, type, data, created_at, at, NULL::text, postback_of FROM json_to_recordset(${JSON.stringify(rows)}::json)
      AS r (id uuid, user_id uuid, type text, data text, created_at timestamptz, at text, postback_of uuid)`;
    const { ctes, result } = this.writes({ livemode }, shape, source);
    const query = sql`WITH ${ctes} SELECT ${result} AS fanout`.compile(trx);
    prepared('event_record', query.sql);
    await trx.executeQuery(query);
  }
}
