import type { Kysely } from 'kysely';
import * as m038 from './038_report_chargebacks.ts';
import { runSql } from './run-sql.ts';

// A chargeback counts on the São Paulo day it was opened and stays there; a case the merchant won
// counts again, as won, on the day it was decided (closed_at). 038 took a won case out of its opening
// day instead, which changed a past period's figures when a later decision came; now each day shows
// what the wallet saw that day: the debit when opened, the credit back when won (journal
// chargeback_reversal), as Stripe's dispute and dispute reversal. Same row trigger on chargebacks (a
// case changes rarely; nothing on the transactions' paths), its shares now two days per case.
const COLUMNS = 'chargeback_count, chargeback_cents, chargeback_won_count, chargeback_won_cents';

/** One upsert of the shares of `source` (chargeback rows with a sign: 1 to add, -1 to take out). */
function upsertShares(source: string): string {
  return `
    INSERT INTO report_days AS d (user_id, livemode, day, method, slot, ${COLUMNS})
    SELECT r.user_id, r.livemode, v.day, 'CHARGEBACK', 0,
           sum(v.opened)::integer, sum(v.opened * r.amount_cents)::bigint, sum(v.won)::integer, sum(v.won * r.amount_cents)::bigint
      FROM (${source}) r,
        LATERAL (VALUES ((r.opened_at AT TIME ZONE 'America/Sao_Paulo')::date, r.sign, 0),
                        ((r.closed_at AT TIME ZONE 'America/Sao_Paulo')::date, 0, r.sign * (r.status = 'WON')::integer)) v(day, opened, won)
     WHERE v.day IS NOT NULL AND (v.opened <> 0 OR v.won <> 0)
     GROUP BY 1, 2, 3
     ORDER BY 1, 2, 3
    ON CONFLICT (user_id, livemode, day, method, slot) DO UPDATE SET
      chargeback_count = d.chargeback_count + excluded.chargeback_count, chargeback_cents = d.chargeback_cents + excluded.chargeback_cents,
      chargeback_won_count = d.chargeback_won_count + excluded.chargeback_won_count, chargeback_won_cents = d.chargeback_won_cents + excluded.chargeback_won_cents`;
}

// What is counted: the opening (day, amount, merchant) and, for a won case only, the day it was won
// (a contest or a loss moves nothing).
const UNCHANGED = `(NEW.user_id, NEW.livemode, NEW.opened_at, NEW.amount_cents) = (OLD.user_id, OLD.livemode, OLD.opened_at, OLD.amount_cents)
         AND (CASE WHEN NEW.status = 'WON' THEN NEW.closed_at END) IS NOT DISTINCT FROM (CASE WHEN OLD.status = 'WON' THEN OLD.closed_at END)`;

export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE report_days ADD COLUMN chargeback_won_count integer NOT NULL DEFAULT 0, ADD COLUMN chargeback_won_cents bigint NOT NULL DEFAULT 0;

    CREATE OR REPLACE FUNCTION report_days_chargeback(c chargebacks, sign integer) RETURNS void LANGUAGE sql AS $$${upsertShares('SELECT (c).*, sign AS sign')}
    $$;

    ${m038.onChargeback('CREATE OR REPLACE', UNCHANGED)}

    DELETE FROM report_days WHERE method = 'CHARGEBACK';
    ${upsertShares('SELECT c.*, 1 AS sign FROM chargebacks c')};
    `,
  );
}

// Back to 038: its figures are rebuilt from the cases by its own down and up.
export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE report_days DROP COLUMN chargeback_won_count, DROP COLUMN chargeback_won_cents;');
  await m038.down(db);
  await m038.up(db);
}
