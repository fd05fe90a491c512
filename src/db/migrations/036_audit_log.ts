import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// The audit log (modules/audit/): who changed credentials, webhooks, KYC, fees, withdrawals,
// advances, refunds, chargebacks or an operator's decision, from where, and the object before and
// after, written in the same commit as the change. Append-only: a trigger refuses every UPDATE and
// TRUNCATE, and every DELETE except the retention sweep's, which sets `cofre.audit_retention_cutoff`
// for its own transaction (SET LOCAL) and may then delete only rows older than that instant.
// user_id is the merchant whose object it is (null: a platform-wide operator action); livemode is
// null for account-level objects (credentials, KYC, fees, the password), which have no environment.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE audit_log (
      id uuid PRIMARY KEY,
      occurred_at timestamptz NOT NULL,
      user_id uuid REFERENCES users(id),
      livemode boolean,
      actor_type text NOT NULL CHECK (actor_type IN ('USER','API_KEY','OPERATOR','SYSTEM')),
      actor_id uuid,
      ip text,
      user_agent text,
      action text NOT NULL,
      object_type text NOT NULL,
      object_id text,
      before jsonb,
      after jsonb
    );
    CREATE INDEX audit_log_user ON audit_log (user_id, occurred_at DESC, id DESC);
    CREATE INDEX audit_log_occurred ON audit_log (occurred_at, id);
    CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      cutoff text := current_setting('cofre.audit_retention_cutoff', true);
    BEGIN
      IF TG_OP = 'DELETE' AND cutoff IS NOT NULL AND cutoff <> '' AND OLD.occurred_at < cutoff::timestamptz THEN
        RETURN OLD;
      END IF;
      RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = '42501';
    END;
    $$;
    CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP TABLE audit_log;
    DROP FUNCTION audit_log_append_only();
    `,
  );
}
