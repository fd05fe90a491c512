// inTxRetried: a transaction that lost a deadlock runs again (nothing of the lost run stays); other
// errors, and a race lost every time, reach the caller. On PostgreSQL a real deadlock is made.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../src/db/index.ts';
import { inTxRetried } from '../src/db/index.ts';
import { dropSchema, onPostgres, openDatabase } from './helpers.ts';

let database: Database;
let schema: string | null;

before(async () => {
  ({ database, schema } = await openDatabase());
  await sql`CREATE TABLE retry_probe (id int PRIMARY KEY, runs int NOT NULL DEFAULT 0)`.execute(database.db);
  await sql`INSERT INTO retry_probe (id) VALUES (1), (2)`.execute(database.db);
});
after(async () => {
  await database.close();
  await dropSchema(schema);
});

const runsOf = async (id: number) => (await sql<{ runs: number }>`SELECT runs FROM retry_probe WHERE id = ${id}`.execute(database.db)).rows[0].runs;
const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

describe('inTxRetried', () => {
  test('a lost deadlock runs the work again, and only the run that committed leaves its writes', async () => {
    const before = await runsOf(1);
    let calls = 0;
    const out = await inTxRetried(database.db, async (trx) => {
      calls++;
      await sql`UPDATE retry_probe SET runs = runs + 1 WHERE id = 1`.execute(trx);
      if (calls < 3) throw deadlock();
      return 'done';
    });
    assert.equal(out, 'done');
    assert.equal(calls, 3);
    assert.equal(await runsOf(1), before + 1, 'the two lost runs were rolled back');
  });

  test('another error is not run again; a race lost every time gives up after three runs', async () => {
    let calls = 0;
    await assert.rejects(
      inTxRetried(database.db, async () => {
        calls++;
        throw Object.assign(new Error('duplicate key'), { code: '23505' });
      }),
      /duplicate key/,
    );
    assert.equal(calls, 1);
    calls = 0;
    await assert.rejects(
      inTxRetried(database.db, async () => {
        calls++;
        throw deadlock();
      }),
      /deadlock/,
    );
    assert.equal(calls, 3);
  });
});

describe('inTxRetried on a real deadlock (PostgreSQL)', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  test('two transactions locking two rows in opposite orders: PostgreSQL kills one, which runs again; both commit', async () => {
    const [one, two] = [await runsOf(1), await runsOf(2)];
    let attempts = 0;
    let bothHoldOne!: () => void;
    const holding = new Promise<void>((resolve) => (bothHoldOne = resolve));
    let held = 0;
    const lockThen = (first: number, second: number) =>
      inTxRetried(database.db, async (trx) => {
        attempts++;
        await sql`UPDATE retry_probe SET runs = runs + 1 WHERE id = ${first}`.execute(trx);
        if (++held === 2) bothHoldOne();
        await holding; // each holds its first row before it asks for the other's
        await sql`UPDATE retry_probe SET runs = runs + 1 WHERE id = ${second}`.execute(trx);
      });
    await Promise.all([lockThen(1, 2), lockThen(2, 1)]);
    assert.equal(attempts, 3, 'one of the two lost the deadlock and ran again');
    assert.deepEqual([await runsOf(1), await runsOf(2)], [one + 2, two + 2], 'each committed once');
  });
});
