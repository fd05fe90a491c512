// Week partitions of the append-only tables that grow with traffic (docs/decisions.md, "History
// partitioned by week"). A partition per UTC week (Monday to Monday), made ahead by ensurePartitions
// (at migration and from a background job), and dropped whole by dropExpiredPartitions once its
// retention is over and no live flow needs a row of it. Rows outside every week partition (an id
// minted for a far date) land in the table's DEFAULT partition, so no insert fails because the job
// did not run. A week, not a day: a list that is not pruned (a merchant's newest deliveries) plans
// every partition, and 90 days of events are 13 weeks but 90 days.
import { sql, type Kysely } from 'kysely';
import type { Retention } from '../config-retention.ts';

export const DAY_MS = 86_400_000;
/** The span of one partition. */
export const PERIOD_MS = 7 * DAY_MS;

/** How a table is partitioned: on a UUIDv7 column (its first 48 bits are the time) or on a date column. */
export interface PartitionedTable {
  table: string;
  column: string;
  kind: 'uuid' | 'date';
}

// webhook_attempts follows its delivery (RANGE on delivery_id with the same bounds), so a week of
// deliveries and its attempts go together; it is listed after webhook_deliveries and dropped first.
export const PARTITIONED: PartitionedTable[] = [
  { table: 'events', column: 'id', kind: 'uuid' },
  { table: 'webhook_deliveries', column: 'id', kind: 'uuid' },
  { table: 'webhook_attempts', column: 'delivery_id', kind: 'uuid' },
  { table: 'emails', column: 'id', kind: 'uuid' },
  { table: 'idempotency_keys', column: 'day', kind: 'date' },
];

/** Partitions reach at least this many days past now: the job runs hourly, so this is slack for a stopped fleet. */
export const DAYS_AHEAD = 14;

/** Start of the UTC day of `at`, in ms. */
export const dayStart = (at: Date | number) => Math.floor(new Date(at).getTime() / DAY_MS) * DAY_MS;

/** Start of the UTC week (Monday 00:00) of `at`, in ms: 1970-01-05 was a Monday. */
export const weekStart = (at: Date | number) => Math.floor((new Date(at).getTime() - 4 * DAY_MS) / PERIOD_MS) * PERIOD_MS + 4 * DAY_MS;

/** YYYYMMDD of the UTC day starting at `ms`. */
export const dayName = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

const fromName = (yyyymmdd: string) => Date.UTC(+yyyymmdd.slice(0, 4), +yyyymmdd.slice(4, 6) - 1, +yyyymmdd.slice(6, 8));

