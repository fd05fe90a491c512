// Shared by the group commit test files: a spy on the creation statements the app sends.
import type { CompiledQuery } from 'kysely';
import type { Db } from '../src/db/index.ts';

/** The creation statements the app sends (their row counts and outcomes), counted when sent. */
export function spyCreations(db: Db) {
  const statements: { rows: number; ok?: boolean }[] = [];
  const original = db.executeQuery.bind(db);
  const spied = async (q: CompiledQuery) => {
    if (!q.sql.includes('WITH i AS (SELECT unnest(')) return original(q);
    // The first parameter is the ids' array literal ({"<uuid>","<uuid>"}): one comma between rows.
    const s: { rows: number; ok?: boolean } = { rows: (q.parameters[0] as string).split(',').length };
    statements.push(s);
    try {
      const res = await original(q);
      s.ok = true;
      return res;
    } catch (err) {
      s.ok = false;
      throw err;
    }
  };
  Object.assign(db, { executeQuery: spied });
  return { statements, restore: () => delete (db as { executeQuery?: unknown }).executeQuery };
}
