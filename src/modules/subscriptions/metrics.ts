// Subscription metrics of one month (São Paulo calendar): the SQL that gathers, per subscription,
// what the formulas (metrics-formulas.ts) need as of the month's start and end, and the rows stored.
//
// What is read (docs/decisions.md, "Subscription metrics: a snapshot of the day's start stored,
// the day's movers read"): a subscription with nothing recorded between the start of today (d) and
// now (created, activated, a trial's end, ended, price_since, a pause's start or end, a failed
// charge's failure, payment or withdrawal) sends the same row as of now as it did as of d. So the
// current month is the stored snapshot as of d (every subscription, grouped, in
// subscription_metrics_months), minus the snapshot rows of the day's movers, plus their rows as of
// now: only the movers are read on each request. A closed month's rows are stored whole. Stored
// rows carry the merchant's history version (migration 024's triggers raise it on any write that
// changes what was recorded before the current day) and are not used once it moved.
import { sql, type RawBuilder } from 'kysely';
import { inTx, type Db, type Executor, type Trx } from '../../db/index.ts';
import type { PlanInterval } from '../../db/types.ts';
import type { Scope } from '../../http/scope.ts';
import { instantOf, metricsOf, monthBounds, type Metrics, type Place } from './metrics-formulas.ts';

/** One row of the metrics statement: a group of subscriptions that send the same MetricsRow. */
interface Grouped {
  cancelled: boolean;
  created: Place;
  activated: Place | null;
  trial_end: Place | null;
  ended: Place | null;
  interval: PlanInterval;
  interval_count: number;
  plan_amount: number;
  paused_start: boolean;
  paused_end: boolean;
  amount_start: number | null;
  amount_end: number | null;
  past_due: boolean;
  n: number;
}
const KEY = ['cancelled', 'created', 'activated', 'trial_end', 'ended', 'interval', 'interval_count', 'plan_amount', 'paused_start', 'paused_end', 'amount_start', 'amount_end', 'past_due'] as const;

/** pg sends bigint and count as strings; stored rows (jsonb) as numbers. */
function grouped(r: Record<string, unknown>): Grouped {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    cancelled: r.cancelled === true,
    created: num(r.created) as Place,
    activated: num(r.activated) as Place | null,
    trial_end: num(r.trial_end) as Place | null,
    ended: num(r.ended) as Place | null,
    interval: r.interval as PlanInterval,
    interval_count: Number(r.interval_count),
    plan_amount: Number(r.plan_amount),
    paused_start: r.paused_start === true,
    paused_end: r.paused_end === true,
    amount_start: num(r.amount_start),
    amount_end: num(r.amount_end),
    past_due: r.past_due === true,
    n: Number(r.n),
  };
}

/**
 * The SQL of a column's Place (see Place) in [t0, t1]. In a snapshot (`snapshot`: t1 is the day's
 * start, the rows must depend only on what was recorded by then) an activation or end after it is
 * sent as NULL, which metricsOf reads as it reads one after the month's last instant.
 */
function placeOf(col: 'created_at' | 'activated_at' | 'trial_end' | 'ended_at', t0: Date, t1: Date, snapshot = false) {
  const c = sql.ref(`s.${col}`);
  const later = snapshot && col !== 'trial_end' ? sql`NULL` : sql`3`;
  return sql<Place | null>`CASE WHEN ${c} IS NULL THEN NULL WHEN ${c} < ${t0} THEN 0 WHEN ${c} = ${t0} THEN 1 WHEN ${c} <= ${t1} THEN 2 ELSE ${later} END`;
}

/**
 * The metrics rows of the merchant's subscriptions for the month starting at t0, grouped (a few
 * hundred rows), each with its `part`: NOW, as of t1 (what metricsOf reads), or DAY, as of d (the
 * start of t1's day): the snapshot, which depends only on what was recorded by d and is the NOW row
 * of a subscription with nothing recorded between d and t1. `moved`: only the subscriptions of the
 * statement's `moved` CTE (movedSql), otherwise all of the merchant's.
 */
