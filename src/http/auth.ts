// Authentication and permission checks, declared per route with `config.auth`.
// One onRoute hook turns that declaration into an onRequest check and the route's OpenAPI security.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import { UUID, uuidv7 } from '../db/ids.ts';
import { inTx, type Db, type Executor, type Trx } from '../db/index.ts';
import { SharedReads } from '../db/shared-reads.ts';
import { AppError, forbidden, rateLimitHeaders, unauthorized, validation } from './errors.ts';
import { enforce, type RateLimiter } from './ratelimit.ts';

export const PERMISSIONS = [
  'paymentLinks:read',
  'paymentLinks:write',
  'transactions:read',
  'transactions:write',
  'products:read',
  'products:write',
  'customers:read',
  'customers:write',
  'coupons:read',
  'coupons:write',
  'webhooks:read',
  'webhooks:write',
  'withdrawals:read',
  'withdrawals:write',
  'subscriptions:read',
  'subscriptions:write',
  'affiliates:read',
  'affiliates:write',
  'auditLog:read',
  'checkouts:read',
  'checkouts:write',
  'accounts:read',
  'accounts:write',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/**
 * How a route authenticates:
 * - `{ key: 'products:read' }`: API key with that permission (spec "K").
 * - `{ key: 'withdrawals:write', token: true }`: API key with the permission, or a dashboard JWT (spec "T").
 * - `{ token: true }`: dashboard JWT only (account-level routes: credentials, profile).
 * - `{ token: true, admin: true }`: dashboard JWT of an ADMIN user.
 */
export interface AuthSpec {
  key?: Permission;
  token?: boolean;
  admin?: boolean;
  /**
   * Credentials may be left out: without any, the request goes on unauthenticated (`req.auth` null)
   * and the route applies its public rules; credentials that are sent are checked as usual (401, 403).
   */
  optional?: boolean;
}

export interface AuthContext {
  userId: string;
  livemode: boolean;
  via: 'key' | 'token';
  keyId: string | null;
  /** The dashboard session of a token request (its `jti`); null for API keys. */
  sessionId: string | null;
  role: 'USER' | 'ADMIN';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthSpec;
  }
  interface FastifyRequest {
    auth: AuthContext;
  }
}

export const KEY_PATTERN = /^cofre_(test|live)_[A-Za-z0-9_-]{43}$/;
export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

interface CachedKey {
  ctx: AuthContext;
  permissions: Set<string>;
  expiresAt: number;
}

/**
 * How long a looked-up key is trusted before the database is asked again. A revocation is also
 * announced on REVOKED_CHANNEL, so other instances drop it at once; this bounds the delay when
 * that announcement is missed (a LISTEN connection lost).
 */
const KEY_CACHE_MS = 4000;

const LAST_USED_EVERY_MS = 60_000;

/** Whether the user has two-factor authentication (TOTP) switched on (modules/auth/mfa.ts enrols). */
export async function totpEnabled(db: Executor, userId: string): Promise<boolean> {
  const row = await db.selectFrom('totp_factors').select('enabled_at').where('user_id', '=', userId).executeTakeFirst();
  return !!row?.enabled_at;
}

/** Where a dashboard session was opened from (shown in its owner's session list). */
export interface SessionOrigin {
  userAgent?: string;
  ip?: string;
}

/** pg_notify channel of revocations; the payload is the key's hash. */
export const REVOKED_CHANNEL = 'cofre_key_revoked';

export interface AuthDeps {
  db: Db;
  jwtSecret: string;
  limiter: RateLimiter;
  /** Requests per minute per merchant on authenticated routes. */
  perUserPerMinute: number;
}

export class Authenticator {
  private cache = new Map<string, CachedKey>();
  /** Reads of keys under way (by hash), shared by the requests that missed the cache meanwhile; a revocation ends their sharing. */
  private reading = new SharedReads<CachedKey | null>();
  private secret: Uint8Array;
  private deps: AuthDeps;
  constructor(deps: AuthDeps) {
    this.deps = deps;
    this.secret = new TextEncoder().encode(deps.jwtSecret);
  }

