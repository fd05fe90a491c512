// Delivery state: claiming due deliveries (FOR UPDATE SKIP LOCKED + a lease), one attempt, and
// recording its outcome in one statement fenced by the attempt number (a worker whose lease expired
// cannot overwrite the outcome of the worker that took over).
//
// The attempt log is written before anything is sent: the claim that takes attempt number n also
// inserts attempt n's row, saying it started with no outcome yet, and the outcome completes that
// row. A worker killed mid-send therefore leaves attempt n in the log as started and never
// finished, and the claim after its lease runs out is attempt n+1: one row per number, no gaps.
import { sql } from 'kysely';
import type { WebhookConfig } from '../../config.ts';
import type { Executor } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { DeliveryStatus, WebhookDelivery } from '../../db/types.ts';
import { newSecret } from './secrets.ts';
import type { SendResult, WebhookSender } from './sender.ts';

export interface ClaimedDelivery extends WebhookDelivery {
  /** The subscription's current URL: a URL fixed by PATCH applies to retries of earlier events too. */
  subscription_url: string | null;
  subscription_secret: string | null;
  subscription_status: 'ACTIVE' | 'DISABLED' | null;
  subscription_deleted_at: Date | null;
  postback_secret: string | null;
  /** The row of this attempt in webhook_attempts, written by the claim (absent: written by attempt()). */
  attempt_id?: string;
}

/**
 * What an attempt row says from its start until its outcome is recorded, and for good if its worker
 * died. Lists hide the attempt under way (lease held), so where it is seen it was cut off.
 */
export const ATTEMPT_STARTED = 'no outcome: the attempt was cut off (its worker stopped while sending); the delivery is attempted again';

/**
 * How an attempt was started:
 * - scheduled: claimed by a dispatcher; failures follow the retry schedule.
 * - manual: POST /deliveries/{id}/retry. On a PENDING delivery it is an early scheduled attempt;
 *   on a finished one it is one extra try (success -> SUCCEEDED; failure leaves it as it was).
 * - test: the test event; never retried.
 */
export type AttemptMode = 'scheduled' | 'manual' | 'test';

/** The claimed rows (CTE `c`) with their secrets, and the started attempt row inserted for each (CTE `a`). */
const startedWithSecrets = sql`
  , a AS (
    INSERT INTO webhook_attempts (id, delivery_id, user_id, attempt, status_code, duration_ms, error, next_retry_at, created_at)
    SELECT gen_random_uuid(), c.id, c.user_id, c.attempts, NULL, 0, ${ATTEMPT_STARTED}, NULL, now() FROM c
    RETURNING id, delivery_id
  )
  SELECT c.*, a.id AS attempt_id, s.url AS subscription_url, s.secret AS subscription_secret, s.status AS subscription_status, s.deleted_at AS subscription_deleted_at, u.postback_secret
  FROM c
  JOIN a ON a.delivery_id = c.id
  LEFT JOIN webhook_subscriptions s ON s.id = c.subscription_id
  JOIN users u ON u.id = c.user_id`;

/** Claims up to `limit` due deliveries for this worker: leased for lockMs, attempt number taken. */
export async function claimDue(db: Executor, limit: number, lockMs: number): Promise<ClaimedDelivery[]> {
  const { rows } = await sql<ClaimedDelivery>`
    WITH c AS (
      UPDATE webhook_deliveries d
      SET locked_until = now() + ${lockMs}::double precision * interval '1 millisecond',
          attempts = d.attempts + 1,
          first_attempt_at = COALESCE(d.first_attempt_at, now())
      WHERE d.id IN (
        SELECT id FROM webhook_deliveries
        WHERE status = 'PENDING' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
        ORDER BY next_attempt_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      RETURNING d.*
    )
    ${startedWithSecrets}`.execute(db);
  return rows;
}

/** Claims one delivery of this merchant for a manual retry; null if it is leased by a worker right now. */
export async function claimOne(db: Executor, scope: { userId: string; livemode: boolean }, id: string, lockMs: number): Promise<ClaimedDelivery | null> {
  const { rows } = await sql<ClaimedDelivery>`
    WITH c AS (
      UPDATE webhook_deliveries d
      SET locked_until = now() + ${lockMs}::double precision * interval '1 millisecond',
          attempts = d.attempts + 1,
          first_attempt_at = COALESCE(d.first_attempt_at, now())
      WHERE d.id = ${id} AND d.user_id = ${scope.userId} AND d.livemode = ${scope.livemode}
        AND (d.locked_until IS NULL OR d.locked_until < now())
      RETURNING d.*
    )
    ${startedWithSecrets}`.execute(db);
  return rows[0] ?? null;
}

