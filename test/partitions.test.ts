// The week partitions of the tables that grow with traffic (src/db/partitions.ts, migration 048):
// made ahead, strays from the DEFAULT partition moved into their week, lists and lookups across
// weeks, an Idempotency-Key held across a partition boundary, and retention that drops whole weeks only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { sql } from 'kysely';
import { uuidv7 } from '../src/db/ids.ts';
import { DAYS_AHEAD, dayName, dayStart, dropExpiredPartitions, ensurePartitions, PARTITIONED, partitionsOf, PERIOD_MS, weekStart } from '../src/db/partitions.ts';
import { call, merchant, PG_URL } from './helpers.ts';
import { assert400 } from './kit/assert.ts';
import { DAY, body, ctx, post, txCount, useTransactionsApp } from './transactions-kit.ts';

useTransactionsApp();

const db = () => ctx.database.db;
const today = dayStart(Date.now());
/** An instant `days` days from today's start, plus `ms`. */
const at = (days: number, ms = 3_600_000) => new Date(today + days * DAY + ms);

async function event(userId: string, when: Date) {
  const id = uuidv7(when.getTime());
  await sql`INSERT INTO events (id, user_id, livemode, type, data, created_at) VALUES (${id}, ${userId}, false, 'transaction.created', '{}', ${when})`.execute(db());
  return id;
}

async function delivery(userId: string, when: Date, status: 'PENDING' | 'SUCCEEDED') {
  const id = uuidv7(when.getTime());
  await sql`INSERT INTO webhook_deliveries (id, user_id, livemode, event_id, event_type, url, body, status, next_attempt_at, created_at, updated_at)
    VALUES (${id}, ${userId}, false, ${uuidv7(when.getTime())}, 'transaction.created', 'https://example.invalid/hook', '{}', ${status}, ${when}, ${when}, ${when})`.execute(db());
  await sql`INSERT INTO webhook_attempts (id, delivery_id, user_id, attempt, duration_ms, created_at) VALUES (gen_random_uuid(), ${id}, ${userId}, 1, 5, ${when})`.execute(db());
  return id;
}

async function email(userId: string, when: Date, status: 'QUEUED' | 'SENT') {
  const id = uuidv7(when.getTime());
  await sql`INSERT INTO emails (id, user_id, livemode, template, to_address, subject, text_body, html_body, status, created_at)
    VALUES (${id}, ${userId}, false, 'test', 'a@example.invalid', 's', 't', 'h', ${status}, ${when})`.execute(db());
  return id;
}

async function idemKey(userId: string, when: Date) {
  const key = `k-${when.getTime()}`;
  await sql`INSERT INTO idempotency_keys (user_id, livemode, key, fingerprint, created_at, expires_at, day)
    VALUES (${userId}, false, ${key}, 'f', ${when}, ${new Date(when.getTime() + DAY)}, ${when.toISOString().slice(0, 10)})`.execute(db());
  return key;
}

const exists = async (table: string, column: string, value: string) =>
  (await sql`SELECT 1 FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${value}`.execute(db())).rows.length === 1;
/** The name of `table`'s week partition holding the instant `when`. */
const weekOf = (table: string, when: Date) => `${table}_p${dayName(weekStart(when))}`;
const partitionOf = async (table: string, id: string) =>
  (await sql<{ p: string }>`SELECT tableoid::regclass::text AS p FROM ${sql.table(table)} WHERE id = ${id}`.execute(db())).rows[0]?.p;