function groupedSql(scope: Scope, t0: Date, d: Date, t1: Date, parts: { now?: boolean; day?: boolean }, moved = false): RawBuilder<Record<string, unknown>> {
  const source = moved ? sql`moved s WHERE s.created_at <= ${t1}` : sql`subscriptions s WHERE s.user_id = ${scope.userId} AND s.livemode = ${scope.livemode} AND s.created_at <= ${t1}`;
  const priceAt = (t: Date, running: RawBuilder<unknown>) => sql`CASE WHEN NOT ${running} THEN NULL WHEN s.price_since <= ${t} THEN s.price_cents ELSE (SELECT c.amount_cents FROM subscription_cycles c
        WHERE c.subscription_id = s.id AND c.kind = 'PERIOD' AND c.period_start <= ${t} AND c.created_at <= ${t} ORDER BY c.period_start DESC LIMIT 1) END`;
  // Each subscription's columns as of t0, t1 and d (d_*): its joins and price look-ups made once for all.
  const per = sql`
    SELECT
      pl.interval, pl.interval_count, pl.amount_cents AS plan_amount,
      -- Cancelled once it has ended: a cancellation to come changes nothing of the month (metricsOf reads it with ended_at).
      s.status = 'CANCELLED' AND s.ended_at <= ${t1} AS cancelled,
      ${placeOf('created_at', t0, t1)} AS created, ${placeOf('activated_at', t0, t1)} AS activated,
      ${placeOf('trial_end', t0, t1)} AS trial_end, ${placeOf('ended_at', t0, t1)} AS ended,
      s.at_start AND coalesce(h.p0, false) AS paused_start,
      s.at_end AND coalesce(h.p1, false) AS paused_end,
      -- The price billed for the period running at t: its cycle's (a cycle keeps the price it was created with).
      -- (price_cents, from price_since on; before that, looked up among the cycles).
      ${priceAt(t0, sql`s.at_start`)} AS amount_start,
      ${priceAt(t1, sql`s.at_end`)} AS amount_end,
      s.at_end AND coalesce(f.f1, false) AS past_due,
      s.created_at <= ${d} AS d_in,
      s.status = 'CANCELLED' AND s.ended_at <= ${d} AS d_cancelled,
      ${placeOf('created_at', t0, d, true)} AS d_created, ${placeOf('activated_at', t0, d, true)} AS d_activated,
      ${placeOf('trial_end', t0, d, true)} AS d_trial_end, ${placeOf('ended_at', t0, d, true)} AS d_ended,
      s.at_day AND coalesce(h.pd, false) AS d_paused_end,
      ${priceAt(d, sql`s.at_day`)} AS d_amount_end,
      s.at_day AND coalesce(f.fd, false) AS d_past_due
    FROM (
      -- A subscription's state at t matters only if it had started by t and not ended by it.
      SELECT s.id, s.plan_id, s.status, s.created_at, s.activated_at, s.trial_end, s.ended_at, s.price_cents, s.price_since,
        s.activated_at <= ${t0} AND (s.ended_at IS NULL OR s.ended_at > ${t0}) AS at_start,
        s.activated_at <= ${d} AND (s.ended_at IS NULL OR s.ended_at > ${d}) AS at_day,
        s.activated_at <= ${t1} AND (s.ended_at IS NULL OR s.ended_at > ${t1}) AS at_end
      FROM ${source}
    ) s
    JOIN subscription_plans pl ON pl.id = s.plan_id
    LEFT JOIN (
      SELECT h.subscription_id, bool_or(h.started_at <= ${t0} AND (h.ended_at IS NULL OR h.ended_at > ${t0})) AS p0,
        bool_or(h.started_at <= ${d} AND (h.ended_at IS NULL OR h.ended_at > ${d})) AS pd,
        bool_or(h.started_at <= ${t1} AND (h.ended_at IS NULL OR h.ended_at > ${t1})) AS p1
      FROM subscription_pauses h
      WHERE h.user_id = ${scope.userId} AND h.livemode = ${scope.livemode} AND h.started_at <= ${t1} AND (h.ended_at IS NULL OR h.ended_at > ${t0})
      GROUP BY h.subscription_id
    ) h ON h.subscription_id = s.id
    LEFT JOIN (
      -- Past due at t: a charge had failed by t and was neither paid nor withdrawn by t.
      SELECT c.subscription_id,
        bool_or(c.first_failed_at <= ${d} AND (c.paid_at IS NULL OR c.paid_at > ${d}) AND (c.voided_at IS NULL OR c.voided_at > ${d})) AS fd,
        bool_or((c.paid_at IS NULL OR c.paid_at > ${t1}) AND (c.voided_at IS NULL OR c.voided_at > ${t1})) AS f1
      FROM subscription_cycles c
      WHERE c.user_id = ${scope.userId} AND c.livemode = ${scope.livemode} AND c.first_failed_at IS NOT NULL AND c.first_failed_at <= ${t1}
      GROUP BY c.subscription_id
    ) f ON f.subscription_id = s.id`;
  const nowCols = sql`interval, interval_count, plan_amount, cancelled, created, activated, trial_end, ended, paused_start, paused_end, amount_start, amount_end, past_due`;
  const dayCols = sql`interval, interval_count, plan_amount, d_in, d_cancelled, d_created, d_activated, d_trial_end, d_ended, paused_start, d_paused_end, amount_start, d_amount_end, d_past_due`;
  if (!parts.day) return sql<Record<string, unknown>>`SELECT 'NOW' AS part, ${nowCols}, count(*) AS n FROM (${per}) p GROUP BY ${nowCols}`;
  if (!parts.now) {
    return sql<Record<string, unknown>>`
      SELECT 'DAY' AS part, interval, interval_count, plan_amount, d_cancelled AS cancelled, d_created AS created, d_activated AS activated, d_trial_end AS trial_end,
        d_ended AS ended, paused_start, d_paused_end AS paused_end, amount_start, d_amount_end AS amount_end, d_past_due AS past_due, count(*) AS n
      FROM (${per}) p WHERE d_in GROUP BY ${dayCols}`;
  }
  // Both, from one reading of each subscription: one grouping set each.
  const pick = (col: string) => sql.raw(`CASE WHEN GROUPING(d_in) = 1 THEN ${col} ELSE d_${col} END AS ${col}`);
  return sql<Record<string, unknown>>`
    SELECT CASE WHEN GROUPING(d_in) = 1 THEN 'NOW' WHEN d_in THEN 'DAY' END AS part, interval, interval_count, plan_amount, paused_start, amount_start,
      ${pick('cancelled')}, ${pick('created')}, ${pick('activated')}, ${pick('trial_end')}, ${pick('ended')}, ${pick('paused_end')}, ${pick('amount_end')}, ${pick('past_due')},
      count(*) AS n
    FROM (${per}) p
    GROUP BY GROUPING SETS ((${nowCols}), (${dayCols}))`;
}