/** Offset from the first try of retry number n (1-based): the cumulative schedule. */
export function retryOffsetMs(schedule: number[], n: number): number | null {
  if (n < 1 || n > schedule.length) return null;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += schedule[i];
  return sum;
}

type SubscriptionEffect = 'succeeded' | 'failed' | 'gone' | 'none';

interface Decision {
  status: DeliveryStatus;
  /** Next try at first_attempt_at + this (or now, if that has passed); null = no next try. */
  nextOffsetMs: number | null;
  subscription: SubscriptionEffect;
}

export function decide(d: { status: DeliveryStatus; attempts: number }, r: Pick<SendResult, 'ok' | 'statusCode'>, mode: AttemptMode, schedule: number[]): Decision {
  if (r.ok) return { status: 'SUCCEEDED', nextOffsetMs: null, subscription: 'succeeded' };
  const gone = r.statusCode === 410;
  const effect: SubscriptionEffect = gone ? 'gone' : 'failed';
  // A test event is the merchant trying its receiver: its failure (a 410 too) is no evidence the
  // subscription should stop; its success is evidence the endpoint works (above).
  if (mode === 'test') return { status: 'FAILED', nextOffsetMs: null, subscription: 'none' };
  const onSchedule = mode === 'scheduled' || d.status === 'PENDING';
  if (!onSchedule) return { status: d.status, nextOffsetMs: null, subscription: effect };
  if (gone) return { status: 'FAILED', nextOffsetMs: null, subscription: effect };
  // Attempt n failed: retry n is next, if the schedule has one.
  const offset = retryOffsetMs(schedule, d.attempts);
  return offset === null ? { status: 'FAILED', nextOffsetMs: null, subscription: effect } : { status: 'PENDING', nextOffsetMs: offset, subscription: effect };
}

export interface RecordedAttempt {
  delivery: WebhookDelivery;
  attempt: { attempt: number; status_code: number | null; duration_ms: number; error: string | null; next_retry_at: Date | null; created_at: Date };
  /** The subscription's status when this outcome changed it (e.g. DISABLED), else null. */
  subscriptionStatus: string | null;
}

export interface Outcome {
  claimed: ClaimedDelivery;
  /** The URL this attempt went to (recorded on the delivery). */
  url: string;
  result: Omit<SendResult, 'refused'>;
  mode: AttemptMode;
  startedAt: Date;
  /** Overrides the effect on the subscription ('none': leave it alone). */
  subscriptionEffect?: SubscriptionEffect;
}

const GONE_REASON = 'The endpoint answered 410 Gone';

export function failingReason(disableAfterMs: number): string {
  const days = Math.round(disableAfterMs / 86_400_000);
  return `Every delivery failed for ${days >= 1 ? `${days} day${days === 1 ? '' : 's'}` : `${Math.round(disableAfterMs / 1000)} s`}`;
}

/** Within one batch a subscription gets one effect: 410 wins, then any success (the endpoint is alive), then failure. */
const EFFECT_RANK: Record<SubscriptionEffect, number> = { gone: 3, succeeded: 2, failed: 1, none: 0 };

/**
 * Records attempt outcomes and the deliveries' next states in ONE statement (one commit for a
 * whole batch of attempts). Each row is fenced by its attempt number: if its lease expired and
 * another worker claimed the delivery since, nothing is written for it and its entry is null.
 */
