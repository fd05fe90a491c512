// Two-factor authentication by TOTP: enrolment (a secret shown once as a QR code and in base32,
// switched on by a first valid code), ten one-time recovery codes shown once and stored hashed, the
// check of a code (TOTP never twice for one step; a recovery code once), and switching it off.
import { createHash, randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import type { Executor } from '../../db/index.ts';
import { totpEnabled } from '../../http/auth.ts';
import { conflict, validation } from '../../http/errors.ts';
import type { AccountKeys } from './account-keys.ts';
import { base32Decode, base32Encode, matchStep, otpauthUri } from './totp.ts';

export const ISSUER = 'Cofre';
const RECOVERY_CODES = 10;

export interface MfaDeps {
  db: Executor;
  keys: AccountKeys;
}

/** Recovery codes are compared without case, spaces or dashes: "ab12c-d34ef" = "AB12CD34EF". */
const normaliseRecovery = (code: string) => code.replace(/[\s-]/g, '').toLowerCase();
const recoveryHash = (userId: string, code: string) => createHash('sha256').update(`${userId}:${normaliseRecovery(code)}`).digest('hex');

function recoveryCode(): string {
  const raw = base32Encode(randomBytes(7)).slice(0, 10).toLowerCase();
  return `${raw.slice(0, 5)}-${raw.slice(5)}`;
}


export async function mfaStatus(db: Executor, userId: string) {
  const row = await db.selectFrom('totp_factors').select('enabled_at').where('user_id', '=', userId).executeTakeFirst();
  const left = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return { enabled: !!row?.enabled_at, enabledAt: row?.enabled_at ?? null, recoveryCodesLeft: row?.enabled_at ? Number(left.n) : 0 };
}

/**
 * Starts (or restarts) an enrolment: a new secret, kept sealed and not yet in force. Returns what the
 * merchant's authenticator needs; the secret is never returned again. 409 once 2FA is on.
 */
export async function startEnrolment(deps: MfaDeps, user: { id: string; email: string }, now = new Date()) {
  if (await totpEnabled(deps.db, user.id)) throw conflict('Two-factor authentication is already on; turn it off first to enrol another device');
  const secret = base32Encode(randomBytes(20));
  const sealed = deps.keys.seal(secret);
  await deps.db
    .insertInto('totp_factors')
    .values({ user_id: user.id, secret_enc: sealed, enabled_at: null, last_step: null, created_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ secret_enc: sealed, enabled_at: null, last_step: null, created_at: now }))
    .execute();
  const uri = otpauthUri(secret, user.email, ISSUER);
  const qrCode = await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
  return { secret, otpauthUri: uri, qrCode };
}

/** Switches 2FA on with a first valid code; returns the recovery codes (shown this once). */
export async function confirmEnrolment(deps: MfaDeps, userId: string, code: string, now = new Date()): Promise<string[]> {
  const row = await deps.db.selectFrom('totp_factors').select(['secret_enc', 'enabled_at']).where('user_id', '=', userId).executeTakeFirst();
  if (!row) throw conflict('Start the enrolment first (POST /api/auth/mfa/enrol)');
  if (row.enabled_at) throw conflict('Two-factor authentication is already on');
  const step = matchStep(base32Decode(deps.keys.open(row.secret_enc)), code.trim(), now.getTime(), null);
  if (step === null) throw validation('code', 'is not the current code of the authenticator app');
  const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
  const on = await deps.db
    .updateTable('totp_factors')
    .set({ enabled_at: now, last_step: step })
    .where('user_id', '=', userId)
    .where('enabled_at', 'is', null)
    .where('secret_enc', '=', row.secret_enc)
    .returning('user_id')
    .executeTakeFirst();
  if (!on) throw conflict('The enrolment changed meanwhile; start again');
  await deps.db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await deps.db
    .insertInto('recovery_codes')
    .values(codes.map((c) => ({ user_id: userId, code_hash: recoveryHash(userId, c), used_at: null })))
    .execute();
  return codes;
}

/**
 * Checks a code of an enrolled user: a TOTP code (taken at most once per step: the step is recorded
 * by a conditional UPDATE, so two requests racing with one code cannot both pass) or an unused
 * recovery code (used up here). False when neither.
 */
export async function verifyFactor(deps: MfaDeps, userId: string, code: string, now = new Date()): Promise<boolean> {
  const given = code.trim();
  if (/^\d{6}$/.test(given)) {
    const row = await deps.db.selectFrom('totp_factors').select(['secret_enc', 'last_step']).where('user_id', '=', userId).where('enabled_at', 'is not', null).executeTakeFirst();
    if (!row) return false;
    const last = row.last_step === null ? null : Number(row.last_step);
    const step = matchStep(base32Decode(deps.keys.open(row.secret_enc)), given, now.getTime(), last);
    if (step === null) return false;
    const taken = await deps.db
      .updateTable('totp_factors')
      .set({ last_step: step })
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
      .returning('user_id')
      .executeTakeFirst();
    return !!taken;
  }
  if (normaliseRecovery(given).length !== 10) return false;
  const used = await deps.db
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', recoveryHash(userId, given))
    .where('used_at', 'is', null)
    .returning('user_id')
    .executeTakeFirst();
  return !!used;
}

/** Switches 2FA off (the route asks for a code first: X-Second-Factor). */
export async function disableMfa(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db.deleteFrom('totp_factors').where('user_id', '=', userId).execute();
}