/**
 * The day's movers (the statement's `moved` CTE): the subscriptions with something recorded at or
 * after d, the day's start (migration 024's indexes; the expressions are theirs), a trial's end only
 * once it has come (up to t1). A subscription's price is looked up among its cycles only before its
 * price_since, and it has no period cycle while price_since is NULL (migration 016), so a cycle
 * created since d moved price_since.
 */
function movedSql(scope: Scope, d: Date, t1: Date) {
  const cols = sql`s.id, s.plan_id, s.status, s.created_at, s.activated_at, s.trial_end, s.ended_at, s.price_cents, s.price_since`;
  const moved = sql`(s.created_at >= ${d} OR s.activated_at >= ${d} OR s.ended_at >= ${d} OR s.price_since >= ${d} OR (s.trial_end >= ${d} AND s.trial_end <= ${t1}))`;
  return sql`
    SELECT ${cols} FROM subscriptions s WHERE s.user_id = ${scope.userId} AND s.livemode = ${scope.livemode}
      AND greatest(s.created_at, s.activated_at, s.trial_end, s.ended_at, s.price_since) >= ${d} AND ${moved}
    UNION ALL
    -- The others with a pause or a failed charge that moved: each looked up by its key.
    SELECT x.* FROM (
      SELECT h.subscription_id AS id FROM subscription_pauses h WHERE h.user_id = ${scope.userId} AND h.livemode = ${scope.livemode} AND coalesce(h.ended_at, h.started_at) >= ${d}
      UNION
      SELECT c.subscription_id FROM subscription_cycles c WHERE c.user_id = ${scope.userId} AND c.livemode = ${scope.livemode}
        AND c.first_failed_at IS NOT NULL AND greatest(c.first_failed_at, c.paid_at, c.voided_at) >= ${d}
    ) m CROSS JOIN LATERAL (
      SELECT ${cols} FROM subscriptions s WHERE s.id = m.id AND s.user_id = ${scope.userId} AND s.livemode = ${scope.livemode} AND ${moved} IS NOT TRUE LIMIT 1
    ) x`;
}

