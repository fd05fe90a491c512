// Account security: the TOTP factor, recovery codes, login challenges, password resets and e-mailed
// second-factor codes (migrations/035_account_security.ts; modules/auth).
import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

/** bigint in SQL: read as a string by pg, written as a number. */
type Step = ColumnType<string | number | null, number | null | undefined, number | null>;

export interface TotpFactorsTable {
  user_id: string;
  /** The secret, AES-256-GCM under a key derived from JWT_SECRET (auth/mfa-crypto.ts). */
  secret_enc: string;
  /** Null while enrolment waits for its first code. */
  enabled_at: NullableTimestamp;
  /** The last 30-second step a code was accepted for: codes of that step or earlier are refused. */
  last_step: Step;
  created_at: Timestamp;
}

export interface RecoveryCodesTable {
  user_id: string;
  /** SHA-256 of the normalised code. */
  code_hash: string;
  used_at: NullableTimestamp;
}

export interface LoginChallengesTable {
  token_hash: string;
  user_id: string;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface PasswordResetsTable {
  token_hash: string;
  user_id: string;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface SecondFactorCodesTable {
  user_id: string;
  code_hash: string;
  expires_at: Timestamp;
  attempts: Generated<number>;
}