  /**
   * Opens a dashboard session and returns its token (the session id is the token's `jti`). The row is
   * written only while the user's password hash is still `passwordHash`, the one just verified: a
   * login racing a password change gets no session (null) rather than one that outlives the change.
   * `opened` runs in the session's transaction once the row is written (the sign-in's audit entry).
   */
  async startSession(user: { id: string; role: string; password_hash: string }, ttlSeconds: number, from: SessionOrigin = {}, opened?: (trx: Trx, sessionId: string) => Promise<void>): Promise<string | null> {
    const now = new Date();
    const id = uuidv7(now.getTime());
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    const db = this.deps.db;
    // Expired sessions of this user go as a new one comes: the table holds live sessions only.
    await db.deleteFrom('sessions').where('user_id', '=', user.id).where('expires_at', '<', now).execute();
    const row = await inTx(db, async (trx) => {
      const opening = await trx
        .insertInto('sessions')
        .columns(['user_id', 'id', 'created_at', 'expires_at', 'last_used_at', 'user_agent', 'ip'])
        .expression(
          trx
            .selectFrom('users')
            .select((eb) => [
              'id',
              eb.val(id).as('sid'),
              eb.val(now).as('created'),
              eb.val(expiresAt).as('expires'),
              eb.val(now).as('used'),
              eb.val(from.userAgent?.slice(0, 512) ?? null).as('ua'),
              eb.val(from.ip ?? null).as('addr'),
            ])
            .where('id', '=', user.id)
            .where('password_hash', '=', user.password_hash),
        )
        .returning('id')
        .executeTakeFirst();
      if (opening && opened) await opened(trx, id);
      return opening;
    });
    if (!row) return null;
    return new SignJWT({ role: user.role })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .setJti(id)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .setAudience('cofre-dashboard')
      .sign(this.secret);
  }

