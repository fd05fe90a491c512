// The steps of signing in beyond the password: the login challenge of an account with two-factor
// authentication (5 minutes, used once, by a valid code), and the password reset by e-mail (a link
// valid 1 hour, used once, that ends every session; a sub-account's invitation is one valid 7 days).
import { hash } from '@node-rs/argon2';
import type { Db, Executor, Trx } from '../../db/index.ts';
import type { AuthLimits } from '../../config.ts';
import type { User } from '../../db/types.ts';
import { hashKey } from '../../http/auth.ts';
import { unauthorized, validation } from '../../http/errors.ts';
import { enforce, type RateLimiter } from '../../http/ratelimit.ts';
import { queueEmail } from '../../mail/outbox.ts';
import { newToken, type AccountKeys } from './account-keys.ts';
import { verifyFactor } from './mfa.ts';
import { assertPasswordAllowed, getUser, LOGIN_LIMITS, loginPairKey } from './service.ts';
import { revokeSessions } from './sessions.ts';

export const CHALLENGE_SECONDS = 300;
export const RESET_MINUTES = 60;
const RESETS_PER_EMAIL_PER_HOUR = 5;

/** A login challenge for a user whose password was just verified. */
export async function openChallenge(db: Executor, userId: string, now = new Date()): Promise<string> {
  const { token, hash: tokenHash } = newToken();
  await db.deleteFrom('login_challenges').where('user_id', '=', userId).where('expires_at', '<', now).execute();
  await db.insertInto('login_challenges').values({ token_hash: tokenHash, user_id: userId, expires_at: new Date(now.getTime() + CHALLENGE_SECONDS * 1000), used_at: null }).execute();
  return token;
}

/**
 * The second step of a login: the challenge's user when `code` is valid. Each try counts against the
 * login limits of the account's e-mail and address (as a wrong password does) before it is checked;
 * the challenge is used up by the first success only, so a mistyped code can be typed again.
 */
export async function answerChallenge(deps: { db: Db; keys: AccountKeys; limiter: RateLimiter; limits: AuthLimits }, challenge: string, code: string, ip: string, now = new Date()): Promise<User> {
  const refused = () => unauthorized('Invalid or expired code');
  const row = await deps.db.selectFrom('login_challenges').select('user_id').where('token_hash', '=', hashKey(challenge)).where('used_at', 'is', null).where('expires_at', '>', now).executeTakeFirst();
  await enforce(deps.limiter, `login:ip:${ip}`, LOGIN_LIMITS.ipWindowMs, deps.limits.loginAttemptsPerIpPerHour, LOGIN_LIMITS.message);
  if (!row) throw unauthorized('The login challenge is invalid or expired: log in again');
  const user = await getUser(deps.db, row.user_id);
  const pair = loginPairKey(user.email, ip);
  await enforce(deps.limiter, pair, LOGIN_LIMITS.pairWindowMs, LOGIN_LIMITS.pairMax, LOGIN_LIMITS.message);
  if (!(await verifyFactor(deps, user.id, code, now))) throw refused();
  const used = await deps.db.updateTable('login_challenges').set({ used_at: now }).where('token_hash', '=', hashKey(challenge)).where('used_at', 'is', null).returning('user_id').executeTakeFirst();
  if (!used) throw refused();
  await deps.limiter.reset(pair);
  return user;
}

/**
 * Sends a reset link when the e-mail belongs to an account; says nothing either way (the route
 * answers 202 alike). Limited per address and per e-mail, counted before the lookup.
 */
export async function forgotPassword(deps: { db: Db; limiter: RateLimiter; limits: AuthLimits; baseUrl: string }, email: string, ip: string, now = new Date()): Promise<void> {
  const address = email.trim().toLowerCase();
  await enforce(deps.limiter, `reset:ip:${ip}`, LOGIN_LIMITS.ipWindowMs, deps.limits.loginAttemptsPerIpPerHour, 'Too many password resets requested; try again later');
  await enforce(deps.limiter, `reset:email:${address}`, LOGIN_LIMITS.ipWindowMs, RESETS_PER_EMAIL_PER_HOUR, 'Too many password resets requested; try again later');
  const user = await deps.db.selectFrom('users').selectAll().where((eb) => eb(eb.fn('lower', ['email']), '=', address)).executeTakeFirst();
  if (!user) return;
  await deps.db.transaction().execute(async (trx) => {
    const resetUrl = await issueResetLink(trx, deps.baseUrl, user.id, RESET_MINUTES, now);
    await queueEmail(trx, { userId: user.id, livemode: false }, user.email, { kind: 'password_reset', name: user.name, resetUrl, minutes: RESET_MINUTES }, null, now);
  });
}

/**
 * A single-use link to the dashboard's password page for `userId`, valid `minutes`, stored in the
 * caller's transaction (the e-mail that carries it is queued in the same one). A sub-account's
 * invitation is one, valid longer (modules/accounts).
 */
export async function issueResetLink(trx: Executor, baseUrl: string, userId: string, minutes: number, now: Date): Promise<string> {
  const { token, hash: tokenHash } = newToken();
  await trx.insertInto('password_resets').values({ token_hash: tokenHash, user_id: userId, expires_at: new Date(now.getTime() + minutes * 60_000), used_at: null, created_at: now }).execute();
  return `${baseUrl}/dashboard/redefinir-senha?token=${token}`;
}

/**
 * Sets a new password with a reset token: the token is used up (with every other one of the
 * account), and every dashboard session ends, in one transaction. 400 for a token that is unknown,
 * used or expired. Two-factor authentication stays on: the next login still asks for the code.
 */
export async function resetPassword(db: Db, token: string, password: string, audit: (trx: Trx, userId: string) => Promise<void>, now = new Date()): Promise<void> {
  assertPasswordAllowed(password, 'password');
  const passwordHash = await hash(password);
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('password_resets')
      .set({ used_at: now })
      .where('token_hash', '=', hashKey(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('user_id')
      .executeTakeFirst();
    if (!row) throw validation('token', 'is invalid, expired or already used: ask for a new link');
    await trx.updateTable('password_resets').set({ used_at: now }).where('user_id', '=', row.user_id).where('used_at', 'is', null).execute();
    await trx.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', row.user_id).execute();
    // A sub-account created by its platform can log in from now on (its invitation was used).
    await trx.updateTable('sub_accounts').set({ login_enabled_at: now }).where('user_id', '=', row.user_id).where('login_enabled_at', 'is', null).execute();
    await revokeSessions(trx, row.user_id, null, now);
    await audit(trx, row.user_id);
  });
}
