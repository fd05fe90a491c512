import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// The daily report totals (migration 018) kept up per statement instead of per row (issue 17).
//
// 018's trigger on transactions ran once per row: one PL/pgSQL call and one or two report_days
// upserts for every row written. A creation batch of 200 rows of one merchant made 200 upserts of the
// same 8 report rows (one day, one method, 8 slots) inside one statement, each a new version of a row
// already updated by the statement. These triggers run once per statement and see every row it
// wrote (transition tables): the rows' shares are summed per report row, and each report row touched
// is upserted once, in key order (so two statements in flight lock the report rows they share in
// one order and cannot deadlock, whatever order they wrote their transactions in).
//
// A transition table may only belong to a trigger of one event: three triggers, one function each,
// built from the same parts below. The shares are those of 018 (report_days_transaction): the row
// counts on its creation day (created, created and paid, card tried, card approved) and, once paid,
// on its payment day (paid count, gross, fee); an UPDATE subtracts the old rows' shares and adds the
// new rows'. Refunds keep 018's row trigger (not on any batched path).
export const SLOTS = 8;

/** The report columns a transaction's shares add to, in report_days order. */
const SUMS = ['paid_count', 'gross_cents', 'fee_cents', 'created_count', 'created_paid', 'card_attempted', 'card_approved'] as const;

/**
 * One upsert of report_days with the summed shares of `source`: rows of transactions with a `sign`
 * (1 to add, -1 to subtract). Report rows whose shares cancel out are left alone.
 */
function upsertShares(source: string, slot: string, gross: Gross): string {
  const cast = (c: string) => (c.endsWith('_cents') ? 'bigint' : 'integer');
  return `
      INSERT INTO report_days AS d (user_id, livemode, day, method, slot, ${SUMS.join(', ')})
      SELECT t.user_id, t.livemode, v.day, t.payment_method, ${slot},
        ${SUMS.map((c) => `sum(v.${c})::${cast(c)}`).join(', ')}
      FROM (${source}) t,
        LATERAL (SELECT t.payment_method = 'CARD' AND t.card_last4 IS NOT NULL AS tried) card,
        LATERAL (VALUES
          ((t.created_at AT TIME ZONE 'America/Sao_Paulo')::date, 0, 0, 0, t.sign, t.sign * (t.paid_at IS NOT NULL)::integer,
            t.sign * card.tried::integer, t.sign * (card.tried AND (t.authorized_at IS NOT NULL OR t.paid_at IS NOT NULL))::integer),
          ((t.paid_at AT TIME ZONE 'America/Sao_Paulo')::date, t.sign, t.sign * t.${gross}, t.sign * t.fee_cents, 0, 0, 0, 0)
        ) v(day, ${SUMS.join(', ')})
      WHERE v.day IS NOT NULL
      GROUP BY 1, 2, 3, 4, 5
      HAVING ${SUMS.map((c) => `sum(v.${c}) <> 0`).join(' OR ')}
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (user_id, livemode, day, method, slot) DO UPDATE SET
        ${SUMS.map((c) => `${c} = d.${c} + excluded.${c}`).join(', ')};`;
}

// An UPDATE takes every old row's shares out and puts every new row's in: for a row whose counted
// columns did not change the two cancel, and a report row whose shares all cancel is not written
// (no need to pair old and new rows, which a transition table does not do).
const TRIGGERS: { event: 'INSERT' | 'UPDATE' | 'DELETE'; referencing: string; source: string }[] = [
  { event: 'INSERT', referencing: 'NEW TABLE AS new_rows', source: 'SELECT n.*, 1 AS sign FROM new_rows n' },
  { event: 'DELETE', referencing: 'OLD TABLE AS old_rows', source: 'SELECT o.*, -1 AS sign FROM old_rows o' },
  {
    event: 'UPDATE',
    referencing: 'OLD TABLE AS old_rows NEW TABLE AS new_rows',
    source: 'SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 AS sign FROM new_rows n',
  },
];

const name = (event: string) => `transactions_report_days_${event.toLowerCase()}`;

/** What a paid transaction adds to gross: its price (018-028), or what was charged (029). */
export type Gross = 'amount_cents' | 'charged_cents';

/** The three trigger functions, a report row's slot given by `slot` (an SQL expression over t). */
export function triggerFunctions(slot: string, create: 'CREATE' | 'CREATE OR REPLACE', gross: Gross = 'amount_cents'): string[] {
  return TRIGGERS.map(
    ({ event, source }) => `${create} FUNCTION ${name(event)}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN${upsertShares(source, slot, gross)}
      RETURN NULL;
    END
    $$;`,
  );
}

export async function up(db: Kysely<any>): Promise<void> {
  const functions = triggerFunctions(`(get_byte(uuid_send(t.id), 15) % ${SLOTS})::smallint`, 'CREATE');
  await runSql(
    db,
    [
      'DROP TRIGGER transactions_report_days ON transactions;',
      ...TRIGGERS.flatMap(({ event, referencing }, i) => [
        functions[i],
        `CREATE TRIGGER ${name(event)} AFTER ${event} ON transactions REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION ${name(event)}();`,
      ]),
    ].join('\n'),
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    [
      ...TRIGGERS.flatMap(({ event }) => [`DROP TRIGGER ${name(event)} ON transactions;`, `DROP FUNCTION ${name(event)}();`]),
      'CREATE TRIGGER transactions_report_days AFTER INSERT OR UPDATE OR DELETE ON transactions FOR EACH ROW EXECUTE FUNCTION report_days_on_transaction();',
    ].join('\n'),
  );
}
