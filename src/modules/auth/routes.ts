import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { Db, Trx } from '../../db/index.ts';
import { actorOf, recordAudit } from '../audit/service.ts';
import type { Authenticator } from '../../http/auth.ts';
import type { RateLimiter } from '../../http/ratelimit.ts';
import type { Config } from '../../config.ts';
import { unauthorized } from '../../http/errors.ts';
import { ADMIN, errors, Message } from '../../http/schemas.ts';
import type { User } from '../../db/types.ts';
import { AdminMerchantList, AdminMerchantsQuery, ChangePasswordBody, LoginBody, RegisterBody, UserView } from './schemas.ts';
import { changePassword, getUser, listMerchants, login, register, userView } from './service.ts';

const TokenResponse = Type.Object({ message: Type.String(), token: Type.String(), expiresIn: Type.Integer({ description: 'seconds' }), user: UserView });

/** The options of authRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface AuthRouteDeps {
  db: Db;
  auth: Authenticator;
  limiter: RateLimiter;
  config: Config;
}

export default async function authRoutes(app: HttpApp, deps: AuthRouteDeps) {
  const { db, auth, limiter, config } = deps;

  /** A new dashboard session for `user`; refused when its password changed since it was verified. */
  async function session(user: User, opened?: (trx: Trx, sessionId: string) => Promise<void>): Promise<string> {
    const token = await auth.startSession(user, config.jwtTtlSeconds, opened);
    if (!token) throw unauthorized('Invalid e-mail or password');
    return token;
  }

  app.post(
    '/api/auth/register',
    {
      schema: {
        tags: ['Auth'],
        operationId: 'register',
        summary: 'Create a merchant account',
        body: RegisterBody,
        response: { 201: Type.Object({ message: Type.String(), user: UserView, token: Type.String() }), ...errors(400, 429) },
      },
    },
    async (req, reply) => {
      const user = await register(db, limiter, config.authLimits, req.body, req.ip);
      return reply.code(201).send({ message: 'Account created', user: userView(user), token: await session(user) });
    },
  );

  app.post(
    '/api/auth/login',
    {
      schema: {
        tags: ['Auth'],
        operationId: 'login',
        summary: 'Log in and receive a dashboard token (JWT)',
        body: LoginBody,
        response: { 200: TokenResponse, ...errors(400, 401, 429) },
      },
    },
    async (req) => {
      const user = await login(db, limiter, config.authLimits, req.body.email, req.body.password, req.ip);
      const signedIn = (trx: Trx, sessionId: string) =>
        recordAudit(trx, actorOf(req, user.id), { userId: user.id, livemode: null, action: 'session.created', objectType: 'session', objectId: sessionId });
      return { message: 'Logged in', token: await session(user, signedIn), expiresIn: config.jwtTtlSeconds, user: userView(user) };
    },
  );

  app.post(
    '/api/auth/logout',
    {
      config: { auth: { token: true } },
      schema: {
        tags: ['Auth'],
        operationId: 'logout',
        summary: 'End this dashboard session',
        description: 'The token used is refused from now on, on every instance. Other sessions of the account stay open.',
        response: { 200: Message, ...errors(401) },
      },
    },
    async (req) => {
      await auth.endSession(req.auth.userId, req.auth.sessionId!);
      return { message: 'Logged out' };
    },
  );

  app.post(
    '/api/auth/password',
    {
      // The response carries a new token: never stored for Idempotency-Key replays.
      config: { auth: { token: true }, idempotency: 'off' },
      schema: {
        tags: ['Auth'],
        operationId: 'changePassword',
        summary: 'Change the password',
        description:
          'Needs the current password (counted against the login limits). Every dashboard session of the account is ended, this one included; the response carries a token for a new session.',
        body: ChangePasswordBody,
        response: { 200: TokenResponse, ...errors(400, 401, 429) },
      },
    },
    async (req) => {
      const user = await changePassword(db, limiter, config.authLimits, req.auth.userId, req.body, { ...actorOf(req), ip: req.ip });
      return { message: 'Password changed; every other session was ended', token: await session(user), expiresIn: config.jwtTtlSeconds, user: userView(user) };
    },
  );

  app.get(
    '/api/auth/me',
    {
      config: { auth: { token: true } },
      schema: { tags: ['Auth'], operationId: 'getMe', summary: 'The logged-in account', response: { 200: Type.Object({ user: UserView }), ...errors(401) } },
    },
    async (req) => ({ user: userView(await getUser(db, req.auth.userId)) }),
  );

  app.get(
    '/api/admin/merchants',
    {
      config: ADMIN,
      schema: {
        tags: ['Operator: fees'],
        operationId: 'adminListMerchants',
        summary: 'Find a merchant (newest first)',
        description: '`search` matches part of the name or e-mail, or the exact id. `customFees` tells which merchants have negotiated fees.',
        querystring: AdminMerchantsQuery,
        response: { 200: AdminMerchantList, ...errors(400, 401, 403) },
      },
    },
    async (req) => listMerchants(db, req.query),
  );
}