// The planner cannot know how few groups there are (a few hundred): with the memory to hash them
// it groups 100,000 rows in one pass instead of sorting them on disk; JIT compiling costs more than it saves here.
// With the default random_page_cost (4, for spinning disks) a freshly vacuumed table looks cheaper to
// read whole than through the covering index (subscriptions_metrics), which is a fraction of its width.
const tune = (trx: Trx) => sql`SELECT set_config('work_mem', '32MB', true), set_config('jit', 'off', true), set_config('random_page_cost', '1.1', true)`.execute(trx);

/** All the merchant's rows for a pass (the reference: every subscription read). */
async function allRows(db: Executor, scope: Scope, t0: Date, t1: Date): Promise<Grouped[]> {
  return inTx(db, async (trx) => {
    await tune(trx);
    return (await groupedSql(scope, t0, t1, t1, { now: true }).execute(trx)).rows.map(grouped);
  });
}

/** DAY: the current month's snapshot as of its day's start; CLOSED: a closed month's rows. */
type Kind = 'DAY' | 'CLOSED';

/** The stored rows of a month as of `asOf`, if stored at the merchant's current history version. */
async function storedRows(trx: Trx, scope: Scope, month: string, kind: Kind, asOf: Date): Promise<Grouped[] | null> {
  const { rows } = await sql<{ rows: Record<string, unknown>[] }>`
    SELECT m.rows FROM subscription_metrics_months m
    WHERE m.user_id = ${scope.userId} AND m.livemode = ${scope.livemode} AND m.month = ${month} AND m.kind = ${kind} AND m.as_of = ${asOf}
      AND m.version = coalesce((SELECT v.version FROM subscription_metrics_versions v WHERE v.user_id = ${scope.userId} AND v.livemode = ${scope.livemode}), 0)`.execute(trx);
  return rows[0] ? rows[0].rows.map(grouped) : null;
}

/** Computes a month's rows over all the merchant's subscriptions and stores them, with the version read in the same statement. */
async function storeRows(db: Executor, scope: Scope, month: string, kind: Kind, t0: Date, asOf: Date): Promise<Grouped[]> {
  const rowsSql = groupedSql(scope, t0, asOf, asOf, kind === 'DAY' ? { day: true } : { now: true });
  return inTx(db, async (trx) => {
    await tune(trx);
    const { rows } = await sql<{ rows: Record<string, unknown>[] }>`
      INSERT INTO subscription_metrics_months AS m (user_id, livemode, month, kind, as_of, version, rows, computed_at)
      SELECT ${scope.userId}, ${scope.livemode}, ${month}, ${kind}, ${asOf},
        coalesce((SELECT v.version FROM subscription_metrics_versions v WHERE v.user_id = ${scope.userId} AND v.livemode = ${scope.livemode}), 0),
        coalesce((SELECT jsonb_agg(to_jsonb(g) - 'part') FROM (${rowsSql}) g), '[]'::jsonb), now()
      ON CONFLICT (user_id, livemode, month, kind) DO UPDATE SET as_of = excluded.as_of, version = excluded.version, rows = excluded.rows, computed_at = excluded.computed_at
        WHERE (m.version, m.as_of) <= (excluded.version, excluded.as_of)
      RETURNING m.rows`.execute(trx);
    // A concurrent request stored a later version meanwhile: these rows are still right for this one.
    return rows[0] ? rows[0].rows.map(grouped) : (await rowsSql.execute(trx)).rows.map(grouped);
  });
}

/**
 * The current month's rows: the day's stored snapshot, minus the day's movers' snapshot rows, plus
 * their rows as of t1; null when no snapshot of day d is stored at the current version. One
 * database snapshot (repeatable read), so that the stored rows and the movers agree.
 */
async function currentRows(db: Executor, primary: Executor, scope: Scope, month: string, t0: Date, d: Date, t1: Date): Promise<Grouped[] | null> {
  const read = async (trx: Trx) => {
    await tune(trx);
    const stored = await storedRows(trx, scope, month, 'DAY', d);
    if (!stored) return null;
    const { rows } = await sql<Record<string, unknown>>`
      WITH moved AS (${movedSql(scope, d, t1)})
      ${groupedSql(scope, t0, d, t1, { now: true, day: true }, true)}`.execute(trx);
    const sum = new Map<string, Grouped>();
    const add = (r: Grouped, sign: number) => {
      const k = KEY.map((c) => String(r[c])).join('|');
      const prev = sum.get(k);
      if (prev) prev.n += sign * r.n;
      else sum.set(k, { ...r, n: sign * r.n });
    };
    for (const r of stored) add(r, 1);
    for (const r of rows) if (r.part) add(grouped(r), r.part === 'DAY' ? -1 : 1);
    const out = [...sum.values()].filter((r) => r.n !== 0);
    // A mover whose snapshot row is not among the stored ones: the history changed without raising
    // the version (a write the triggers do not see). Not used; the caller reads every subscription.
    return out.some((r) => r.n < 0) ? 'stale' : out;
  };
  const result = db.isTransaction ? await read(db as Trx) : await (db as Db).transaction().setIsolationLevel('repeatable read').execute(read);
  if (result === 'stale') {
    await sql`DELETE FROM subscription_metrics_months WHERE user_id = ${scope.userId} AND livemode = ${scope.livemode} AND month = ${month} AND kind = 'DAY'`.execute(primary);
    return allRows(db, scope, t0, t1);
  }
  return result;
}

