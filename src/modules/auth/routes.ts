import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { Db, Trx } from '../../db/index.ts';
import { actorOf, recordAudit } from '../audit/service.ts';
import { totpEnabled, type Authenticator } from '../../http/auth.ts';
import { enforce } from '../../http/ratelimit.ts';
import type { FastifyRequest } from 'fastify';
import type { RateLimiter } from '../../http/ratelimit.ts';
import type { Config } from '../../config.ts';
import { unauthorized } from '../../http/errors.ts';
import { ADMIN, errors, Message } from '../../http/schemas.ts';
import type { User } from '../../db/types.ts';
import { AdminMerchantList, AdminMerchantsQuery, ChangePasswordBody, ForgotPasswordBody, LoginBody, LoginMfaBody, MeView, MfaChallengeResponse, RegisterBody, ResetPasswordBody, UserView } from './schemas.ts';
import type { AccountKeys } from './account-keys.ts';
import { answerChallenge, CHALLENGE_SECONDS, forgotPassword, openChallenge, resetPassword } from './sign-in.ts';
import { changePassword, getUser, listMerchants, login, platformOf, register, userView } from './service.ts';

const TokenResponse = Type.Object({ message: Type.String(), token: Type.String(), expiresIn: Type.Integer({ description: 'seconds' }), user: UserView });
/** A token, or (two-factor authentication on) a challenge for POST /api/auth/login/mfa: one object, so the envelope stays the same. */
const LoginResponse = Type.Object({
  message: Type.String(),
  token: Type.Optional(Type.String({ description: 'Absent when mfaRequired' })),
  expiresIn: Type.Integer({ description: "Seconds the token (or, when mfaRequired, the challenge) is valid" }),
  user: Type.Optional(UserView),
  mfaRequired: Type.Optional(MfaChallengeResponse.properties.mfaRequired),
  challenge: Type.Optional(MfaChallengeResponse.properties.challenge),
});

/** The options of authRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface AuthRouteDeps {
  db: Db;
  accountKeys: AccountKeys;
  auth: Authenticator;
  limiter: RateLimiter;
  config: Config;
}

export default async function authRoutes(app: HttpApp, deps: AuthRouteDeps) {
  const { db, auth, limiter, config, accountKeys } = deps;

  /** A new dashboard session for `user`; refused when its password changed since it was verified. */
  async function session(user: User, req: FastifyRequest): Promise<string> {
    // Every session opened is in the audit log, in the commit that opens it.
    const signedIn = (trx: Trx, sessionId: string) => recordAudit(trx, actorOf(req, user.id), { userId: user.id, livemode: null, action: 'session.created', objectType: 'session', objectId: sessionId });
    const token = await auth.startSession(user, config.jwtTtlSeconds, { userAgent: req.headers['user-agent'], ip: req.ip }, signedIn);
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
      return reply.code(201).send({ message: 'Account created', user: userView(user), token: await session(user, req) });
    },
  );

  app.post(
    '/api/auth/login',
    {
      schema: {
        tags: ['Auth'],
        operationId: 'login',
        summary: 'Log in and receive a dashboard token (JWT)',
        description:
          'With two-factor authentication on, the answer is `{ mfaRequired: true, challenge }` instead of a token: send the challenge and a code to POST /api/auth/login/mfa within 5 minutes. Failed attempts are limited per e-mail and address (5 in 15 minutes) and per address (LOGIN_ATTEMPTS_PER_IP_PER_HOUR).',
        body: LoginBody,
        response: { 200: LoginResponse, ...errors(400, 401, 429) },
      },
    },
    async (req) => {
      const user = await login(db, limiter, config.authLimits, req.body.email, req.body.password, req.ip);
      if (await totpEnabled(db, user.id)) {
        return { message: 'Two-factor authentication code required', mfaRequired: true as const, challenge: await openChallenge(db, user.id), expiresIn: CHALLENGE_SECONDS };
      }
      return { message: 'Logged in', token: await session(user, req), expiresIn: config.jwtTtlSeconds, user: userView(user) };
    },
  );

  app.post(
    '/api/auth/login/mfa',
    {
      schema: {
        tags: ['Auth'],
        operationId: 'loginMfa',
        summary: 'Second step of a login: the code of the authenticator app (or a recovery code)',
        description:
          'The challenge comes from POST /api/auth/login and works once. A TOTP code is accepted once (a replay in its 30-second window is refused); each recovery code works once. Wrong codes count against the login limits (429 past them); 401 for a wrong code or an expired challenge.',
        body: LoginMfaBody,
        response: { 200: TokenResponse, ...errors(400, 401, 429) },
      },
    },
    async (req) => {
      const user = await answerChallenge({ db, keys: accountKeys, limiter, limits: config.authLimits }, req.body.challenge, req.body.code, req.ip);
      return { message: 'Logged in', token: await session(user, req), expiresIn: config.jwtTtlSeconds, user: userView(user) };
    },
  );

  app.post(
    '/api/auth/password/forgot',
    {
      schema: {
        tags: ['Auth'],
        operationId: 'forgotPassword',
        summary: 'E-mail a password reset link',
        description:
          'Always 202 with the same body, whether an account has this e-mail or not. When one does, a message in pt-BR carries a link to the dashboard (/dashboard/redefinir-senha?token=...) valid for 1 hour and once. Limited per address (LOGIN_ATTEMPTS_PER_IP_PER_HOUR) and to 5 per e-mail per hour.',
        body: ForgotPasswordBody,
        response: { 202: Message, ...errors(400, 429) },
      },
    },
    async (req, reply) => {
      await forgotPassword({ db, limiter, limits: config.authLimits, baseUrl: config.baseUrl }, req.body.email, req.ip);
      return reply.code(202).send({ message: 'If an account uses this e-mail, a link to reset its password is on its way' });
    },
  );

  app.post(
    '/api/auth/password/reset',
    {
      schema: {
        tags: ['Auth'],
        operationId: 'resetPassword',
        summary: 'Set a new password with the e-mailed token',
        description:
          'The token works once and for 1 hour (400 VALIDATION_ERROR on `token` otherwise). Every dashboard session of the account ends; log in again (two-factor authentication, when on, is still asked). The password rules of registration apply.',
        body: ResetPasswordBody,
        response: { 200: Message, ...errors(400, 429) },
      },
    },
    async (req) => {
      await enforce(limiter, `reset:ip:${req.ip}`, 3_600_000, config.authLimits.loginAttemptsPerIpPerHour, 'Too many password resets; try again later');
      await resetPassword(db, req.body.token, req.body.password, (trx, userId) => recordAudit(trx, actorOf(req, userId), { userId, livemode: null, action: 'password.reset', objectType: 'user', objectId: userId }));
      return { message: 'Password changed; log in with the new password' };
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
      return { message: 'Password changed; every other session was ended', token: await session(user, req), expiresIn: config.jwtTtlSeconds, user: userView(user) };
    },
  );

  app.get(
    '/api/auth/me',
    {
      config: { auth: { token: true } },
      schema: { tags: ['Auth'], operationId: 'getMe', summary: 'The logged-in account', response: { 200: Type.Object({ user: MeView }), ...errors(401) } },
    },
    async (req) => ({ user: { ...userView(await getUser(db, req.auth.userId)), platform: await platformOf(db, req.auth.userId) } }),
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