export async function recordOutcomes(db: Executor, config: Pick<WebhookConfig, 'retryScheduleMs' | 'disableAfterMs'>, outcomes: Outcome[]): Promise<(RecordedAttempt | null)[]> {
  if (!outcomes.length) return [];
  const rows: DecidedOutcome[] = outcomes.map((o) => {
    const decision = decide(o.claimed, o.result, o.mode, config.retryScheduleMs);
    const effect: SubscriptionEffect = o.claimed.subscription_id ? (o.subscriptionEffect ?? decision.subscription) : 'none';
    return { o, decision, effect, attemptId: o.claimed.attempt_id ?? uuidv7() };
  });
  const effects = effectPerSubscription(rows);
  const input = sql.join(
    rows.map(
      (r) =>
        sql`(${r.o.claimed.id}::uuid, ${r.o.claimed.attempts}::integer, ${r.decision.status}::text, ${r.decision.nextOffsetMs}::double precision,
          ${r.o.result.statusCode}::integer, ${r.o.result.error}::text, ${r.o.result.durationMs}::integer, ${r.attemptId}::uuid, ${r.o.startedAt}::timestamptz, ${r.o.url}::text,
          ${r.o.claimed.user_id}::uuid, ${r.o.claimed.attempt_id !== undefined}::boolean)`,
    ),
  );
  const subEffects = effects.size
    ? sql.join([...effects].map(([sid, effect]) => sql`(${sid}::uuid, ${effect}::text)`))
    : sql`(NULL::uuid, NULL::text)`;
  const cutoff = sql`now() - ${config.disableAfterMs}::double precision * interval '1 millisecond'`;
  const { rows: updated } = await sql<WebhookDelivery & { subscription_status: string | null }>`
    WITH i (id, attempts, status, next_offset, code, err, duration, attempt_id, started, url, user_id, has_row) AS (VALUES ${input}),
    se (sid, effect) AS (VALUES ${subEffects}),
    d AS (
      UPDATE webhook_deliveries w
      SET status = i.status,
          next_attempt_at = CASE WHEN i.next_offset IS NULL THEN w.next_attempt_at
                                 ELSE GREATEST(w.first_attempt_at + i.next_offset * interval '1 millisecond', now()) END,
          locked_until = NULL, last_status = i.code, last_error = i.err, url = i.url, updated_at = now()
      FROM i
      WHERE w.id = i.id AND w.attempts = i.attempts
      RETURNING w.*
    ), a AS (
      -- Completes the attempt's started row. A worker fenced off (its lease ran out, the delivery
      -- was claimed again) still completes its own row: the attempt happened, and the log says how
      -- it went, under its own number; only the delivery's state belongs to the newer claim.
      INSERT INTO webhook_attempts (id, delivery_id, user_id, attempt, status_code, duration_ms, error, next_retry_at, created_at)
      SELECT i.attempt_id, i.id, i.user_id, i.attempts, i.code, i.duration, i.err, CASE WHEN d.status = 'PENDING' THEN d.next_attempt_at END, i.started
      FROM i LEFT JOIN d ON d.id = i.id
      WHERE d.id IS NOT NULL OR i.has_row
      ON CONFLICT (delivery_id, id) DO UPDATE SET status_code = EXCLUDED.status_code, duration_ms = EXCLUDED.duration_ms, error = EXCLUDED.error,
        next_retry_at = EXCLUDED.next_retry_at, created_at = EXCLUDED.created_at
    ), s AS (
      -- Written only when something changes: a failing streak starts or ends, or the subscription
      -- is disabled. A busy failing endpoint does not turn its subscription row into a hot spot.
      UPDATE webhook_subscriptions s
      SET failing_since = CASE se.effect WHEN 'succeeded' THEN NULL WHEN 'failed' THEN COALESCE(s.failing_since, now()) ELSE s.failing_since END,
          status = CASE WHEN se.effect = 'gone' OR (se.effect = 'failed' AND s.failing_since < ${cutoff}) THEN 'DISABLED' ELSE s.status END,
          disabled_reason = CASE WHEN se.effect = 'gone' THEN ${GONE_REASON}
                                 WHEN se.effect = 'failed' AND s.failing_since < ${cutoff} THEN ${failingReason(config.disableAfterMs)}
                                 ELSE s.disabled_reason END,
          updated_at = now()
      FROM se
      WHERE s.id = se.sid AND s.id IN (SELECT subscription_id FROM d)
        AND ((se.effect = 'succeeded' AND s.failing_since IS NOT NULL)
          OR (se.effect = 'gone' AND s.status = 'ACTIVE' AND s.deleted_at IS NULL)
          OR (se.effect = 'failed' AND s.status = 'ACTIVE' AND s.deleted_at IS NULL AND (s.failing_since IS NULL OR s.failing_since < ${cutoff})))
      RETURNING s.id, s.status
    )
    SELECT d.*, s.status AS subscription_status FROM d LEFT JOIN s ON s.id = d.subscription_id`.execute(db);
  return recordedAttempts(rows, updated);
}

/** An outcome with what it decides: the delivery's next state, the effect on its subscription, the attempt's row id. */
interface DecidedOutcome {
  o: Outcome;
  decision: Decision;
  effect: SubscriptionEffect;
  attemptId: string;
}

/** The one effect each subscription gets from a batch (EFFECT_RANK). */
function effectPerSubscription(rows: DecidedOutcome[]): Map<string, SubscriptionEffect> {
  const effects = new Map<string, SubscriptionEffect>();
  for (const r of rows) {
    const sid = r.o.claimed.subscription_id;
    if (!sid || r.effect === 'none') continue;
    const prev = effects.get(sid);
    if (!prev || EFFECT_RANK[r.effect] > EFFECT_RANK[prev]) effects.set(sid, r.effect);
  }
  return effects;
}

