// Named prepared statements (src/db/index.ts, prepared()): registered texts are prepared once per
// connection on PostgreSQL, and a statement whose table changed columns meanwhile is prepared anew.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CompiledQuery } from 'kysely';
import { connect, prepared, type Database } from '../src/db/index.ts';
import { dropSchema, onPostgres, PG_URL } from './helpers.ts';

const skip = onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)';
const schema = `t_prep_${Math.random().toString(16).slice(2, 10)}`;
let database: Database;

before(async () => {
  if (skip) return;
  database = await connect({ url: PG_URL, schema, poolSize: 1 });
  await database.db.executeQuery(CompiledQuery.raw('CREATE TABLE prep_t (id int PRIMARY KEY, a text)'));
  await database.db.executeQuery(CompiledQuery.raw("INSERT INTO prep_t VALUES (1, 'x')"));
});
after(async () => {
  if (skip) return;
  await database.close();
  await dropSchema(schema);
});

const SELECT_ONE = prepared('test_prep_star', 'SELECT * FROM prep_t WHERE id = $1');
const run = (text: string, values: unknown[] = []) => database.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, values));

test('a registered text runs as a named statement; others stay unnamed', { skip }, async () => {
  assert.deepEqual((await run(SELECT_ONE, [1])).rows, [{ id: 1, a: 'x' }]);
  assert.deepEqual((await run(SELECT_ONE, [2])).rows, []);
  const { rows } = await run('SELECT name, statement FROM pg_prepared_statements');
  assert.deepEqual(rows, [{ name: 'test_prep_star_1', statement: SELECT_ONE }]);
});

test('the same family with another text gets its own name', { skip }, async () => {
  const other = prepared('test_prep_star', 'SELECT a FROM prep_t WHERE id = $1');
  assert.deepEqual((await run(other, [1])).rows, [{ a: 'x' }]);
  const { rows } = await run('SELECT name FROM pg_prepared_statements ORDER BY name');
  assert.deepEqual(rows.map((r) => r.name), ['test_prep_star_1', 'test_prep_star_2']);
});

test('a table that gains a column: the statement is prepared anew, outside a transaction', { skip }, async () => {
  await run(SELECT_ONE, [1]);
  await run('ALTER TABLE prep_t ADD COLUMN b int');
  assert.deepEqual((await run(SELECT_ONE, [1])).rows, [{ id: 1, a: 'x', b: null }]);
  // Inside a transaction block the error stands (the transaction is aborted anyway).
  await run('ALTER TABLE prep_t ADD COLUMN c int');
  await assert.rejects(
    database.db.transaction().execute((trx) => trx.executeQuery(CompiledQuery.raw(SELECT_ONE, [1]))),
    (err: { code?: string }) => err.code === '0A000',
  );
  assert.deepEqual((await run(SELECT_ONE, [1])).rows, [{ id: 1, a: 'x', b: null, c: null }]);
});
