// Accounts: registration, login (with failure limits), profile, operator creation.
import { hash, verify } from '@node-rs/argon2';
import type { Executor } from '../../db/index.ts';
import { shortCode, uuidv7 } from '../../db/ids.ts';
import type { User } from '../../db/types.ts';
import { badRequest, notFound, tooManyRequests, unauthorized } from '../../http/errors.ts';
import type { RateLimiter } from '../../http/ratelimit.ts';

// A hash of a random password, verified when the e-mail is unknown so both paths cost the same.
const DUMMY_HASH = await hash('cofre-timing-equaliser-' + Math.random());

export function userView(u: User) {
  return { id: u.id, name: u.name, email: u.email, role: u.role, referralCode: u.referral_code, createdAt: u.created_at };
}

async function uniqueReferralCode(db: Executor): Promise<string> {
  for (;;) {
    const code = shortCode(8);
    const clash = await db.selectFrom('users').select('id').where('referral_code', '=', code).executeTakeFirst();
    if (!clash) return code;
  }
}

export async function createUser(
  db: Executor,
  input: { name: string; email: string; password: string; referralCode?: string; role?: 'USER' | 'ADMIN' },
): Promise<User> {
  const email = input.email.trim();
  const taken = await db.selectFrom('users').select('id').where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase())).executeTakeFirst();
  if (taken) throw badRequest('EMAIL_ALREADY_REGISTERED', 'E-mail already registered', [{ field: 'email', message: 'is already registered' }]);
  let referredBy: string | null = null;
  if (input.referralCode) {
    const referrer = await db.selectFrom('users').select('id').where('referral_code', '=', input.referralCode.trim().toUpperCase()).executeTakeFirst();
    if (!referrer) throw badRequest('VALIDATION_ERROR', 'Unknown referral code', [{ field: 'referralCode', message: 'does not exist' }]);
    referredBy = referrer.id;
  }
  const now = new Date();
  try {
    return await db
      .insertInto('users')
      .values({
        id: uuidv7(),
        name: input.name.trim(),
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

const LOGIN_WINDOW_MS = 15 * 60_000;
const LOGIN_MAX_FAILURES = 5;

/** Checks a password; failures are counted per e-mail + IP and locked out after five in 15 minutes. */
export async function login(db: Executor, limiter: RateLimiter, email: string, password: string, ip: string): Promise<User> {
  const key = `login:${email.trim().toLowerCase()}:${ip}`;
  const seen = await limiter.peek(key);
  if (seen.count >= LOGIN_MAX_FAILURES) {
    throw tooManyRequests('Too many failed login attempts; try again later', seen.resetMs, LOGIN_MAX_FAILURES);
  }
  const user = await db.selectFrom('users').selectAll().where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase())).executeTakeFirst();
  const ok = await verify(user?.password_hash ?? DUMMY_HASH, password);
  if (!user || !ok) {
    await limiter.hit(key, LOGIN_WINDOW_MS);
    throw unauthorized('Invalid e-mail or password');
  }
  await limiter.reset(key);
  return user;
}

export async function getUser(db: Executor, id: string): Promise<User> {
  const user = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  if (!user) throw notFound('User');
  return user;
}
