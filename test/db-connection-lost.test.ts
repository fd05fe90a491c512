// A pooled connection that PostgreSQL (or PgBouncer restarting) closes while a transaction holds it
// between two statements: pg-pool listens for errors on idle clients only, so a checked-out one
// emitted an unhandled 'error' and the whole process died (found by `npm run rehearsal`: every API
// and worker process went when PgBouncer restarted). The transaction must fail, the process live on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { connect, inTx, type Database } from '../src/db/index.ts';

const url = process.env.TEST_DATABASE_URL;

describe('a connection lost inside a transaction', { skip: !url && 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  let database: Database;
  const admin = new pg.Client({ connectionString: url });
  before(async () => {
    database = await connect({ url: url as string, poolSize: 2 });
    await admin.connect();
  });
  after(async () => {
    await database?.close();
    await admin.end();
  });

  test('fails that transaction only; the pool goes on with new connections', async () => {
    // Without a listener the client's 'error' is an uncaught exception (it fails this test; a process dies).
    const lost = inTx(database.db, async (trx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
        await new Promise((r) => setTimeout(r, 200)); // the connection ends while no statement runs
        await sql`SELECT 1`.execute(trx);
      });
    await assert.rejects(lost);
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(database.db);
    assert.equal(rows[0].one, 1);
  });
});
