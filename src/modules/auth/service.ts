// Accounts: registration, login (with failure limits), profile, operator creation.
import { recordAudit, type Actor } from '../audit/service.ts';
import { hash, verify } from '@node-rs/argon2';
import type { Static } from '@sinclair/typebox';
import type { Db, Executor } from '../../db/index.ts';
import { shortCode, uuidv7 } from '../../db/ids.ts';
import type { User } from '../../db/types.ts';
import type { AuthLimits } from '../../config.ts';
import { UUID } from '../../db/ids.ts';
import { badRequest, notFound, tooManyRequests, unauthorized, validation } from '../../http/errors.ts';
import { enforce, type RateLimiter } from '../../http/ratelimit.ts';
import { pageInfo } from '../../http/pagination.ts';
import { requiredText } from '../../http/sanitize.ts';
import { likePattern } from '../../http/scope.ts';
import { COMMON_PASSWORDS } from './common-passwords.ts';
import type { AdminMerchantsQuery } from './schemas.ts';
import { revokeSessions } from './sessions.ts';

// A hash of a random password, verified when the e-mail is unknown so both paths cost the same.
const DUMMY_HASH = await hash('cofre-timing-equaliser-' + Math.random());

export function userView(u: User) {
  return { id: u.id, name: u.name, email: u.email, role: u.role, referralCode: u.referral_code, walletId: u.wallet_id, createdAt: u.created_at };
}

/** The platform that created this account (a sub-account, modules/accounts), or null. */
export async function platformOf(db: Executor, userId: string): Promise<{ name: string; walletId: string } | null> {
  const row = await db.selectFrom('sub_accounts as s').innerJoin('users as p', 'p.id', 's.platform_id').select(['p.name', 'p.wallet_id']).where('s.user_id', '=', userId).executeTakeFirst();
  return row ? { name: row.name, walletId: row.wallet_id } : null;
}

/** Accounts for an operator, newest first: by part of the name or e-mail, or by id. */
export async function listMerchants(db: Executor, q: Static<typeof AdminMerchantsQuery>) {
  let base = db.selectFrom('users');
  const search = q.search?.trim();
  if (search) {
    const pattern = likePattern(search);
    base = base.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('email', 'ilike', pattern), ...(UUID.test(search) ? [eb('id', '=', search.toLowerCase())] : [])]));
  }
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return {
    data: rows.map((u) => ({ ...userView(u), customFees: u.fees != null && Object.keys(u.fees).length > 0 })),
    meta: pageInfo(q.page, q.limit, Number(total)),
  };
}


async function uniqueReferralCode(db: Executor): Promise<string> {
  for (;;) {
    const code = shortCode(8);
    const clash = await db.selectFrom('users').select('id').where('referral_code', '=', code).executeTakeFirst();
    if (!clash) return code;
  }
}

/**
 * Password rules beyond the schema's length (8-256): not blank, and not one of the passwords an
 * attacker tries first (common-passwords.ts). Throws a 400 on `field`.
 */
export function assertPasswordAllowed(password: string, field: string): void {
  if (!password.trim()) throw validation(field, 'must not be only spaces');
  if (COMMON_PASSWORDS.has(password.toLowerCase())) throw validation(field, 'is too common: choose one that is harder to guess');
}

