import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Account security (modules/auth): a TOTP factor per user (its secret encrypted, the last time step
// used so a code is never taken twice), hashed one-time recovery codes, the login challenges between
// the password and the code, password-reset tokens (hashed), the e-mailed second-factor code of an
// account without TOTP, and what a session shows its owner (device, address, last use).
// Tokens are looked up by their hash alone (the caller does not know the account yet).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE totp_factors (
      user_id uuid PRIMARY KEY REFERENCES users(id),
      secret_enc text NOT NULL,
      enabled_at timestamptz,
      last_step bigint,
      created_at timestamptz NOT NULL
    );
    CREATE TABLE recovery_codes (
      user_id uuid NOT NULL REFERENCES users(id),
      code_hash text NOT NULL,
      used_at timestamptz,
      PRIMARY KEY (user_id, code_hash)
    );
    CREATE TABLE login_challenges (
      token_hash text PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    );
    CREATE INDEX login_challenges_user ON login_challenges (user_id);
    CREATE TABLE password_resets (
      token_hash text PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id),
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX password_resets_user ON password_resets (user_id);
    CREATE TABLE second_factor_codes (
      user_id uuid PRIMARY KEY REFERENCES users(id),
      code_hash text NOT NULL,
      expires_at timestamptz NOT NULL,
      attempts integer NOT NULL DEFAULT 0
    );
    ALTER TABLE sessions ADD COLUMN user_agent text;
    ALTER TABLE sessions ADD COLUMN ip text;
    ALTER TABLE sessions ADD COLUMN last_used_at timestamptz;
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE sessions DROP COLUMN last_used_at;
    ALTER TABLE sessions DROP COLUMN ip;
    ALTER TABLE sessions DROP COLUMN user_agent;
    DROP TABLE second_factor_codes;
    DROP TABLE password_resets;
    DROP TABLE login_challenges;
    DROP TABLE recovery_codes;
    DROP TABLE totp_factors;
    `,
  );
}
