// Accounts and what they leave behind: users, dashboard sessions, API keys, idempotency keys, the e-mail outbox.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';

export interface UsersTable {
  id: string;
  name: string;
  email: string;
  password_hash: string;
  role: Generated<'USER' | 'ADMIN'>;
  referral_code: string;
  /** The public id other merchants name to send this one a share of a sale (splits). */
  wallet_id: Generated<string>;
  referred_by: string | null;
  /** Signs postbacks (deliveries to a transaction's postbackUrl); generated on first use. */
  postback_secret: string | null;
  /** An operator's overrides of the platform's fees (modules/fees/schedule.ts); null = none. */
  fees: ColumnType<Record<string, number> | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A dashboard session: one per issued token (its `jti`); see migrations/008_sessions.ts. */
export interface SessionsTable {
  user_id: string;
  id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
  /** What the owner sees in the session list (migrations/035_account_security.ts). */
  user_agent: string | null;
  ip: string | null;
  /** Updated at most once a minute (http/auth.ts). */
  last_used_at: NullableTimestamp;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  livemode: boolean;
  permissions: Json<string[]>;
  prefix: string;
  key_hash: string;
  revoked_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  user_id: string;
  livemode: boolean;
  key: string;
  fingerprint: string;
  response_status: number | null;
  response_body: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** The UTC day it was written (the partition key; its default is the writing transaction's day). */
  day: Generated<string>;
}

export type User = Selectable<UsersTable>;
export type ApiKey = Selectable<ApiKeysTable>;

export type EmailStatus = 'QUEUED' | 'SENT' | 'STORED' | 'FAILED';

/** The outbox of outgoing e-mail (src/mail/outbox.ts). */
export interface EmailsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  template: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  status: EmailStatus;
  attempts: Generated<number>;
  /** When the sweep may (re)try a QUEUED message; a claimed one is pushed ahead by the lease. */
  next_attempt_at: NullableTimestamp;
  last_error: string | null;
  /** The SMTP server's Message-ID once sent. */
  message_id: string | null;
  /** What the message is about (a subscription), for listing. */
  related_id: string | null;
  sent_at: NullableTimestamp;
  created_at: Timestamp;
}
export type Email = Selectable<EmailsTable>;

/** One entry of the append-only audit log (migrations/036_audit_log.ts; modules/audit/). */
export interface AuditLogTable {
  id: string;
  occurred_at: Timestamp;
  user_id: string | null;
  livemode: boolean | null;
  actor_type: 'USER' | 'API_KEY' | 'OPERATOR' | 'SYSTEM';
  actor_id: string | null;
  ip: string | null;
  user_agent: string | null;
  action: string;
  object_type: string;
  object_id: string | null;
  before: ColumnType<Record<string, unknown> | null, string | null, never>;
  after: ColumnType<Record<string, unknown> | null, string | null, never>;
}
export type AuditLogRow = Selectable<AuditLogTable>;