export async function createUser(
  db: Executor,
  input: { name: string; email: string; password: string; referralCode?: string; role?: 'USER' | 'ADMIN' },
): Promise<User> {
  const email = input.email.trim();
  const name = requiredText(input.name, 'name');
  assertPasswordAllowed(input.password, 'password');
  // Every refusal that says nothing of the e-mail comes before the one that does (see register).
  let referredBy: string | null = null;
  if (input.referralCode) {
    const referrer = await db.selectFrom('users').select('id').where('referral_code', '=', input.referralCode.trim().toUpperCase()).executeTakeFirst();
    if (!referrer) throw badRequest('VALIDATION_ERROR', 'Unknown referral code', [{ field: 'referralCode', message: 'does not exist' }]);
    referredBy = referrer.id;
  }
  const taken = await db.selectFrom('users').select('id').where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase())).executeTakeFirst();
  if (taken) throw badRequest('EMAIL_ALREADY_REGISTERED', 'E-mail already registered', [{ field: 'email', message: 'is already registered' }]);
  const now = new Date();
  try {
    return await db
      .insertInto('users')
      .values({
        id: uuidv7(),
        name,
        email,
        password_hash: await hash(input.password),
        role: input.role ?? 'USER',
        referral_code: await uniqueReferralCode(db),
        referred_by: referredBy,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    // Two registrations racing for one e-mail: the unique index decides.
    if ((err as { code?: string }).code === '23505') {
      throw badRequest('EMAIL_ALREADY_REGISTERED', 'E-mail already registered', [{ field: 'email', message: 'is already registered' }]);
    }
    throw err;
  }
}

const HOUR = 3_600_000;
/** The login limits: per address across e-mails (hourly), and per e-mail + address (5 in 15 minutes). */
export const LOGIN_LIMITS = { ipWindowMs: HOUR, pairWindowMs: 15 * 60_000, pairMax: 5, message: 'Too many failed login attempts; try again later' };
/** The counter of one e-mail's attempts from one address (passwords and second-step codes alike). */
export const loginPairKey = (email: string, ip: string) => `login:${email.trim().toLowerCase()}:${ip}`;

/**
 * Registers an account under the per-IP hourly limit. What counts: an account created, and an
 * attempt refused because the e-mail is registered, once per e-mail (so re-running a sign-up, as the
 * README's walkthrough does, costs one slot, while probing many e-mails for accounts stays limited).
 * Other refusals say nothing of the e-mail and are not counted. A slot is taken before the attempt
 * (parallel attempts cannot all pass) and given back when the attempt does not count.
 */
export async function register(db: Executor, limiter: RateLimiter, limits: AuthLimits, input: Parameters<typeof createUser>[1], ip: string): Promise<User> {
  const key = `register:ip:${ip}`;
  const hit = await limiter.hit(key, HOUR);
  if (hit.count > limits.registrationsPerIpPerHour) {
    await limiter.release(key);
    throw tooManyRequests('Too many accounts created from this address; try again later', hit.resetMs, limits.registrationsPerIpPerHour);
  }
  try {
    return await createUser(db, input);
  } catch (err) {
    const taken = (err as { code?: string }).code === 'EMAIL_ALREADY_REGISTERED';
    if (!taken || (await limiter.hit(`${key}:taken:${input.email.trim().toLowerCase()}`, HOUR)).count > 1) await limiter.release(key);
    throw err;
  }
}

/**
 * Checks a user's password under the login limits. Each attempt is counted *before* the password is
 * verified (an atomic increment), so parallel guesses each take a slot and at most five are ever
 * verified per e-mail + IP in 15 minutes; a success clears that count. The per-IP limit across
 * e-mails counts every attempt (a success cannot be told from a failure before verifying).
 */
async function verifyPassword(limiter: RateLimiter, limits: AuthLimits, user: User | undefined, email: string, password: string, ip: string): Promise<boolean> {
  await enforce(limiter, `login:ip:${ip}`, LOGIN_LIMITS.ipWindowMs, limits.loginAttemptsPerIpPerHour, LOGIN_LIMITS.message);
  const pair = loginPairKey(email, ip);
  await enforce(limiter, pair, LOGIN_LIMITS.pairWindowMs, LOGIN_LIMITS.pairMax, LOGIN_LIMITS.message);
  const ok = await verify(user?.password_hash ?? DUMMY_HASH, password);
  if (ok && user) await limiter.reset(pair);
  return ok && !!user;
}

/** Logs in: the user, or 401 (unknown e-mail and wrong password alike), or 429 past the limits. */
export async function login(db: Executor, limiter: RateLimiter, limits: AuthLimits, email: string, password: string, ip: string): Promise<User> {
  const user = await db.selectFrom('users').selectAll().where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase())).executeTakeFirst();
  if (!(await verifyPassword(limiter, limits, user, email, password, ip))) throw unauthorized('Invalid e-mail or password');
  return user!;
}

/**
 * Changes a password after checking the current one (under the login limits: a stolen token must not
 * become a way to guess it), and revokes every dashboard session of the user in the same
 * transaction. Returns the updated user (the caller opens a new session for the request's client).
 */
export async function changePassword(
  db: Db,
  limiter: RateLimiter,
  limits: AuthLimits,
  userId: string,
  input: { currentPassword: string; newPassword: string },
  actor: Actor & { ip: string },
): Promise<User> {
  const ip = actor.ip;
  const user = await getUser(db, userId);
  if (!(await verifyPassword(limiter, limits, user, user.email, input.currentPassword, ip))) {
    throw validation('currentPassword', 'is not the current password');
  }
  assertPasswordAllowed(input.newPassword, 'newPassword');
  if (input.newPassword === input.currentPassword) throw validation('newPassword', 'must differ from the current password');
  const passwordHash = await hash(input.newPassword);
  return db.transaction().execute(async (trx) => {
    const now = new Date();
    const updated = await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: now })
      .where('id', '=', userId)
      // A concurrent change already replaced the hash verified above: that one wins.
      .where('password_hash', '=', user.password_hash)
      .returningAll()
      .executeTakeFirst();
    if (!updated) throw validation('currentPassword', 'is not the current password');
    await revokeSessions(trx, userId, null, now);
    // Account-level; the entry says the password changed (and every session ended), never a hash.
    await recordAudit(trx, actor, { userId, livemode: null, action: 'password.changed', objectType: 'user', objectId: userId });
    return updated;
  });
}

export async function getUser(db: Executor, id: string): Promise<User> {
  const user = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  if (!user) throw notFound('User');
  return user;
}
