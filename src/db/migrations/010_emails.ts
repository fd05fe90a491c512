import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Outgoing e-mail as an outbox: a message is a row written in the same database transaction as the
// change it tells about (a subscription renewed, a charge issued), and a sweep sends it afterwards
// (src/mail/outbox.ts), so no request waits on, or fails because of, a mail server. Without
// SMTP_URL a message is kept here as STORED and the merchant reads it at GET /api/v1/emails.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE emails (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      livemode boolean NOT NULL,
      template text NOT NULL,
      to_address text NOT NULL,
      subject text NOT NULL,
      text_body text NOT NULL,
      html_body text NOT NULL,
      status text NOT NULL CHECK (status IN ('QUEUED','SENT','STORED','FAILED')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      last_error text,
      message_id text,
      related_id uuid,
      sent_at timestamptz,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX emails_due ON emails (next_attempt_at) WHERE status = 'QUEUED';
    CREATE INDEX emails_user ON emails (user_id, livemode, created_at, id);
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `DROP TABLE emails;`);
}
