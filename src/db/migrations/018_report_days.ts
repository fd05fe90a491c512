import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// The sales reports (modules/reports) read daily totals, not transactions: report_days holds, per
// merchant, environment, São Paulo calendar day and payment method, what was paid that day (count,
// gross, fees), what was created that day (count, of those paid, card tries and approvals) and the
// refunds made that day (method 'REFUND'). Triggers keep it in the same database transaction as the
// write to transactions or refunds, whatever the write is: a change subtracts the row's old share
// and adds its new one. Each day's totals are spread over 8 slots (by the last byte of the
// transaction's id, random in a UUIDv7), so that concurrent payments of one merchant rarely wait for
// the same row; a report sums the slots. Existing rows are totalled into slot 0 here.
const SLOTS = 8;

export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE report_days (
      user_id uuid NOT NULL,
      livemode boolean NOT NULL,
      day date NOT NULL,
      method text NOT NULL,
      slot smallint NOT NULL,
      paid_count integer NOT NULL DEFAULT 0,
      gross_cents bigint NOT NULL DEFAULT 0,
      fee_cents bigint NOT NULL DEFAULT 0,
      created_count integer NOT NULL DEFAULT 0,
      created_paid integer NOT NULL DEFAULT 0,
      card_attempted integer NOT NULL DEFAULT 0,
      card_approved integer NOT NULL DEFAULT 0,
      refund_count integer NOT NULL DEFAULT 0,
      refunded_cents bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (user_id, livemode, day, method, slot)
    );

    CREATE FUNCTION report_days_add(p_user uuid, p_live boolean, p_day date, p_method text, p_slot smallint,
        p_paid integer, p_gross bigint, p_fee bigint, p_created integer, p_created_paid integer,
        p_attempted integer, p_approved integer, p_refunds integer, p_refunded bigint) RETURNS void LANGUAGE sql AS $$
      INSERT INTO report_days AS d (user_id, livemode, day, method, slot, paid_count, gross_cents, fee_cents, created_count,
          created_paid, card_attempted, card_approved, refund_count, refunded_cents)
      VALUES (p_user, p_live, p_day, p_method, p_slot, p_paid, p_gross, p_fee, p_created, p_created_paid, p_attempted, p_approved, p_refunds, p_refunded)
      ON CONFLICT (user_id, livemode, day, method, slot) DO UPDATE SET
        paid_count = d.paid_count + excluded.paid_count, gross_cents = d.gross_cents + excluded.gross_cents,
        fee_cents = d.fee_cents + excluded.fee_cents, created_count = d.created_count + excluded.created_count,
        created_paid = d.created_paid + excluded.created_paid, card_attempted = d.card_attempted + excluded.card_attempted,
        card_approved = d.card_approved + excluded.card_approved, refund_count = d.refund_count + excluded.refund_count,
        refunded_cents = d.refunded_cents + excluded.refunded_cents
    $$;

    CREATE FUNCTION report_days_transaction(t transactions, sign integer) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      slot smallint := get_byte(uuid_send(t.id), 15) % ${SLOTS};
      tried integer := (t.payment_method = 'CARD' AND t.card_last4 IS NOT NULL)::integer;
      approved integer := (t.payment_method = 'CARD' AND t.card_last4 IS NOT NULL AND (t.authorized_at IS NOT NULL OR t.paid_at IS NOT NULL))::integer;
    BEGIN
      PERFORM report_days_add(t.user_id, t.livemode, (t.created_at AT TIME ZONE 'America/Sao_Paulo')::date, t.payment_method, slot,
        0, 0, 0, sign, sign * (t.paid_at IS NOT NULL)::integer, sign * tried, sign * approved, 0, 0);
      IF t.paid_at IS NOT NULL THEN
        PERFORM report_days_add(t.user_id, t.livemode, (t.paid_at AT TIME ZONE 'America/Sao_Paulo')::date, t.payment_method, slot,
          sign, sign * t.amount_cents, sign * t.fee_cents, 0, 0, 0, 0, 0, 0);
      END IF;
    END
    $$;

    CREATE FUNCTION report_days_on_transaction() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND NEW.created_at = OLD.created_at AND NEW.paid_at IS NOT DISTINCT FROM OLD.paid_at
         AND NEW.authorized_at IS NOT DISTINCT FROM OLD.authorized_at AND NEW.card_last4 IS NOT DISTINCT FROM OLD.card_last4
         AND NEW.amount_cents = OLD.amount_cents AND NEW.fee_cents = OLD.fee_cents AND NEW.payment_method = OLD.payment_method
         AND NEW.user_id = OLD.user_id AND NEW.livemode = OLD.livemode THEN
        RETURN NULL;
      END IF;
      IF TG_OP <> 'INSERT' THEN PERFORM report_days_transaction(OLD, -1); END IF;
      IF TG_OP <> 'DELETE' THEN PERFORM report_days_transaction(NEW, 1); END IF;
      RETURN NULL;
    END
    $$;

    CREATE FUNCTION report_days_refund(r refunds, sign integer) RETURNS void LANGUAGE sql AS $$
      SELECT report_days_add(r.user_id, r.livemode, (r.created_at AT TIME ZONE 'America/Sao_Paulo')::date, 'REFUND',
        (get_byte(uuid_send(r.transaction_id), 15) % ${SLOTS})::smallint, 0, 0, 0, 0, 0, 0, 0, sign, sign * r.amount_cents)
      WHERE r.status <> 'FAILED'
    $$;

    CREATE FUNCTION report_days_on_refund() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND NEW.created_at = OLD.created_at AND NEW.amount_cents = OLD.amount_cents
         AND (NEW.status = 'FAILED') = (OLD.status = 'FAILED') AND NEW.user_id = OLD.user_id AND NEW.livemode = OLD.livemode THEN
        RETURN NULL;
      END IF;
      IF TG_OP <> 'INSERT' THEN PERFORM report_days_refund(OLD, -1); END IF;
      IF TG_OP <> 'DELETE' THEN PERFORM report_days_refund(NEW, 1); END IF;
      RETURN NULL;
    END
    $$;

    CREATE TRIGGER transactions_report_days AFTER INSERT OR UPDATE OR DELETE ON transactions FOR EACH ROW EXECUTE FUNCTION report_days_on_transaction();
    CREATE TRIGGER refunds_report_days AFTER INSERT OR UPDATE OR DELETE ON refunds FOR EACH ROW EXECUTE FUNCTION report_days_on_refund();

    INSERT INTO report_days (user_id, livemode, day, method, slot, created_count, created_paid, card_attempted, card_approved)
      SELECT user_id, livemode, (created_at AT TIME ZONE 'America/Sao_Paulo')::date, payment_method, 0, count(*),
             count(*) FILTER (WHERE paid_at IS NOT NULL),
             count(*) FILTER (WHERE payment_method = 'CARD' AND card_last4 IS NOT NULL),
             count(*) FILTER (WHERE payment_method = 'CARD' AND card_last4 IS NOT NULL AND (authorized_at IS NOT NULL OR paid_at IS NOT NULL))
        FROM transactions GROUP BY 1, 2, 3, 4;
    INSERT INTO report_days AS d (user_id, livemode, day, method, slot, paid_count, gross_cents, fee_cents)
      SELECT user_id, livemode, (paid_at AT TIME ZONE 'America/Sao_Paulo')::date, payment_method, 0, count(*), sum(amount_cents), sum(fee_cents)
        FROM transactions WHERE paid_at IS NOT NULL GROUP BY 1, 2, 3, 4
      ON CONFLICT (user_id, livemode, day, method, slot) DO UPDATE SET paid_count = excluded.paid_count, gross_cents = excluded.gross_cents, fee_cents = excluded.fee_cents;
    INSERT INTO report_days (user_id, livemode, day, method, slot, refund_count, refunded_cents)
      SELECT user_id, livemode, (created_at AT TIME ZONE 'America/Sao_Paulo')::date, 'REFUND', 0, count(*), sum(amount_cents)
        FROM refunds WHERE status <> 'FAILED' GROUP BY 1, 2, 3;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP TRIGGER refunds_report_days ON refunds;
    DROP TRIGGER transactions_report_days ON transactions;
    DROP FUNCTION report_days_on_refund();
    DROP FUNCTION report_days_refund(refunds, integer);
    DROP FUNCTION report_days_on_transaction();
    DROP FUNCTION report_days_transaction(transactions, integer);
    DROP FUNCTION report_days_add(uuid, boolean, date, text, smallint, integer, bigint, bigint, integer, integer, integer, integer, integer, bigint);
    DROP TABLE report_days;
    `,
  );
}
