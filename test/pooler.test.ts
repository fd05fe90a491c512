// PostgreSQL behind PgBouncer in transaction mode (Debian's 1.18, as `npm run cluster` runs it): the
// pool detects the pooler and sends no named statement through it, and LISTEN through it refuses
// to start while DATABASE_LISTEN_URL (PostgreSQL itself) works. Needs TEST_DATABASE_URL and pgbouncer.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { PGBOUNCER, startPgbouncer } from '../scripts/cluster/pgbouncer.ts';
import { stopPid } from '../scripts/cluster/procs.ts';
import { ConfigError } from '../src/config.ts';
import { connect, migrate, type Database } from '../src/db/index.ts';
import { listeningAt, pooledConnection } from '../src/db/listen.ts';
import { freePort } from './helpers.ts';

const direct = process.env.TEST_DATABASE_URL;
const skip = !direct ? 'needs PostgreSQL (TEST_DATABASE_URL)' : !existsSync(PGBOUNCER) ? `${PGBOUNCER} is not installed (apt-get install pgbouncer)` : false;

describe('PgBouncer in transaction mode', { skip }, () => {
  const target = new URL(direct ?? 'postgres://x@127.0.0.1/test');
  const database = target.pathname.slice(1);
  let port = 0;
  let pooled = '';
  const dir = mkdtempSync(join(tmpdir(), 'cofre-pooler-'));
  // PgBouncer 1.18 refuses the `options` a schema is usually given in: it sets the search path itself.
  const schema = `pooler_${process.pid}`;
  const admin = new pg.Client({ connectionString: direct });
  let pid = 0;
  let db: Database;

  before(async () => {
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
    port = await freePort();
    pooled = `postgres://${target.username}@127.0.0.1:${port}/${database}`;
    pid = await startPgbouncer({ dir, port, serverPort: Number(target.port || 5432), database, user: target.username, poolSize: 3, connectQuery: `SET search_path = ${schema}` });
    db = await connect({ url: pooled, poolSize: 6 });
  });
  after(async () => {
    await db?.close();
    if (pid) await stopPid(pid);
    rmSync(dir, { recursive: true, force: true });
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  test('migrations through it leave no lock held on its server connections (the next start would wait for it)', async () => {
    // Other clients keep the server connections changing hands, as on a loaded cluster.
    let busy = true;
    const noise = Array.from({ length: 4 }, async () => {
      while (busy) await sql`SELECT pg_sleep(0.001)`.execute(db.db);
    });
    try {
      await migrate(db.db);
      await migrate(db.db);
    } finally {
      busy = false;
      await Promise.all(noise);
    }
    const console_ = new pg.Client({ connectionString: `postgres://${target.username}@127.0.0.1:${port}/pgbouncer` });
    await console_.connect();
    const servers = (await console_.query('SHOW SERVERS')).rows.map((r) => Number(r.remote_pid));
    await console_.end();
    const { rows } = await admin.query("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND pid = ANY($1)", [servers]);
    assert.deepEqual(rows, []);
  });

  test('the pooler is told from a direct connection by the cancel key it makes up', async () => {
    for (const [url, expected] of [[pooled, true], [direct, false]] as const) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      assert.equal(await pooledConnection(c), expected, url);
      await c.end();
    }
  });

  test('statements repeated from many connections run through it (no named statement is sent)', async () => {
    // Named, the third sighting would be prepared on one server connection and run on another.
    const runs = Array.from({ length: 60 }, (_, i) => sql<{ n: number }>`SELECT ${i}::int AS n`.execute(db.db));
    const rows = (await Promise.all(runs)).map((r) => r.rows[0].n);
    assert.deepEqual(rows, Array.from({ length: 60 }, (_, i) => i));
  });

  test('LISTEN through it refuses to start; DATABASE_LISTEN_URL at PostgreSQL hears what the pool sends', async () => {
    await assert.rejects(db.listen('cofre_pooler_test', () => {}), (err) => err instanceof ConfigError && /DATABASE_LISTEN_URL/.test(err.message));
    const heard: string[] = [];
    const stop = await listeningAt(db, direct as string).listen('cofre_pooler_test', (p) => heard.push(p));
    await sql`SELECT pg_notify('cofre_pooler_test', 'hello')`.execute(db.db);
    for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await stop();
    assert.deepEqual(heard, ['hello']);
  });
});
