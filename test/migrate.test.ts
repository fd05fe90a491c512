// Migrations on PostgreSQL while other schemas come and go: Kysely's migrator introspects every
// schema of the database, and one dropped during that query used to fail the migration (a test
// file's clean-up breaking another file's start). PostgreSQL only: PGlite has one database user.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { connect, migrate } from '../src/db/index.ts';
import { PG_URL } from './helpers.ts';

test('migrating a schema succeeds while other schemas are created and dropped beside it', { skip: !PG_URL && 'needs PostgreSQL (TEST_DATABASE_URL)' }, async () => {
  const url = PG_URL!;
  let stop = false;
  const churn = (async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      for (let i = 0; !stop && i < 5000; i++) {
        const s = `churn_${process.pid}_${i}`;
        await c.query(`CREATE SCHEMA ${s}; CREATE TABLE ${s}.t1 (a int, b text, c jsonb); CREATE TABLE ${s}.t2 (a int, b text)`);
        await c.query(`DROP SCHEMA ${s} CASCADE`);
      }
    } finally {
      await c.end();
    }
  })();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (let n = 0; n < 6; n++) {
      const schema = `migr_${process.pid}_${n}`;
      const database = await connect({ url, schema, poolSize: 2 });
      try {
        await migrate(database.db, schema);
        const { rows } = await admin.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'transactions'`, [schema]);
        assert.equal(rows[0].n, 1);
      } finally {
        await database.close();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      }
    }
  } finally {
    stop = true;
    await churn;
    await admin.end();
  }
});