/** The bound of a partition at the instant `ms` (a day's start): the least UUIDv7 of that millisecond, or the date. */
export function bound(kind: PartitionedTable['kind'], ms: number): string {
  if (kind === 'date') return new Date(ms).toISOString().slice(0, 10);
  const h = ms.toString(16).padStart(12, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-0000-0000-000000000000`;
}

/** A partition of `table`: its name and the day its range ends (exclusive), from the name. */
export interface Partition {
  name: string;
  /** ms of the end of its range: a week partition's next Monday, the legacy partition's named day. */
  end: number;
}

/** The week partitions of `table` (named by their Monday) and its legacy partition (the table as it was before partitioning), oldest first. */
export async function partitionsOf(db: Kysely<any>, table: string): Promise<Partition[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = to_regclass(${table})`.execute(db);
  const out: Partition[] = [];
  for (const { name } of rows) {
    const m = name.slice(table.length).match(/^_(p|legacy_)(\d{8})$/);
    if (m) out.push({ name, end: fromName(m[2]) + (m[1] === 'p' ? PERIOD_MS : 0) });
  }
  return out.sort((a, b) => a.end - b.end);
}

/** A partition filled with rows moved from the DEFAULT one, to be attached once every move is done. */
type Attach = { t: PartitionedTable; name: string; lo: string; hi: string };

/**
 * Creates the week partitions of `t` from the end of its last one (or `from`) until one covers
 * `until`, so the weeks stay contiguous. Rows the DEFAULT partition holds in a new week's range (an
 * id minted for that week before the partition existed) are moved into a table of their own, to be
 * attached by the caller (`attach`): PostgreSQL refuses a partition whose rows sit in the default.
 */
async function extend(db: Kysely<any>, t: PartitionedTable, from: number, until: number, attach: Attach[]): Promise<number> {
  const existing = await partitionsOf(db, t.table);
  let made = 0;
  for (let start = existing.at(-1)?.end ?? from; start <= until; start += PERIOD_MS) {
    const name = `${t.table}_p${dayName(start)}`;
    const lo = bound(t.kind, start);
    const hi = bound(t.kind, start + PERIOD_MS);
    const col = sql.ref(t.column);
    const stray = sql`${col} >= ${lo} AND ${col} < ${hi}`;
    const { rows } = await sql`SELECT 1 FROM ${sql.table(`${t.table}_default`)} WHERE ${stray} LIMIT 1`.execute(db);
    if (!rows.length) {
      await sql`CREATE TABLE IF NOT EXISTS ${sql.table(name)} PARTITION OF ${sql.table(t.table)} FOR VALUES FROM (${sql.lit(lo)}) TO (${sql.lit(hi)})`.execute(db);
    } else {
      await sql`CREATE TABLE ${sql.table(name)} (LIKE ${sql.table(t.table)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`.execute(db);
      await sql`WITH m AS (DELETE FROM ${sql.table(`${t.table}_default`)} WHERE ${stray} RETURNING *) INSERT INTO ${sql.table(name)} SELECT * FROM m`.execute(db);
      attach.push({ t, name, lo, hi });
    }
    made++;
  }
  return made;
}

// Rows leave the DEFAULT partitions referencing side first (a delivery cannot leave while its
// attempts there point at it), and partitions are attached the other way round (an attempt's
// foreign key is checked on attaching, against its delivery).
const referencingFirst = (a: PartitionedTable, b: PartitionedTable) => Number(b.table === 'webhook_attempts') - Number(a.table === 'webhook_attempts');

/**
 * Runs `work` in one transaction under a transaction-level advisory lock, or not at all when another
 * process holds it (it is doing the same work). A short lock_timeout: DDL on a partition waits for
 * its parent's lock, and every insert would queue behind it; a timeout is retried on the next run.
 */
async function exclusively(db: Kysely<any>, work: (trx: Kysely<any>) => Promise<number>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${PARTITION_LOCK}) AS ok`.execute(trx);
    if (!rows[0].ok) return 0;
    await sql`SET LOCAL lock_timeout = '5s'`.execute(trx);
    return work(trx);
  });
}

/** One lock for the partition work of every process. */
const PARTITION_LOCK = 4_020_101;

/** Makes the week partitions of every partitioned table through `ahead` days after `now` (in the caller's transaction). */
export async function makePartitions(db: Kysely<any>, now = new Date(), ahead = DAYS_AHEAD): Promise<number> {
  let made = 0;
  const attach: Attach[] = [];
  for (const t of [...PARTITIONED].sort(referencingFirst)) made += await extend(db, t, weekStart(now), now.getTime() + ahead * DAY_MS, attach);
  for (const a of attach.sort((x, y) => referencingFirst(y.t, x.t))) {
    await sql`ALTER TABLE ${sql.table(a.t.table)} ATTACH PARTITION ${sql.table(a.name)} FOR VALUES FROM (${sql.lit(a.lo)}) TO (${sql.lit(a.hi)})`.execute(db);
  }
  return made;
}

/** makePartitions from a background job: one process at a time. Returns how many partitions were made. */
export const ensurePartitions = (db: Kysely<any>, now = new Date(), ahead = DAYS_AHEAD) => exclusively(db, (trx) => makePartitions(trx, now, ahead));

/** A row of the partition a live flow still needs: a delivery still being retried, an e-mail not sent yet. */
const STILL_NEEDED: Record<string, string> = { webhook_deliveries: "status = 'PENDING'", emails: "status = 'QUEUED'" };

/**
 * Drops the partitions whose whole range is past its retention at `now` (never the DEFAULT one),
 * keeping any that still holds a row a live flow needs. Returns how many were dropped.
 */
export async function dropExpiredPartitions(db: Kysely<any>, retention: Retention, now = new Date()): Promise<number> {
  const keepMs: Record<string, number> = {
    events: retention.eventDays * DAY_MS,
    webhook_deliveries: retention.webhookDeliveryDays * DAY_MS,
    emails: retention.emailDays * DAY_MS,
    idempotency_keys: Math.max(24, retention.idempotencyHours) * 3_600_000,
  };
  return exclusively(db, async (trx) => {
    let dropped = 0;
    for (const table of Object.keys(keepMs)) {
      for (const p of await partitionsOf(trx, table)) {
        if (p.end + keepMs[table] > now.getTime()) break;
        const needed = STILL_NEEDED[table];
        if (needed && (await sql`SELECT 1 FROM ${sql.table(p.name)} WHERE ${sql.raw(needed)} LIMIT 1`.execute(trx)).rows.length) continue;
        // A week of deliveries goes with its attempts (same bounds, same suffix): they reference it.
        if (table === 'webhook_deliveries') await detachAndDrop(trx, 'webhook_attempts', `webhook_attempts${p.name.slice(table.length)}`);
        await detachAndDrop(trx, table, p.name);
        dropped++;
      }
    }
    return dropped;
  });
}

/** Detaches and drops one partition (a partition referenced by a foreign key cannot be dropped attached). */
async function detachAndDrop(db: Kysely<any>, table: string, partition: string): Promise<void> {
  const { rows } = await sql<{ r: string | null }>`SELECT to_regclass(${partition})::text AS r`.execute(db);
  if (!rows[0].r) return;
  await sql`ALTER TABLE ${sql.table(table)} DETACH PARTITION ${sql.table(partition)}`.execute(db);
  await sql`DROP TABLE ${sql.table(partition)}`.execute(db);
}
