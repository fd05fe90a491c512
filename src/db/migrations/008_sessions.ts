import type { Kysely } from 'kysely';
import { runSql } from './run-sql.ts';

// Dashboard sessions: every dashboard token (JWT) names its session (`jti`), and a token is taken
// only while its session row is neither revoked nor expired, so logout and a password change take
// effect on every instance at once. The key leads with user_id (the token's `sub`) like every
// merchant-owned index; rows past expires_at are dropped at the user's next login.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE sessions (
      user_id uuid NOT NULL REFERENCES users(id),
      id uuid NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      PRIMARY KEY (user_id, id)
    );
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `DROP TABLE sessions;`);
}
