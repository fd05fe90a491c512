// Migration 048 on a database that already has history: every row survives the conversion (the old
// table attached as the legacy partition, a row minted past its bound moved to the new table), the
// old rows are still found by the statements of the running code, and `down` gives plain tables with
// every row back. Migrates from nothing: a fresh database, not the test template.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { connect, migratorOf } from '../src/db/index.ts';
import { uuidv7 } from '../src/db/ids.ts';
import { PARTITIONED } from '../src/db/partitions.ts';
import { dropSchema, PG_URL } from './helpers.ts';

const BEFORE = '046_sub_account_login';
const DAY = 86_400_000;

async function seed(db: Kysely<any>) {
  const user = uuidv7();
  await sql`INSERT INTO users (id, name, email, password_hash, referral_code) VALUES (${user}, 'Loja', 'loja@example.com', 'x', ${randomBytes(4).toString('hex')})`.execute(db);
  const ids: Record<string, string[]> = { events: [], webhook_deliveries: [], emails: [] };
  // A month of history, and rows minted for dates ahead, past the legacy partition's bound: 10 days
  // (a week partition made by the migration) and 60 days (none yet: the DEFAULT partition).
  const now = Date.now();
  for (const when of [now - 30 * DAY, now - DAY, now, now + 10 * DAY, now + 60 * DAY]) {
    const at = new Date(when);
    const id = uuidv7(when);
    await sql`INSERT INTO events (id, user_id, livemode, type, data, created_at) VALUES (${id}, ${user}, false, 'transaction.created', '{}', ${at})`.execute(db);
    await sql`INSERT INTO webhook_deliveries (id, user_id, livemode, event_id, event_type, url, body, status, next_attempt_at, created_at, updated_at)
      VALUES (${id}, ${user}, false, ${id}, 'transaction.created', 'https://example.invalid', '{}', 'SUCCEEDED', ${at}, ${at}, ${at})`.execute(db);
    await sql`INSERT INTO webhook_attempts (id, delivery_id, user_id, attempt, duration_ms, created_at) VALUES (gen_random_uuid(), ${id}, ${user}, 1, 3, ${at})`.execute(db);
    await sql`INSERT INTO emails (id, user_id, livemode, template, to_address, subject, text_body, html_body, status, created_at)
      VALUES (${id}, ${user}, false, 't', 'a@example.invalid', 's', 't', 'h', 'SENT', ${at})`.execute(db);
    await sql`INSERT INTO idempotency_keys (user_id, livemode, key, fingerprint, response_status, response_body, created_at, expires_at)
      VALUES (${user}, false, ${`k${when}`}, 'f', 201, '{}', ${at}, ${new Date(when + DAY)})`.execute(db);
    for (const t of Object.keys(ids)) ids[t].push(id);
  }
  return { user, ids, heldKey: `k${now}` };
}

const count = async (db: Kysely<any>, table: string) => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)).rows[0].n);
const relkind = async (db: Kysely<any>, table: string) => (await sql<{ k: string }>`SELECT relkind::text AS k FROM pg_class WHERE oid = to_regclass(${table})`.execute(db)).rows[0].k;

test('048 converts tables with rows into partitioned ones and back without losing a row', async () => {
  const schema = PG_URL ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const database = await connect({ url: PG_URL, dataDir: null, schema, poolSize: 2 });
  const db = database.db;
  const migrator = migratorOf(db, schema); // sees its own schema only: other files drop theirs meanwhile
  try {
    assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
    const { user, ids, heldKey } = await seed(db);
    const { error } = await migrator.migrateToLatest();
    assert.equal(error, undefined);
    for (const t of PARTITIONED) {
      assert.equal(await relkind(db, t.table), 'p', `${t.table} is partitioned`);
      assert.equal(await count(db, t.table), 5, `${t.table} kept its rows`);
    }
    // The history is in the legacy partition; the rows minted ahead moved into their week, or the DEFAULT partition.
    const where = await sql<{ p: string }>`SELECT tableoid::regclass::text AS p FROM events ORDER BY id`.execute(db);
    assert.deepEqual(
      where.rows.map((r) => r.p.replace(/\d{8}$/, '')),
      ['events_legacy_', 'events_legacy_', 'events_legacy_', 'events_p', 'events_default'],
    );
    // The running code's statements find the old rows: a key claimed before the migration still holds.
    const claim = sql<{ claimed: boolean }>`SELECT idempotency_claim(${user}, false, ${heldKey}, 'f', now(), now() + interval '1 day', now() - interval '1 minute') AS claimed`;
    assert.equal((await claim.execute(db)).rows[0].claimed, false);
    const joined = await sql`SELECT 1 FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id WHERE d.id = ANY(${ids.webhook_deliveries}::uuid[])`.execute(db);
    assert.equal(joined.rows.length, 5);

    assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
    for (const t of PARTITIONED) {
      assert.equal(await relkind(db, t.table), 'r', `${t.table} is a plain table again`);
      assert.equal(await count(db, t.table), 5, `${t.table} kept its rows going down`);
    }
    // And up again, as a deployment rolled back and forward would.
    assert.equal((await migrator.migrateToLatest()).error, undefined);
    assert.equal(await count(db, 'events'), 5);
  } finally {
    await database.close();
    await dropSchema(schema ?? null);
  }
});
