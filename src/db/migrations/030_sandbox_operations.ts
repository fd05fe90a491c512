import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// The sandbox connector's own books, as a real provider keeps its own: what it answered for each of
// our references (a card charge, a refund, a payout). Any process asks it by reference, so a charge
// whose answer was lost is found by the janitor, and a reference sent again gets the first answer.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE sandbox_operations (
      reference text PRIMARY KEY,
      outcome jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sandbox_operations_created ON sandbox_operations (created_at);
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `DROP TABLE sandbox_operations;`);
}
