// The reads router's bookkeeping (db/read-router.ts) on a fake clock and made-up probe samples, and
// what it is without a replica on this pass's database. The real replica: test/replica.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import type { Db } from '../src/db/index.ts';
import { parseLsn, ReadRouter, type ProbeSample } from '../src/db/read-router.ts';
import { readRouter } from '../src/db/replica.ts';
import type { WriteMarks } from '../src/db/write-marks.ts';
import { onPostgres, startApp, type TestContext } from './helpers.ts';

const primary = { name: 'primary' } as unknown as Db;
const replica = { name: 'replica' } as unknown as Db;
const A = { userId: 'merchant-a' };
const B = { userId: 'merchant-b' };

/** A router on a clock the test moves, with maxLagMs 1000. */
function fixture() {
  let now = 10_000;
  const router = new ReadRouter(primary, replica, 1000, undefined, () => now);
  const probe = (primaryLsn: number, replayLsn: number | null) => {
    const sample: ProbeSample = { startedAt: now, primaryLsn: BigInt(primaryLsn), replayLsn: replayLsn === null ? null : BigInt(replayLsn) };
    router.observe(sample);
  };
  return { router, probe, tick: (ms: number) => void (now += ms) };
}

describe('ReadRouter', () => {
  test('the primary until a probe has seen the replica replay; then the replica', () => {
    const { router, probe, tick } = fixture();
    assert.equal(router.for(A), primary);
    probe(100, 100);
    tick(10);
    assert.equal(router.for(A), replica);
    assert.deepEqual(router.status(), { replica: 'up', stalenessMs: 10, inUse: true, reason: 'streaming' });
  });

  test('an idle primary is not lag: the bound runs from the last probe whose position was replayed', () => {
    const { router, probe, tick } = fixture();
    for (let i = 0; i < 10; i++) {
      probe(100, 100); // nothing written for 5 s: replay timestamps would say 5 s behind
      tick(500);
    }
    assert.equal(router.for(A), replica);
    assert.equal(router.status().stalenessMs, 500);
  });

  test('behind by more than maxLagMs: every read goes to the primary, and back once caught up', () => {
    const { router, probe, tick } = fixture();
    probe(100, 100);
    tick(100);
    probe(200, 100); // written since, not replayed
    tick(800);
    assert.equal(router.for(B), replica, 'still within the bound (900 ms)');
    probe(300, 150);
    tick(250);
    assert.equal(router.for(B), primary, '1150 ms since the last replayed probe');
    assert.equal(router.status().inUse, false);
    assert.match(router.status().reason, /behind by more than 1000 ms/);
    probe(300, 200); // the probe of position 200 (1050 ms ago) is replayed: still too far
    assert.equal(router.for(B), primary);
    probe(300, 300);
    assert.equal(router.for(B), replica);
  });

  test("read-your-writes: a merchant that wrote reads the primary until a probe started after its write is replayed", () => {
    const { router, probe, tick } = fixture();
    probe(100, 100);
    tick(5);
    router.wrote(A.userId);
    assert.equal(router.for(A), primary);
    assert.equal(router.for(B), replica);
    tick(5);
    probe(150, 100); // started after the write, not replayed yet
    tick(5);
    assert.equal(router.for(A), primary);
    assert.equal(router.for(B), replica);
    probe(150, 150);
    assert.equal(router.for(A), replica);
  });

  test('a write in the same millisecond as a probe start is not taken as covered by it', () => {
    const { router, probe } = fixture();
    router.wrote(A.userId);
    probe(100, 100);
    assert.equal(router.for(A), primary);
  });

  test('a replica that cannot be reached, or is no standby, sends reads to the primary until a probe sees it replay', () => {
    const { router, probe, tick } = fixture();
    probe(100, 100);
    router.observe({ startedAt: 10_000, error: 'connect ECONNREFUSED 127.0.0.1:5433' });
    assert.equal(router.for(A), primary);
    assert.deepEqual({ ...router.status(), reason: '' }, { replica: 'down', stalenessMs: 0, inUse: false, reason: '' });
    tick(10);
    probe(110, 110);
    assert.equal(router.for(A), replica);
    router.lost(new Error('Connection terminated unexpectedly'));
    assert.equal(router.for(A), primary, 'a read that lost its connection takes the replica out at once');
    probe(120, null);
    assert.equal(router.for(A), primary);
    assert.match(router.status().reason, /not in recovery/);
  });

  test('shared write marks: a merchant that wrote through another process reads the primary; unsure (Redis failing) means the primary', async () => {
    let now = 10_000;
    const marks = new Map<string, number>();
    let failing = false;
    const shared: WriteMarks = {
      mark: async (userId, at) => {
        if (failing) throw new Error('redis down');
        marks.set(userId, Math.max(at, marks.get(userId) ?? 0));
      },
      latest: async (userId) => {
        if (failing) throw new Error('redis down');
        return marks.get(userId) ?? null;
      },
      close: async () => {},
    };
    const [one, two] = [new ReadRouter(primary, replica, 1000, undefined, () => now), new ReadRouter(primary, replica, 1000, undefined, () => now)];
    one.share(shared);
    two.share(shared);
    const probe = (lsn: number, replay: number) => {
      for (const r of [one, two]) r.observe({ startedAt: now, primaryLsn: BigInt(lsn), replayLsn: BigInt(replay) });
    };
    probe(100, 100);
    now += 5;
    await one.wrote(A.userId);
    assert.equal(await two.for(A), primary, "A's write through the other process is not on the replica yet");
    assert.equal(await two.for(B), replica);
    now += 50;
    probe(150, 150); // started 50 ms after A's write: within the clocks' allowed skew, not taken as covering it
    assert.equal(await two.for(A), primary);
    now += 100;
    probe(160, 160); // started 150 ms after it, replayed
    now += 5;
    assert.equal(await two.for(A), replica);
    failing = true;
    assert.equal(await two.for(B), primary, 'the marks cannot be read: the primary');
    failing = false;
    assert.equal(await two.for(B), primary, 'and for maxLagMs after');
    now += 1001;
    probe(200, 200);
    assert.equal(await two.for(B), replica);
  });

  test('parseLsn orders positions as PostgreSQL does', () => {
    assert.equal(parseLsn('0/3000060'), 0x3000060n);
    assert.equal(parseLsn('16/B374D848'), (0x16n << 32n) + 0xb374d848n);
    assert.ok(parseLsn('1/0') > parseLsn('0/FFFFFFFF'));
    assert.throws(() => parseLsn('3000060'));
  });
});

