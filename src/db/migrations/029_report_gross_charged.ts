import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';
import { SLOTS, triggerFunctions, type Gross } from './023_report_days_per_statement.ts';

// Reports' gross counts what was charged (charged_cents), not the price (amount_cents). A card sale
// in instalments with interest, or a PIX paid late with a fine, was charged more than its price; its
// fee was taken on what was charged and the wallet credited with it, so with gross on the price, net
// (gross - fees - refunded) came out lower than the credit. The triggers of 025 (slot per statement)
// are replaced by the same with charged_cents, and the report rows already stored get the
// difference of every paid transaction on its payment day (slot 0: reports sum the slots).
const SLOT = `(txid_current() % ${SLOTS})::smallint`;

function adjust(from: Gross, to: Gross): string {
  return `
    INSERT INTO report_days AS d (user_id, livemode, day, method, slot, gross_cents)
      SELECT user_id, livemode, (paid_at AT TIME ZONE 'America/Sao_Paulo')::date, payment_method, 0, sum(${to} - ${from})
        FROM transactions WHERE paid_at IS NOT NULL AND charged_cents <> amount_cents GROUP BY 1, 2, 3, 4
      ON CONFLICT (user_id, livemode, day, method, slot) DO UPDATE SET gross_cents = d.gross_cents + excluded.gross_cents;`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, [...triggerFunctions(SLOT, 'CREATE OR REPLACE', 'charged_cents'), adjust('amount_cents', 'charged_cents')].join('\n'));
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, [...triggerFunctions(SLOT, 'CREATE OR REPLACE', 'amount_cents'), adjust('charged_cents', 'amount_cents')].join('\n'));
}
