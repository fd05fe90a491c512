// The second factor asked by money-moving dashboard actions (http/second-factor.ts checks it on the
// routes that declare `config.secondFactor`): the current TOTP code (or a recovery code) of an
// enrolled account; otherwise a 6-digit code e-mailed on request, valid 5 minutes for 5 tries, once.
import { randomInt } from 'node:crypto';
import type { Db } from '../../db/index.ts';
import { conflict } from '../../http/errors.ts';
import { enforce, type RateLimiter } from '../../http/ratelimit.ts';
import { queueEmail } from '../../mail/outbox.ts';
import type { AccountKeys } from './account-keys.ts';
import { getUser } from './service.ts';
import { verifyFactor } from './mfa.ts';
import { totpEnabled } from '../../http/auth.ts';

export const EMAIL_CODE_MINUTES = 5;
const EMAIL_CODE_TRIES = 5;
const FAILURES_WINDOW_MS = 15 * 60_000;
const MAX_FAILURES = 5;
const SENDS_PER_HOUR = 5;

export interface SecondFactorDeps {
  db: Db;
  keys: AccountKeys;
  limiter: RateLimiter;
}

const codeMac = (keys: AccountKeys, userId: string, code: string) => keys.mac(`second-factor:${userId}:${code}`);

/** E-mails a new code to an account without TOTP (replacing any earlier one). 409 when TOTP is on. */
export async function sendEmailCode(deps: SecondFactorDeps, userId: string, now = new Date()): Promise<void> {
  if (await totpEnabled(deps.db, userId)) throw conflict('Two-factor authentication is on: use the code of your authenticator app');
  await enforce(deps.limiter, `second-factor:mail:${userId}`, 3_600_000, SENDS_PER_HOUR, 'Too many codes requested; try again later');
  const user = await getUser(deps.db, userId);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const values = { code_hash: codeMac(deps.keys, userId, code), expires_at: new Date(now.getTime() + EMAIL_CODE_MINUTES * 60_000), attempts: 0 };
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('second_factor_codes')
      .values({ user_id: userId, ...values })
      .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
      .execute();
    await queueEmail(trx, { userId, livemode: false }, user.email, { kind: 'second_factor_code', name: user.name, code, minutes: EMAIL_CODE_MINUTES }, null, now);
  });
}

/**
 * Takes the e-mailed code: each try counts (5 at most) before it is compared; a match is deleted in
 * the same statement that proves it unused, so a code works once even when two requests race.
 */
async function takeEmailCode(deps: SecondFactorDeps, userId: string, code: string, now: Date): Promise<boolean> {
  const row = await deps.db
    .updateTable('second_factor_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .where('attempts', '<', EMAIL_CODE_TRIES)
    .returning('code_hash')
    .executeTakeFirst();
  if (!row || !/^\d{6}$/.test(code) || row.code_hash !== codeMac(deps.keys, userId, code)) return false;
  const taken = await deps.db.deleteFrom('second_factor_codes').where('user_id', '=', userId).where('code_hash', '=', row.code_hash).returning('user_id').executeTakeFirst();
  return !!taken;
}

/**
 * Whether `code` is a valid second factor for the user now. Failures are limited per account (5 in
 * 15 minutes, counted before the check so parallel guesses each take a slot: 429 past it); a success
 * clears the count.
 */
export async function checkSecondFactor(deps: SecondFactorDeps, userId: string, code: string, now = new Date()): Promise<boolean> {
  const key = `second-factor:fail:${userId}`;
  await enforce(deps.limiter, key, FAILURES_WINDOW_MS, MAX_FAILURES, 'Too many wrong codes; try again later');
  const given = code.trim();
  const ok = (await totpEnabled(deps.db, userId)) ? await verifyFactor(deps, userId, given, now) : await takeEmailCode(deps, userId, given, now);
  if (ok) await deps.limiter.reset(key);
  return ok;
}