/** The month 'YYYY-MM' asked (default: the one `now` is in, São Paulo) and its instants. */
function monthWindow(month: string | undefined, now: Date) {
  const m = month ?? new Date(now.getTime() - 3 * 3600_000).toISOString().slice(0, 7);
  const bounds = monthBounds(m);
  // Up to now for the current month (nothing has happened after it); a future month is as of now.
  const end = bounds.end.getTime() > now.getTime() ? new Date(Math.max(now.getTime(), bounds.start.getTime()) + 1) : bounds.end;
  return { month: m, t0: bounds.start, t1: new Date(end.getTime() - 1), end };
}

function fromRows(w: ReturnType<typeof monthWindow>, rows: Grouped[]): Metrics {
  const at = (p: Place | null) => instantOf(p, w.t0, w.t1);
  return metricsOf(
    w.month,
    rows.map((r) => ({
      createdAt: at(r.created)!,
      activatedAt: at(r.activated),
      trialEnd: at(r.trial_end),
      endedAt: at(r.ended),
      cancelled: r.cancelled,
      pausedAtStart: r.paused_start,
      pausedAtEnd: r.paused_end,
      interval: r.interval,
      intervalCount: r.interval_count,
      amountAtStart: r.amount_start,
      amountAtEnd: r.amount_end,
      planAmount: r.plan_amount,
      pastDueAtEnd: r.past_due,
      count: r.n,
    })),
    w.t0,
    w.end,
  );
}

/** The start of the São Paulo day (UTC-3) an instant is in. */
const dayStart = (t: number) => new Date(Math.floor((t - 3 * 3600_000) / DAY_MS) * DAY_MS + 3 * 3600_000);
const DAY_MS = 86_400_000;

/**
 * Metrics of the merchant's subscriptions in `month` (default: the current São Paulo month). `db`
 * may be a read replica (db/read-router.ts): the stored rows are written on `primary`; a snapshot
 * the replica has not replayed yet is simply not found there (every subscription is read instead).
 */
export async function subscriptionMetrics(db: Executor, scope: Scope, month: string | undefined, now = new Date(), primary: Executor = db): Promise<Metrics> {
  const w = monthWindow(month, now);
  const { t0, t1 } = w;
  // Stored rows describe only what was recorded before the day the wall clock is in (the triggers' cutoff).
  const upTo = Math.min(now.getTime(), Date.now());
  if (t0.getTime() > upTo) return fromRows(w, await allRows(db, scope, t0, t1));
  const end = monthBounds(w.month).end;
  if (end.getTime() <= upTo) {
    const stored = await inTx(db, (trx) => storedRows(trx, scope, w.month, 'CLOSED', t1));
    return fromRows(w, stored ?? (await storeRows(primary, scope, w.month, 'CLOSED', t0, t1)));
  }
  const d = new Date(Math.max(dayStart(t1.getTime()).getTime(), t0.getTime()));
  let rows = await currentRows(db, primary, scope, w.month, t0, d, t1);
  if (!rows) {
    await storeRows(primary, scope, w.month, 'DAY', t0, d);
    // Stored at the version read then; after a backdated write since: every subscription is read.
    rows = (await currentRows(db, primary, scope, w.month, t0, d, t1)) ?? (await allRows(db, scope, t0, t1));
  }
  return fromRows(w, rows);
}

/** The reference: every subscription read, nothing stored (what the stored rows must always agree with; tests compare them). */
export async function subscriptionMetricsUncached(db: Executor, scope: Scope, month: string | undefined, now = new Date()): Promise<Metrics> {
  const w = monthWindow(month, now);
  return fromRows(w, await allRows(db, scope, w.t0, w.t1));
}
