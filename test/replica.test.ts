// Reads from a streaming replica, on two real clusters: a primary and a pg_basebackup replica made
// by scripts/pg-pair.ts on two free loopback ports of 55400-55499. A read is shown to come from the
// replica by pausing the replica's replay (pg_wal_replay_pause) and changing a row on the primary
// through a second app instance (another process, as far as read-your-writes goes): the list shows
// the old row. Lists past REPLICA_MAX_LAG_MS, the writing merchant's own reads, reads with the replica
// stopped and every money decision are shown to see the primary's row.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { freePorts, removePair, startPgPair, startReplica, stopReplica, type PgPair } from '../scripts/pg-pair.ts';
import { connect, migrate, type Database } from '../src/db/index.ts';
import { parseLsn, type ProbeSample } from '../src/db/read-router.ts';
import type { App } from '../src/deps.ts';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { appConfig, appOver, call, cpf, merchant, onPostgres, REDIS_URL, type Merchant } from './helpers.ts';
import { paidPix, pixFee } from './wallet-helpers.ts';

// The PostgreSQL pass only: the pair is made of PostgreSQL's server binaries (initdb, pg_basebackup),
// and the embedded PGlite of the default pass has no replication to test.
const skip = onPostgres ? false : 'needs the PostgreSQL pass (TEST_DATABASE_URL) and its server binaries: PGlite has no streaming replication';

/** The bound of `strict`, the instance that shows reads leaving a replica that falls behind. */
const STRICT_LAG_MS = 1500;
const silent = () => new Writable({ write: (_c, _e, cb) => cb() });

/** Polls `cond` every 20 ms until it holds (or fails the test after `ms`). */
async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every GET that may read the replica, with the credential each accepts. */
const REPLICA_READS: { url: string; via: 'key' | 'token' }[] = [
  { url: '/api/v1/transactions', via: 'key' },
  { url: '/api/v1/transactions/export', via: 'key' },
  { url: '/api/v1/reports/summary', via: 'key' },
  { url: '/api/v1/reports/timeseries', via: 'key' },
  { url: '/api/affiliate/marketplace', via: 'token' },
  { url: '/api/affiliate/programs', via: 'token' },
  { url: '/api/v1/subscriptions', via: 'key' },
  { url: '/api/v1/subscriptions/plans', via: 'key' },
  { url: '/api/v1/subscriptions/metrics', via: 'key' },
  { url: '/api/withdraws', via: 'key' },
  { url: '/api/v1/balance/entries', via: 'key' },
  { url: '/api/clients', via: 'key' },
  { url: '/api/v1/products', via: 'key' },
  { url: '/api/v1/coupons', via: 'key' },
  { url: '/api/advances', via: 'key' },
  { url: '/api/v1/payment-links', via: 'key' },
  { url: '/api/v1/cart-abandonments', via: 'key' },
  { url: '/api/v1/audit-log', via: 'token' },
  { url: '/api/v1/audit-log?format=csv', via: 'token' },
  { url: '/api/affiliate/stats', via: 'token' },
  { url: '/api/affiliate/commissions', via: 'token' },
  { url: '/api/referral/stats', via: 'token' },
  { url: '/api/referral/rewards', via: 'token' },
  { url: '/api/v1/splits', via: 'key' },
  { url: '/api/v1/splits/summary', via: 'key' },
];