describe('without a replica (this pass: ' + (onPostgres ? 'PostgreSQL' : 'PGlite') + ')', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await startApp();
  });
  after(() => ctx.close());

  test('every read is the primary, and writes are not tracked', () => {
    const { reads, db } = ctx.app.deps;
    assert.equal(reads.replica, null);
    reads.wrote(A.userId);
    assert.equal(reads.for(A), db);
    assert.equal(reads.status().replica, 'off');
  });

  test('a replica beside the embedded database is refused by the configuration, and ignored by the router', { skip: onPostgres && 'PGlite only' }, () => {
    assert.throws(() => loadConfig({ DATABASE_REPLICA_URL: 'postgres://127.0.0.1:55401/cofre' }), /DATABASE_REPLICA_URL needs DATABASE_URL/);
    const router = readRouter(ctx.database, { url: 'postgres://127.0.0.1:55401/cofre', maxLagMs: 2000, probeIntervalMs: 500 }, pino({ level: 'silent' }));
    assert.equal(router.replica, null);
    assert.equal(router.for(A), ctx.database.db);
  });

  test('REPLICA_MAX_LAG_MS and REPLICA_PROBE_INTERVAL_MS: defaults and bounds', () => {
    const base = { DATABASE_URL: 'postgres://127.0.0.1:5432/cofre', JWT_SECRET: 'x'.repeat(32) };
    const cfg = loadConfig({ ...base, DATABASE_REPLICA_URL: 'postgres://127.0.0.1:5433/cofre' });
    assert.deepEqual(cfg.replica, { url: 'postgres://127.0.0.1:5433/cofre', maxLagMs: 2000, probeIntervalMs: 500 });
    assert.equal(loadConfig(base).replica, null);
    assert.throws(() => loadConfig({ ...base, DATABASE_REPLICA_URL: 'http://x' }), /DATABASE_REPLICA_URL must be a postgres or postgresql URL/);
    assert.throws(() => loadConfig({ ...base, DATABASE_REPLICA_URL: 'postgres://x/db', REPLICA_PROBE_INTERVAL_MS: '5' }), /REPLICA_PROBE_INTERVAL_MS must be between 20/);
  });
});
