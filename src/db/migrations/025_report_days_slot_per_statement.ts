import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';
import { SLOTS, triggerFunctions } from './023_report_days_per_statement.ts';

// A statement's report shares go to one slot, chosen by its database transaction's id
// (txid_current()), not one slot per row by the payment's id (issue 17). 023 put each transaction's shares in the slot of its own id, so a batch of a dozen
// creations touched nearly all 8 slots of the merchant's day, and the next batch in flight waited
// for the first one's commit on those rows: batches of one merchant were written one after the
// other, each waiting for the other's WAL flush. Consecutive transactions now take consecutive
// slots (txid_current() mod 8), so two batches in flight never share a report row. A report sums
// the slots, so which slot holds a share never mattered; an UPDATE may now take a row's shares out
// of another slot than the one it went in, which leaves a slot's own figures meaningless alone and
// their sum right (nothing reads one slot alone). Refunds keep 018's row trigger.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, triggerFunctions(`(txid_current() % ${SLOTS})::smallint`, 'CREATE OR REPLACE').join('\n'));
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, triggerFunctions(`(get_byte(uuid_send(t.id), 15) % ${SLOTS})::smallint`, 'CREATE OR REPLACE').join('\n'));
}