describe('week partitions', () => {
  test('each table has its weeks made ahead; running the job again makes none', async () => {
    await ensurePartitions(db());
    for (const t of PARTITIONED) {
      const weeks = await partitionsOf(db(), t.table);
      assert.ok(weeks.at(-1)!.end > Date.now() + DAYS_AHEAD * DAY, `${t.table} reaches ${DAYS_AHEAD} days ahead`);
      for (let i = 1; i < weeks.length; i++) assert.equal(weeks[i].end - weeks[i - 1].end, PERIOD_MS, `${t.table}: contiguous weeks`);
      assert.equal(new Date(weeks[1].end).getUTCDay(), 1, 'a week ends on a Monday');
    }
    assert.equal(await ensurePartitions(db()), 0);
  });

  test('a row is written to its week, and a lookup by id reads that partition alone', async () => {
    const m = await merchant(ctx.app);
    const id = await event(m.id, at(7));
    assert.equal(await partitionOf('events', id), weekOf('events', at(7)));
    const { rows } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT * FROM events WHERE id = ${sql.lit(id)}`.execute(db());
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    assert.deepEqual(plan.match(/events_\w+/g)?.filter((n) => !n.endsWith('_pkey')), [weekOf('events', at(7))], plan);
  });

  test('a row minted for a week without a partition lands in the DEFAULT one and moves to its week when that is made', async () => {
    const m = await merchant(ctx.app);
    const id = await event(m.id, at(DAYS_AHEAD + 14));
    assert.equal(await partitionOf('events', id), 'events_default');
    assert.ok((await ensurePartitions(db(), at(21))) >= PARTITIONED.length);
    assert.equal(await partitionOf('events', id), weekOf('events', at(DAYS_AHEAD + 14)));
  });

  test('a list pages across weeks', async () => {
    const m = await merchant(ctx.app);
    const ids = [await delivery(m.id, at(0, 60_000), 'SUCCEEDED'), await delivery(m.id, at(7), 'SUCCEEDED'), await delivery(m.id, at(14), 'PENDING')];
    assert.equal(new Set(await Promise.all(ids.map((id) => partitionOf('webhook_deliveries', id)))).size, 3);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; raw: string; body: any } = await call(ctx.app, 'GET', `/api/v1/webhooks/deliveries?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { key: m.devKey });
      assert.equal(page.status, 200, page.raw);
      seen.push(...page.body.deliveries.map((d: { id: string }) => d.id));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    assert.deepEqual([...seen].sort(), [...ids].sort());
  });

  test('an Idempotency-Key stored in another week partition is replayed, or refused with another body', async () => {
    const m = await merchant(ctx.app);
    const b = body({ amountCents: 4321 });
    const first = await post(m.devKey, b, { 'idempotency-key': 'across-days' });
    assert.equal(first.status, 201, first.raw);
    // The stored key moves to another week's partition: the unique index of a week no longer sees it.
    await sql`UPDATE idempotency_keys SET day = day + 7 WHERE user_id = ${m.id} AND key = 'across-days'`.execute(db());
    const again = await post(m.devKey, b, { 'idempotency-key': 'across-days' });
    assert.equal(again.status, 201, again.raw);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    assert400(await post(m.devKey, body({ amountCents: 999 }), { 'idempotency-key': 'across-days' }), 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(await txCount(m.id), 1);
    const { rows } = await sql`SELECT 1 FROM idempotency_keys WHERE user_id = ${m.id} AND key = 'across-days'`.execute(db());
    assert.equal(rows.length, 1, 'one row per key');
  });

  test('a claim waits for another transaction writing the same key into another week, then finds it taken', { skip: !PG_URL && 'needs two connections (PostgreSQL)' }, async () => {
    const m = await merchant(ctx.app);
    const options = ctx.schema ? `-c search_path=${ctx.schema}` : undefined;
    const [a, b] = [new pg.Client({ connectionString: PG_URL!, options }), new pg.Client({ connectionString: PG_URL!, options })];
    await Promise.all([a.connect(), b.connect()]);
    const claim = `SELECT idempotency_claim($1, false, 'racing', 'f', now(), now() + interval '1 day', now() - interval '1 minute') AS claimed`;
    try {
      await a.query('BEGIN');
      assert.equal((await a.query(claim, [m.id])).rows[0].claimed, true);
      await a.query(`UPDATE idempotency_keys SET day = day + 7 WHERE user_id = $1 AND key = 'racing'`, [m.id]);
      let settled = false;
      const second = b.query(claim, [m.id]).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(settled, false, 'the second claim waits for the key');
      await a.query('COMMIT');
      assert.equal((await second).rows[0].claimed, false);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  // Last: it drops this week's partitions too (its clock is weeks ahead).
  test('retention drops whole weeks past their time, never one a live flow needs, never the DEFAULT partition', async () => {
    const m = await merchant(ctx.app);
    const [A, B] = [7, 14];
    const oldRows = { event: await event(m.id, at(A)), delivery: await delivery(m.id, at(A), 'SUCCEEDED'), email: await email(m.id, at(A), 'SENT'), key: await idemKey(m.id, at(A)) };
    const live = { event: await event(m.id, at(B)), delivery: await delivery(m.id, at(B), 'PENDING'), email: await email(m.id, at(B), 'QUEUED'), key: await idemKey(m.id, at(B)) };
    const later = await event(m.id, at(B + 7));
    const endB = weekStart(at(B)) + PERIOD_MS;
    const short = { eventDays: 1, webhookDeliveryDays: 1, emailDays: 1, idempotencyHours: 1 };

    // 23 h after B's week: A's week is gone whole; B's keys stay (a key lives 24 h whatever is asked).
    assert.ok((await dropExpiredPartitions(db(), short, new Date(endB + 23 * 3_600_000))) > 0);
    assert.equal(await exists('events', 'id', oldRows.event), false);
    assert.equal(await exists('webhook_deliveries', 'id', oldRows.delivery), false);
    assert.equal(await exists('webhook_attempts', 'delivery_id', oldRows.delivery), false);
    assert.equal(await exists('emails', 'id', oldRows.email), false);
    assert.equal(await exists('idempotency_keys', 'key', oldRows.key), false);
    assert.equal(await exists('idempotency_keys', 'key', live.key), true);
    assert.equal(await exists('events', 'id', live.event), true);

    // A day later: B's events and keys go; its PENDING delivery and QUEUED e-mail keep their weeks.
    await dropExpiredPartitions(db(), short, new Date(endB + DAY + 60_000));
    assert.equal(await exists('events', 'id', live.event), false);
    assert.equal(await exists('idempotency_keys', 'key', live.key), false);
    assert.equal(await exists('webhook_deliveries', 'id', live.delivery), true);
    assert.equal(await exists('webhook_attempts', 'delivery_id', live.delivery), true);
    assert.equal(await exists('emails', 'id', live.email), true);
    assert.equal(await exists('events', 'id', later), true);

    // Once delivered and sent (every row of those weeks: the list test left a PENDING one in B's), those weeks go too, attempts with their deliveries.
    await sql`UPDATE webhook_deliveries SET status = 'SUCCEEDED' WHERE status = 'PENDING'`.execute(db());
    await sql`UPDATE emails SET status = 'SENT' WHERE status = 'QUEUED'`.execute(db());
    await dropExpiredPartitions(db(), short, new Date(endB + DAY + 60_000));
    assert.equal(await exists('webhook_deliveries', 'id', live.delivery), false);
    assert.equal(await exists('webhook_attempts', 'delivery_id', live.delivery), false);
    assert.equal(await exists('emails', 'id', live.email), false);
    for (const t of PARTITIONED) {
      const { rows } = await sql<{ r: string | null }>`SELECT to_regclass(${`${t.table}_default`})::text AS r`.execute(db());
      assert.ok(rows[0].r, `${t.table}_default stays`);
    }
  });
});