  /** Ends one dashboard session (logout): its token is refused from now on, on every instance. */
  async endSession(userId: string, sessionId: string): Promise<void> {
    const now = new Date();
    await this.deps.db.updateTable('sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('id', '=', sessionId).where('revoked_at', 'is', null).execute();
  }

  /**
   * Authenticated routes are limited per merchant, not per IP: 429 with Retry-After past the limit.
   * Returns the RateLimit-* headers every authenticated response carries.
   */
  async limitMerchant(userId: string): Promise<Record<string, string>> {
    const limit = this.deps.perUserPerMinute;
    const hit = await enforce(this.deps.limiter, `user:${userId}`, 60_000, limit, 'Too many requests for this account; slow down');
    return rateLimitHeaders(limit, limit - hit.count, hit.resetMs);
  }

  /** Drops a key from this instance's cache at once (a revocation, here or announced by another instance). */
  forget(keyHash: string) {
    this.cache.delete(keyHash);
    this.reading.changed();
  }

  /**
   * The key's entry: from the cache while fresh, else read. Requests that miss together (every
   * KEY_CACHE_MS, under load, all of a merchant's requests at that moment) share one read.
   */
  private lookupKey(key: string): Promise<CachedKey | null> {
    const h = hashKey(key);
    const hit = this.cache.get(h);
    if (hit && hit.expiresAt > Date.now()) return Promise.resolve(hit);
    return this.reading.run(h, (current) => this.readKey(h, current));
  }

  private async readKey(h: string, current: () => boolean): Promise<CachedKey | null> {
    const now = Date.now();
    const row = await this.deps.db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .select(['api_keys.id', 'api_keys.user_id', 'api_keys.livemode', 'api_keys.permissions', 'api_keys.revoked_at', 'users.role'])
      .where('api_keys.key_hash', '=', h)
      .executeTakeFirst();
    if (!row || row.revoked_at) {
      this.cache.delete(h);
      return null;
    }
    const entry: CachedKey = {
      ctx: { userId: row.user_id, livemode: row.livemode, via: 'key', keyId: row.id, sessionId: null, role: row.role },
      permissions: new Set(row.permissions),
      expiresAt: now + KEY_CACHE_MS,
    };
    // A revocation that landed while the row was being read may have been missed by it: do not cache.
    if (!current()) return entry;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(h, entry);
    return entry;
  }

  /**
   * A token is taken when its signature, audience and expiry hold (a token without `exp` is refused)
   * and its session is live in the database: one primary-key read per dashboard request, which is
   * what lets a logout or a password change take effect at once on every instance. The role comes
   * from the database too, so a changed role counts from the next request.
   */
  private async verifyToken(token: string): Promise<{ userId: string; sessionId: string; role: 'USER' | 'ADMIN' } | null> {
    let sub: string;
    let jti: string;
    try {
      const { payload } = await jwtVerify(token, this.secret, { audience: 'cofre-dashboard', algorithms: ['HS256'], requiredClaims: ['exp', 'iat', 'sub', 'jti'] });
      if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || !UUID.test(payload.sub) || !UUID.test(payload.jti)) return null;
      sub = payload.sub;
      jti = payload.jti;
    } catch {
      return null;
    }
    const row = await this.deps.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['sessions.expires_at', 'sessions.revoked_at', 'sessions.last_used_at', 'users.role'])
      .where('sessions.user_id', '=', sub)
      .where('sessions.id', '=', jti)
      .executeTakeFirst();
    const now = Date.now();
    if (!row || row.revoked_at || new Date(row.expires_at).getTime() <= now) return null;
    // "Last used" is written at most once a minute per session: a dashboard makes many requests.
    if (!row.last_used_at || new Date(row.last_used_at).getTime() < now - LAST_USED_EVERY_MS) {
      await this.deps.db.updateTable('sessions').set({ last_used_at: new Date(now) }).where('user_id', '=', sub).where('id', '=', jti).execute();
    }
    return { userId: sub, sessionId: jti, role: row.role };
  }

  async authenticate(req: FastifyRequest, spec: AuthSpec): Promise<AuthContext> {
    const headerKey = req.headers['api-key'];
    const authz = req.headers.authorization;
    let credential: string | undefined;
    if (typeof headerKey === 'string' && headerKey.length) credential = headerKey.trim();
    else if (typeof authz === 'string') {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
      if (!m) throw unauthorized('Malformed Authorization header: use "Bearer <key or token>"');
      credential = m[1];
    }
    if (!credential) throw unauthorized('Missing credentials: send an API key in the API-Key header or Authorization: Bearer');

    if (credential.startsWith('cofre_')) {
      if (!spec.key) throw unauthorized('This route needs a dashboard token from POST /api/auth/login');
      if (!KEY_PATTERN.test(credential)) throw unauthorized('Malformed API key');
      const found = await this.lookupKey(credential);
      if (!found) throw unauthorized('Invalid or revoked API key');
      if (!found.permissions.has(spec.key)) throw forbidden(`This API key lacks the ${spec.key} permission`);
      return found.ctx;
    }

    if (!spec.token) throw unauthorized('Invalid API key');
    const claims = await this.verifyToken(credential);
    if (!claims) throw unauthorized('Invalid or expired token');
    if (spec.admin && claims.role !== 'ADMIN') throw forbidden('Operator (ADMIN) role required');
    if (spec.admin && !(await totpEnabled(this.deps.db, claims.userId))) {
      throw new AppError(403, 'Operators must turn on two-factor authentication (POST /api/auth/mfa/enrol) before using operator routes', null, [], { 'X-Error-Code': 'MFA_ENROLMENT_REQUIRED' });
    }
    return { userId: claims.userId, livemode: environmentOf(req), via: 'token', keyId: null, sessionId: claims.sessionId, role: claims.role };
  }
}

/** A dashboard request chooses its environment with X-Environment (default development). */
function environmentOf(req: FastifyRequest): boolean {
  const raw = req.headers['x-environment'];
  if (raw === undefined) return false;
  const v = String(raw).toLowerCase();
  if (v === 'development') return false;
  if (v === 'production') return true;
  throw validation('X-Environment', 'must be development or production');
}

export function installAuth(app: FastifyInstance, auth: Authenticator) {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.addHook('onRoute', (route: RouteOptions) => {
    const spec = route.config?.auth;
    if (!spec) return;
    const security: Record<string, string[]>[] = [];
    if (spec.key) security.push({ apiKey: [] }, { bearerApiKey: [] });
    if (spec.token) security.push({ bearerToken: [] });
    if (spec.optional) security.push({});
    route.schema = { ...(route.schema ?? {}), security } as typeof route.schema;
    const check = async (req: FastifyRequest, reply: FastifyReply) => {
      if (spec.optional && req.headers['api-key'] === undefined && req.headers.authorization === undefined) return;
      req.auth = await auth.authenticate(req, spec);
      reply.headers(await auth.limitMerchant(req.auth.userId));
    };
    const existing = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : [];
    route.onRequest = [check, ...existing];
  });
}