/** Each outcome's recorded attempt, in the outcomes' order; null where the delivery's update was fenced off. */
function recordedAttempts(rows: DecidedOutcome[], updated: (WebhookDelivery & { subscription_status: string | null })[]): (RecordedAttempt | null)[] {
  const byId = new Map(updated.map((u) => [u.id, u]));
  return rows.map((r) => {
    const row = byId.get(r.o.claimed.id);
    if (!row) return null;
    const { subscription_status, ...delivery } = row;
    return {
      delivery,
      attempt: {
        attempt: delivery.attempts,
        status_code: r.o.result.statusCode,
        duration_ms: r.o.result.durationMs,
        error: r.o.result.error,
        next_retry_at: delivery.status === 'PENDING' ? delivery.next_attempt_at : null,
        created_at: r.o.startedAt,
      },
      subscriptionStatus: subscription_status,
    };
  });
}

export async function recordOutcome(db: Executor, config: Pick<WebhookConfig, 'retryScheduleMs' | 'disableAfterMs'>, outcome: Outcome): Promise<RecordedAttempt | null> {
  const [r] = await recordOutcomes(db, config, [outcome]);
  return r;
}

/** The body of this attempt: the stored envelope with `timestamp` set to now (signed with it), and the subscription's current URL. */
export function stamp(body: string, at: Date, url: string): string {
  const parsed = JSON.parse(body) as Record<string, unknown> & { subscription?: { id: string | null; url: string } };
  parsed.timestamp = at.toISOString();
  if (parsed.subscription) parsed.subscription = { id: parsed.subscription.id, url };
  return JSON.stringify(parsed);
}

/** The secret that signs this delivery: the subscription's, or the merchant's postback secret (made on first use). */
async function secretFor(db: Executor, d: ClaimedDelivery): Promise<string> {
  if (d.subscription_id) return d.subscription_secret!;
  if (d.postback_secret) return d.postback_secret;
  return ensurePostbackSecret(db, d.user_id);
}

export async function ensurePostbackSecret(db: Executor, userId: string): Promise<string> {
  const row = await db
    .updateTable('users')
    .set((eb) => ({ postback_secret: eb.fn.coalesce('postback_secret', eb.val(newSecret())) }))
    .where('id', '=', userId)
    .returning('postback_secret')
    .executeTakeFirstOrThrow();
  return row.postback_secret!;
}

export interface AttemptContext {
  db: Executor;
  config: WebhookConfig;
  sender: WebhookSender;
  /** How outcomes are written; default one statement per outcome (the dispatcher batches them). */
  record?: (outcome: Outcome) => Promise<RecordedAttempt | null>;
}

/** Writes the started row of an attempt whose claim did not (see the top of this file); returns its id. */
async function startAttempt(db: Executor, d: ClaimedDelivery, at: Date): Promise<string> {
  const id = uuidv7(at.getTime());
  await db
    .insertInto('webhook_attempts')
    .values({ id, delivery_id: d.id, user_id: d.user_id, attempt: d.attempts, status_code: null, duration_ms: 0, error: ATTEMPT_STARTED, next_retry_at: null, created_at: at })
    .execute();
  return id;
}

/** One attempt of a claimed delivery, start to finish. Returns null when the outcome was fenced off. */
export async function attempt(ctx: AttemptContext, d: ClaimedDelivery, mode: AttemptMode): Promise<RecordedAttempt | null> {
  const record = ctx.record ?? ((o: Outcome) => recordOutcome(ctx.db, ctx.config, o));
  const startedAt = new Date();
  // A scheduled delivery whose subscription was disabled or deleted meanwhile is dropped, not sent.
  if (mode === 'scheduled' && d.subscription_id && (d.subscription_deleted_at || d.subscription_status !== 'ACTIVE')) {
    const why = d.subscription_deleted_at ? 'subscription deleted' : 'subscription disabled';
    return record({ claimed: d, url: d.url, result: { ok: false, statusCode: null, durationMs: 0, error: `not sent: ${why}` }, mode: 'test', startedAt, subscriptionEffect: 'none' });
  }
  const url = d.subscription_id && d.subscription_url ? d.subscription_url : d.url;
  if (d.attempt_id === undefined) d = { ...d, attempt_id: await startAttempt(ctx.db, d, startedAt) }; // not claimed here (the test event)
  const secret = await secretFor(ctx.db, d);
  const body = stamp(d.body, startedAt, url);
  const result = await ctx.sender.send({
    url,
    body,
    secret,
    eventId: d.event_id,
    eventType: d.event_type,
    deliveryId: d.id,
    attempt: d.attempts,
    timestamp: startedAt.toISOString(),
  });
  return record({ claimed: d, url, result, mode, startedAt });
}
