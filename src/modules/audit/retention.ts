// Retention: entries older than AUDIT_RETENTION_DAYS are deleted by the job runner, a bounded batch
// per transaction. The table's trigger refuses every DELETE unless the transaction has set
// cofre.audit_retention_cutoff, and then only of rows older than it: this sweep is the one way through.
import { sql } from 'kysely';
import { inTx, type Db } from '../../db/index.ts';
import { DAY_MS } from '../../payments/calendar.ts';

/** Deletes up to `batch` entries that occurred before now - retentionDays; returns how many. */
export async function purgeExpiredAudit(db: Db, now: Date, retentionDays: number, batch: number): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  return inTx(db, async (trx) => {
    // Local to this transaction: gone at its commit or rollback.
    await sql`SELECT set_config('cofre.audit_retention_cutoff', ${cutoff.toISOString()}, true)`.execute(trx);
    const { rows } = await sql<{ n: number }>`
      WITH old AS (
        SELECT id FROM audit_log WHERE occurred_at < ${cutoff} ORDER BY occurred_at, id LIMIT ${batch} FOR UPDATE SKIP LOCKED
      ), gone AS (DELETE FROM audit_log a USING old WHERE a.id = old.id RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.execute(trx);
    return Number(rows[0]?.n ?? 0);
  });
}
