import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Chargebacks in the reports: a CHARGEBACK row per São Paulo day a case was opened (its count and
// amount), kept by a row trigger on chargebacks as refunds are by theirs (018). A case the merchant
// won leaves the figures (the money came back), as a failed refund does; an open, contested or lost
// one stays. The reports subtract it from net (reports/service.ts). Existing cases are counted here.
// 039 counts a won case on its opening day and again, as won, on the day it was won.

/**
 * The row trigger's function: an UPDATE for which `unchanged` holds (nothing counted changed) moves
 * nothing; any other write takes the old row's shares out and puts the new row's in.
 */
export function onChargeback(create: 'CREATE' | 'CREATE OR REPLACE', unchanged: string): string {
  return `${create} FUNCTION report_days_on_chargeback() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND ${unchanged} THEN
        RETURN NULL;
      END IF;
      IF TG_OP <> 'INSERT' THEN PERFORM report_days_chargeback(OLD, -1); END IF;
      IF TG_OP <> 'DELETE' THEN PERFORM report_days_chargeback(NEW, 1); END IF;
      RETURN NULL;
    END
    $$;`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE report_days ADD COLUMN chargeback_count integer NOT NULL DEFAULT 0, ADD COLUMN chargeback_cents bigint NOT NULL DEFAULT 0;

    CREATE FUNCTION report_days_chargeback(c chargebacks, sign integer) RETURNS void LANGUAGE sql AS $$
      INSERT INTO report_days AS d (user_id, livemode, day, method, slot, chargeback_count, chargeback_cents)
      SELECT c.user_id, c.livemode, (c.opened_at AT TIME ZONE 'America/Sao_Paulo')::date, 'CHARGEBACK', 0, sign, sign * c.amount_cents
      WHERE c.status <> 'WON'
      ON CONFLICT (user_id, livemode, day, method, slot) DO UPDATE
        SET chargeback_count = d.chargeback_count + excluded.chargeback_count, chargeback_cents = d.chargeback_cents + excluded.chargeback_cents
    $$;

    ${onChargeback(
      'CREATE',
      `NEW.opened_at = OLD.opened_at AND NEW.amount_cents = OLD.amount_cents
         AND (NEW.status = 'WON') = (OLD.status = 'WON') AND NEW.user_id = OLD.user_id AND NEW.livemode = OLD.livemode`,
    )}

    CREATE TRIGGER chargebacks_report_days AFTER INSERT OR UPDATE OR DELETE ON chargebacks FOR EACH ROW EXECUTE FUNCTION report_days_on_chargeback();

    INSERT INTO report_days AS d (user_id, livemode, day, method, slot, chargeback_count, chargeback_cents)
      SELECT user_id, livemode, (opened_at AT TIME ZONE 'America/Sao_Paulo')::date, 'CHARGEBACK', 0, count(*), sum(amount_cents)
        FROM chargebacks WHERE status <> 'WON' GROUP BY 1, 2, 3
      ON CONFLICT (user_id, livemode, day, method, slot) DO UPDATE
        SET chargeback_count = excluded.chargeback_count, chargeback_cents = excluded.chargeback_cents;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP TRIGGER chargebacks_report_days ON chargebacks;
    DROP FUNCTION report_days_on_chargeback();
    DROP FUNCTION report_days_chargeback(chargebacks, integer);
    DELETE FROM report_days WHERE method = 'CHARGEBACK';
    ALTER TABLE report_days DROP COLUMN chargeback_count, DROP COLUMN chargeback_cents;
    `,
  );
}
