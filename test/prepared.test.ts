// Named prepared statements (src/db/index.ts, prepared(); db/pglite-prepared.ts): registered texts
// are prepared once per connection on PostgreSQL and once per PGlite instance outside transactions,
// and a statement whose table changed columns meanwhile is prepared anew.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CompiledQuery } from 'kysely';
import { connect, prepared, type Database } from '../src/db/index.ts';
import { dropSchema, onPostgres, PG_URL } from './helpers.ts';

const schema = onPostgres ? `t_prep_${Math.random().toString(16).slice(2, 10)}` : null;
let database: Database;

before(async () => {
  database = await connect({ url: PG_URL, dataDir: null, ...(schema && { schema }), poolSize: 1 });
  await database.db.executeQuery(CompiledQuery.raw('CREATE TABLE prep_t (id int PRIMARY KEY, a text)'));
  await database.db.executeQuery(CompiledQuery.raw("INSERT INTO prep_t VALUES (1, 'x')"));
});
after(async () => {
  await database.close();
  await dropSchema(schema);
});

const SELECT_ONE = prepared('test_prep_star', 'SELECT * FROM prep_t WHERE id = $1');
const run = (text: string, values: unknown[] = []) => database.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, values));

test('a registered text runs as a named statement; others stay unnamed', async () => {
  assert.deepEqual((await run(SELECT_ONE, [1])).rows, [{ id: 1, a: 'x' }]);
  assert.deepEqual((await run(SELECT_ONE, [2])).rows, []);
  const { rows } = await run('SELECT name, statement FROM pg_prepared_statements');
  assert.deepEqual(rows, [{ name: 'test_prep_star_1', statement: SELECT_ONE }]);
});

test('the same family with another text gets its own name', async () => {
  const other = prepared('test_prep_star', 'SELECT a FROM prep_t WHERE id = $1');
  assert.deepEqual((await run(other, [1])).rows, [{ a: 'x' }]);
  const { rows } = await run('SELECT name FROM pg_prepared_statements ORDER BY name');
  assert.deepEqual(rows.map((r) => r.name), ['test_prep_star_1', 'test_prep_star_2']);
});

test('a table that gains a column: the statement is prepared anew, outside a transaction', async () => {
  await run(SELECT_ONE, [1]);
  await run('ALTER TABLE prep_t ADD COLUMN b int');
  assert.deepEqual((await run(SELECT_ONE, [1])).rows, [{ id: 1, a: 'x', b: null }]);
  await run('ALTER TABLE prep_t ADD COLUMN c int');
  const inTransaction = database.db.transaction().execute((trx) => trx.executeQuery(CompiledQuery.raw(SELECT_ONE, [1])));
  if (onPostgres) {
    // Inside a transaction block the error stands (the transaction is aborted anyway).
    await assert.rejects(inTransaction, (err: { code?: string }) => err.code === '0A000');
  } else {
    // PGlite sends statements inside a transaction unnamed: nothing cached to go stale.
    assert.deepEqual((await inTransaction).rows, [{ id: 1, a: 'x', b: null, c: null }]);
  }
  assert.deepEqual((await run(SELECT_ONE, [1])).rows, [{ id: 1, a: 'x', b: null, c: null }]);
});

test('a named statement that fails rejects with the database error; the connection goes on', async () => {
  const insert = prepared('test_prep_insert', 'INSERT INTO prep_t (id, a) VALUES ($1, $2) RETURNING id, a');
  assert.deepEqual((await run(insert, [2, 'y'])).rows, [{ id: 2, a: 'y' }]);
  await assert.rejects(run(insert, [2, 'again']), (err: { code?: string }) => err.code === '23505');
  assert.deepEqual((await run(insert, [3, null])).rows, [{ id: 3, a: null }]);
  // Values go through the database's serializers: an array parameter, a null, a date.
  const arrays = prepared('test_prep_arrays', 'SELECT cardinality($1::int[]) AS n, $2::text AS missing, $3::timestamptz AS at');
  const at = new Date('2026-01-02T03:04:05.678Z');
  assert.deepEqual((await run(arrays, [[1, 2, 3], null, at])).rows, [{ n: 3, missing: null, at }]);
});

test('an unnamed statement answers and fails as pg answers: rows, and the error with its code and constraint', async () => {
  assert.deepEqual((await run('INSERT INTO prep_t (id, a) VALUES ($1, $2) RETURNING a', [10, 'u'])).rows, [{ a: 'u' }]);
  await assert.rejects(run('INSERT INTO prep_t (id, a) VALUES ($1, $2)', [10, 'again']), (err: { code?: string; constraint?: string }) => err.code === '23505' && err.constraint === 'prep_t_pkey');
  assert.deepEqual((await run('SELECT a FROM prep_t WHERE id = $1', [10])).rows, [{ a: 'u' }]);
});