describe('reads from a streaming replica (two real clusters)', { skip }, () => {
  let pair: PgPair | undefined;
  let database: Database;
  /** The instance under test, with a bound (60 s) no slow machine reaches during a test. */
  let app: App;
  /** REPLICA_MAX_LAG_MS=1500: reads leave the replica once it is that far behind. */
  let strict: App;
  /** Another instance over the same pair that tolerates any lag: writes made through it are not app's merchant's own. */
  let other: App;
  let replica: pg.Client;
  let env: Record<string, string>;

  before(async () => {
    const [primaryPort, replicaPort] = await freePorts(2, 55400, 55499);
    pair = await startPgPair({ dir: mkdtempSync(join(tmpdir(), 'cofre-replica-')), primaryPort, replicaPort });
    database = await connect({ url: pair.primaryUrl, poolSize: 10 });
    await migrate(database.db);
    env = { DATABASE_URL: pair.primaryUrl, DATABASE_REPLICA_URL: pair.replicaUrl, REPLICA_PROBE_INTERVAL_MS: '50' };
    const instance = (lag: number) => appOver(appConfig({ ...env, REPLICA_MAX_LAG_MS: String(lag) }), database, { limiter: new MemoryLimiter(), logStream: silent() });
    app = await instance(60_000);
    strict = await instance(STRICT_LAG_MS);
    other = await instance(3_600_000);
    replica = new pg.Client({ connectionString: pair.replicaUrl });
    replica.on('error', () => {});
    await replica.connect();
    await until('the replica is in use', () => [app, strict, other].every((a) => a.deps.reads.status().inUse));
  });

  after(async () => {
    await replica?.end().catch(() => {});
    await other?.close();
    await strict?.close();
    await app?.close();
    await database?.close();
    if (pair) await removePair(pair);
  });

  const pause = async () => {
    await replica.query('SELECT pg_wal_replay_pause()');
    await until('replay is paused', async () => (await replica.query('SELECT pg_get_wal_replay_pause_state() AS s')).rows[0].s === 'paused');
  };
  const resume = () => replica.query('SELECT pg_wal_replay_resume()');
  /** A probe's sample taken as db/replica.ts takes it: the primary's insert position, then the replica's replay position. */
  const sampleNow = async (): Promise<ProbeSample> => {
    const startedAt = performance.now();
    const p = await database.pg!.pool.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
    const r = await replica.query<{ lsn: string }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
    return { startedAt, primaryLsn: parseLsn(p.rows[0].lsn), replayLsn: parseLsn(r.rows[0].lsn) };
  };
  const onReplica = (a: App, m: Merchant) => a.deps.reads.for({ userId: m.id }) === a.deps.reads.replica;
  const newPix = async (a: App, m: Merchant) => {
    const res = await call(a, 'POST', '/api/v1/transactions', { key: m.devKey, body: { product: 'Curso', amountCents: 1000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'PIX' } });
    assert.equal(res.status, 201, res.raw);
    return res.body.transaction.id as string;
  };
  const statusIn = async (a: App, m: Merchant, id: string) => {
    const res = await call(a, 'GET', '/api/v1/transactions', { key: m.devKey });
    assert.equal(res.status, 200, res.raw);
    return res.body.transactions.find((t: { id: string }) => t.id === id)?.status as string | undefined;
  };
  const paidThroughOther = async (m: Merchant, id: string) => {
    const res = await call(other, 'POST', `/api/v1/transactions/${id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
    assert.equal(res.status, 200, res.raw);
  };
  /** A merchant with a PENDING PIX that the replica has (its own write replayed there). */
  const merchantWithPix = async () => {
    const m = await merchant(app);
    const id = await newPix(app, m);
    await until('the replica has replayed the merchant write', () => onReplica(app, m));
    return { m, id };
  };
  const everyReadAnswers = async (m: Merchant, through = app) => {
    for (const r of REPLICA_READS) {
      const res = await call(through, 'GET', r.url, r.via === 'key' ? { key: m.devKey } : { token: m.token });
      assert.equal(res.status, 200, `${r.url}: ${res.raw}`);
    }
  };

  test('a list reads the replica; once the replica is REPLICA_MAX_LAG_MS behind, the primary', async () => {
    const { m, id } = await merchantWithPix();
    await everyReadAnswers(m); // none of them writes: the replica would refuse
    await pause();
    try {
      await paidThroughOther(m, id);
      assert.equal(await statusIn(app, m, id), 'PENDING', 'the list came from the paused replica');
      await until('the replica is taken out for lag', () => !strict.deps.reads.status().inUse, STRICT_LAG_MS + 2000);
      assert.match(strict.deps.reads.status().reason, /behind by more than 1500 ms/);
      assert.equal(await statusIn(strict, m, id), 'PAID', 'past its bound the list reads the primary');
      assert.equal(await statusIn(app, m, id), 'PENDING', 'at the same moment, within its larger bound, the replica');
    } finally {
      await resume();
    }
    await until('the replica is back in use', () => strict.deps.reads.status().inUse);
    assert.equal(await statusIn(strict, m, id), 'PAID');
  });

  test("read-your-writes: the writing merchant's reads see its write at once, another merchant's read the replica", async () => {
    const a = await merchantWithPix();
    const b = await merchantWithPix();
    await pause();
    try {
      const created = await newPix(app, a.m);
      await paidThroughOther(b.m, b.id);
      assert.equal(await statusIn(app, a.m, created), 'PENDING', "A's new payment is in A's list");
      assert.equal(onReplica(app, a.m), false);
      assert.equal(await statusIn(app, b.m, b.id), 'PENDING', "B's list still comes from the replica");
      assert.equal(onReplica(app, b.m), true);
    } finally {
      await resume();
    }
    await until("A's reads go back to the replica once it has A's write", () => onReplica(app, a.m));
  });

  test('read-your-writes across processes: with REDIS_URL another instance sees the merchant\'s write too', { skip: !REDIS_URL && 'needs Redis (TEST_REDIS_URL)' }, async () => {
    const shared = (lag: number) => appOver(appConfig({ ...env, REDIS_URL: REDIS_URL!, REPLICA_MAX_LAG_MS: String(lag) }), database, { limiter: new MemoryLimiter(), logStream: silent() });
    const [one, two] = [await shared(60_000), await shared(60_000)];
    try {
      await until('both instances use the replica', () => one.deps.reads.status().inUse && two.deps.reads.status().inUse);
      const a = await merchantWithPix();
      const b = await merchantWithPix();
      await until('the replica has both merchants', async () => (await two.deps.reads.for({ userId: a.m.id })) === two.deps.reads.replica && (await two.deps.reads.for({ userId: b.m.id })) === two.deps.reads.replica);
      await pause();
      try {
        const created = await newPix(one, a.m);
        await paidThroughOther(b.m, b.id);
        assert.equal(await statusIn(two, a.m, created), 'PENDING', "A's payment, made through the other instance, is in A's list");
        assert.equal(await statusIn(two, b.m, b.id), 'PENDING', "B made no write: B's list still comes from the replica");
      } finally {
        await resume();
      }
    } finally {
      await one.close();
      await two.close();
    }
  });

  test('a stopped replica: reads fall back to the primary without an error, and the replica is used again once restarted', async () => {
    const { m, id } = await merchantWithPix();
    await paidThroughOther(m, id);
    // An instance whose probe will not run again during the test: its reads meet the stopped replica.
    let stopped = false;
    const unaware = await appOver(appConfig({ ...env, REPLICA_MAX_LAG_MS: '3600000', REPLICA_PROBE_INTERVAL_MS: '60000' }), database, { limiter: new MemoryLimiter(), logStream: silent() });
    try {
      // Its one probe may meet WAL the replica has not received yet (any write, even a page pruned by
      // a read, moves the primary's position): the test then hands it samples of its own until one
      // finds the replica caught up, as its next probe would have.
      await until('the replica is in use by the new instance', async () => {
        if (!unaware.deps.reads.status().inUse) unaware.deps.reads.observe(await sampleNow());
        return unaware.deps.reads.status().inUse;
      });
      await stopReplica(pair!);
      stopped = true;
      await everyReadAnswers(m, unaware);
      assert.equal(await statusIn(unaware, m, id), 'PAID');
      assert.equal(unaware.deps.reads.status().replica, 'down', 'the failed connection took the replica out');
      await until('the probe sees the replica down', () => app.deps.reads.status().replica === 'down');
      await everyReadAnswers(m);
      assert.equal(await statusIn(app, m, id), 'PAID');
    } finally {
      await unaware.close();
      if (stopped) await startReplica(pair!);
    }
    await replica.end().catch(() => {});
    replica = new pg.Client({ connectionString: pair!.replicaUrl });
    replica.on('error', () => {});
    await replica.connect();
    await until('the replica is back in use', () => app.deps.reads.status().inUse);
    const again = await merchantWithPix();
    await pause();
    try {
      await paidThroughOther(again.m, again.id);
      assert.equal(await statusIn(app, again.m, again.id), 'PENDING', 'the list reads the restarted replica');
    } finally {
      await resume();
    }
  });

  test('money decisions read the primary while lists read a replica that is behind', async () => {
    const m = await merchant(app);
    await until('the replica has the new merchant', () => onReplica(other, m) && onReplica(app, m));
    await pause();
    try {
      const gross = 50_000;
      const id = await paidPix(app, { key: m.devKey }, gross); // through app: `other` does not know of it
      assert.equal(other.deps.reads.status().inUse, true);
      assert.equal(await statusIn(other, m, id), undefined, 'the list through `other` comes from the paused replica');
      // The balance, a withdrawal decided on it, a key made a moment ago, an Idempotency-Key: all the primary's.
      const bal = await call(other, 'GET', '/api/withdraws/balance', { key: m.devKey });
      assert.equal(bal.status, 200, bal.raw);
      assert.equal(bal.body.availableBalanceCents, gross - pixFee(gross));
      const w = await call(other, 'POST', '/api/withdraws', { key: m.devKey, body: { amountCents: 10_000, pixKeyType: 'email', pixKey: 'loja@example.com' } });
      assert.equal(w.status, 201, w.raw);
      const key = await call(app, 'POST', '/api/credentials', { token: m.token, body: { name: 'new', environment: 'DEVELOPMENT' } });
      assert.equal(key.status, 201, key.raw);
      assert.equal((await call(other, 'GET', '/api/withdraws/balance', { key: key.body.key })).status, 200, 'a new key is found at once');
      const body = { product: 'Curso', amountCents: 2000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'PIX' };
      const headers = { 'idempotency-key': `replica-${m.id}` };
      const first = await call(app, 'POST', '/api/v1/transactions', { key: m.devKey, body, headers });
      const replay = await call(other, 'POST', '/api/v1/transactions', { key: m.devKey, body, headers });
      assert.equal(first.status, 201, first.raw);
      assert.equal(replay.body.transaction.id, first.body.transaction.id, 'the key is found on the primary: no second payment');
    } finally {
      await resume();
    }
  });
});
