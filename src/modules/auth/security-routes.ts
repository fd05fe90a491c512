// Account security routes of the dashboard (token only): two-factor authentication (status, enrol,
// confirm, turn off), the sessions of the account, and the e-mailed second-factor code.
import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { FastifyRequest } from 'fastify';
import { inTx, type Db, type Trx } from '../../db/index.ts';
import { actorOf, recordAudit } from '../audit/service.ts';
import type { RateLimiter } from '../../http/ratelimit.ts';
import { errors, IdParams, Message } from '../../http/schemas.ts';
import type { AccountKeys } from './account-keys.ts';
import { confirmEnrolment, disableMfa, mfaStatus, startEnrolment } from './mfa.ts';
import { CodeBody, EnrolmentResponse, MfaStatus, RecoveryCodesResponse, SessionView } from './schemas.ts';
import { EMAIL_CODE_MINUTES, sendEmailCode } from './second-factor.ts';
import { getUser } from './service.ts';
import { listSessions, revokeSession, revokeSessions } from './sessions.ts';

export interface SecurityRouteDeps {
  db: Db;
  accountKeys: AccountKeys;
  limiter: RateLimiter;
}

const TOKEN = { auth: { token: true } } as const;
const tags = ['Auth: security'];

export default async function securityRoutes(app: HttpApp, deps: SecurityRouteDeps) {
  const { db, accountKeys: keys, limiter } = deps;
  /** Runs `work` and its account-level audit entry in one transaction. */
  const audited = <T>(req: FastifyRequest, action: string, objectType: string, objectId: string, work: (trx: Trx) => Promise<T>) =>
    inTx(db, async (trx) => {
      const done = await work(trx);
      await recordAudit(trx, actorOf(req), { userId: req.auth.userId, livemode: null, action, objectType, objectId });
      return done;
    });

  app.get(
    '/api/auth/mfa',
    { config: TOKEN, schema: { tags, operationId: 'getMfa', summary: 'Whether two-factor authentication is on', response: { 200: Type.Object({ mfa: MfaStatus }), ...errors(401) } } },
    async (req) => ({ mfa: await mfaStatus(db, req.auth.userId) }),
  );

  app.post(
    '/api/auth/mfa/enrol',
    {
      // The secret is shown once: never stored for Idempotency-Key replays.
      config: { ...TOKEN, idempotency: 'off' },
      schema: {
        tags,
        operationId: 'startMfaEnrolment',
        summary: 'Start enrolling an authenticator app (TOTP)',
        description:
          'Returns a new secret as a QR code, an otpauth:// URI and base32 text, shown only here. Nothing changes until POST /api/auth/mfa/confirm receives a code from the app; starting again replaces the secret. 409 while two-factor authentication is on.',
        response: { 201: EnrolmentResponse, ...errors(401, 409) },
      },
    },
    async (req, reply) => {
      const enrolment = await startEnrolment({ db, keys }, await getUser(db, req.auth.userId));
      return reply.code(201).send({ message: 'Scan the QR code, then confirm with a code from the app', ...enrolment });
    },
  );

  app.post(
    '/api/auth/mfa/confirm',
    {
      config: { ...TOKEN, idempotency: 'off' },
      schema: {
        tags,
        operationId: 'confirmMfaEnrolment',
        summary: 'Turn two-factor authentication on with a first code',
        description: 'Answers ten recovery codes, each usable once instead of a code, shown only in this response (stored hashed). From now on logins ask for a code.',
        body: CodeBody,
        response: { 200: RecoveryCodesResponse, ...errors(400, 401, 409) },
      },
    },
    async (req) => ({
      message: 'Two-factor authentication is on; keep the recovery codes somewhere safe',
      recoveryCodes: await audited(req, 'mfa.enabled', 'user', req.auth.userId, (trx) => confirmEnrolment({ db: trx, keys }, req.auth.userId, req.body.code)),
    }),
  );

  app.delete(
    '/api/auth/mfa',
    {
      config: { ...TOKEN, secondFactor: true },
      schema: {
        tags,
        operationId: 'disableMfa',
        summary: 'Turn two-factor authentication off',
        description: 'Needs a current code of the app (or a recovery code) in X-Second-Factor. The recovery codes are deleted.',
        response: { 200: Message, ...errors(401, 403) },
      },
    },
    async (req) => {
      await audited(req, 'mfa.disabled', 'user', req.auth.userId, (trx) => disableMfa(trx, req.auth.userId));
      return { message: 'Two-factor authentication is off' };
    },
  );

  app.post(
    '/api/auth/second-factor',
    {
      config: TOKEN,
      schema: {
        tags,
        operationId: 'sendSecondFactorCode',
        summary: 'E-mail a code to confirm a money-moving action',
        description: `For accounts without two-factor authentication: a 6-digit code, valid ${EMAIL_CODE_MINUTES} minutes, 5 tries and one use, goes to the account's e-mail; send it in X-Second-Factor. A new request replaces the previous code. 409 when two-factor authentication is on (use the app's code); 429 past 5 per hour.`,
        response: { 202: Type.Object({ message: Type.String(), expiresIn: Type.Integer({ description: 'seconds' }) }), ...errors(401, 409, 429) },
      },
    },
    async (req, reply) => {
      await sendEmailCode({ db, keys, limiter }, req.auth.userId);
      return reply.code(202).send({ message: 'A code was sent to the e-mail of the account', expiresIn: EMAIL_CODE_MINUTES * 60 });
    },
  );

  app.get(
    '/api/auth/sessions',
    {
      config: TOKEN,
      schema: {
        tags,
        operationId: 'listSessions',
        summary: 'The dashboard sessions of the account',
        description: 'Live sessions (not ended, not expired), most recently used first; `current` marks the one making the request. `lastUsedAt` is updated at most once a minute.',
        response: { 200: Type.Object({ sessions: Type.Array(SessionView) }), ...errors(401) },
      },
    },
    async (req) => ({ sessions: await listSessions(db, req.auth.userId, req.auth.sessionId) }),
  );

  app.delete(
    '/api/auth/sessions/others',
    {
      config: TOKEN,
      schema: {
        tags,
        operationId: 'revokeOtherSessions',
        summary: 'End every session but this one',
        description: 'Their tokens are refused from the next request, on every instance.',
        response: { 200: Type.Object({ message: Type.String(), revoked: Type.Integer() }), ...errors(401) },
      },
    },
    async (req) => {
      const revoked = await audited(req, 'sessions.revoked', 'user', req.auth.userId, (trx) => revokeSessions(trx, req.auth.userId, req.auth.sessionId));
      return { message: 'Every other session was ended', revoked };
    },
  );

  app.delete(
    '/api/auth/sessions/:id',
    {
      config: TOKEN,
      schema: {
        tags,
        operationId: 'revokeSession',
        summary: 'End one session',
        description: "Its token is refused from the next request, on every instance (this one's too, when it is the current session). 404 for another account's session or one already ended.",
        params: IdParams,
        response: { 200: Message, ...errors(401, 404) },
      },
    },
    async (req) => {
      await audited(req, 'session.revoked', 'session', req.params.id, (trx) => revokeSession(trx, req.auth.userId, req.params.id));
      return { message: 'Session ended' };
    },
  );
}
