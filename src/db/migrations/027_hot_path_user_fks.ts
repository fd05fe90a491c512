import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// The foreign keys from transactions and events to users go (issue 17). Every row of either is
// written with the user_id of the authenticated merchant (a key's or a session's scope), and no
// account is ever deleted (users has no DELETE path), so the key checked nothing a merchant could
// get wrong; what it cost was real: per row, a query on users taking FOR KEY SHARE on the
// merchant's row (a creation writes a transaction and an event: two per creation), and with two
// batches of one merchant in flight, a MultiXact on that row for every statement. In
// bench/statement-cost.ts, about 6% of PostgreSQL's CPU per creation. The other tables keep theirs:
// none is written at this rate. docs/decisions.md, "The creation statement's shape".
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `ALTER TABLE transactions DROP CONSTRAINT transactions_user_id_fkey;
     ALTER TABLE events DROP CONSTRAINT events_user_id_fkey;`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `ALTER TABLE transactions ADD CONSTRAINT transactions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id);
     ALTER TABLE events ADD CONSTRAINT events_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id);`,
  );
}
