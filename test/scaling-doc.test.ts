// docs/scaling.md says how each table and each global unique value is handled when Cofre is split by
// merchant; this fails when the schema gains one the page does not name.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../src/db/index.ts';
import { dropSchema, openDatabase } from './helpers.ts';

const page = readFileSync(new URL('../docs/scaling.md', import.meta.url), 'utf8');
const named = (name: string) => page.includes(`\`${name}\``);
let database: Database;
let schema: string;

before(async () => {
  const opened = await openDatabase();
  database = opened.database;
  schema = opened.schema ?? 'public';
});
after(async () => {
  await database.close();
  await dropSchema(schema === 'public' ? null : schema);
});

test('every table without a user_id column is named on the page', async () => {
  const { rows } = await sql<{ t: string }>`
    SELECT c.relname::text AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'user_id' AND NOT a.attisdropped)`.execute(database.db);
  assert.ok(rows.some((r) => r.t === 'users'), 'the catalogue query sees the schema');
  assert.deepEqual(rows.map((r) => r.t).filter((t) => !named(t)), []);
});

test('every unique index that does not lead with user_id is named on the page', async () => {
  const { rows } = await sql<{ name: string; def: string }>`
    SELECT ic.relname::text AS name, pg_get_indexdef(i.indexrelid) AS def
    FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class tc ON tc.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = tc.relnamespace
    WHERE n.nspname = ${schema} AND i.indisunique AND NOT i.indisprimary AND NOT tc.relispartition AND NOT ic.relispartition`.execute(database.db);
  const global = rows.filter((r) => !/\(user_id\b/.test(r.def.slice(r.def.indexOf(' USING '))));
  assert.ok(global.some((r) => r.name === 'api_keys_key_hash_key'), 'the catalogue query sees the indexes');
  assert.deepEqual(global.map((r) => r.name).filter((n) => !named(n)), []);
});
