import { sql, type Kysely } from 'kysely';

/**
 * Runs a SQL script statement by statement (PGlite's query path takes one statement per call).
 * Splits on semicolons at line ends, keeping dollar-quoted bodies ($$ ... $$) whole.
 */
export async function runSql(db: Kysely<any>, script: string): Promise<void> {
  const statements: string[] = [];
  let current = '';
  let inDollar = false;
  for (const line of script.split('\n')) {
    current += line + '\n';
    if ((line.match(/\$\$/g)?.length ?? 0) % 2 === 1) inDollar = !inDollar;
    if (!inDollar && /;\s*$/.test(line)) {
      statements.push(current.trim());
      current = '';
    }
  }
  if (current.trim()) statements.push(current.trim());
  for (const s of statements) await sql.raw(s).execute(db);
}
