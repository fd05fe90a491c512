// The second factor of money-moving dashboard actions, declared per route with `config.secondFactor`.
// A request made with a dashboard token must carry X-Second-Factor (the current TOTP code, a
// recovery code, or the code e-mailed by POST /api/auth/second-factor); API keys are not asked.
// Checked in a preHandler registered before the idempotency store's, so a refusal is never stored
// as the answer to an Idempotency-Key: the retry with the code is a new attempt.
import { Type, type TObject } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from './errors.ts';

/** true: always; 'production': when the request is in production (X-Environment); a function: when it says so. */
export type SecondFactorRule = true | 'production' | ((req: FastifyRequest) => boolean);

declare module 'fastify' {
  interface FastifyContextConfig {
    secondFactor?: SecondFactorRule;
  }
}

export const SECOND_FACTOR_HEADER = 'x-second-factor';

/** 403 with the code in X-Error-Code (403 bodies carry only a message: spec, errors). */
export const secondFactorError = (code: 'SECOND_FACTOR_REQUIRED' | 'SECOND_FACTOR_INVALID', message: string) => new AppError(403, message, null, [], { 'X-Error-Code': code });

export type SecondFactorCheck = (userId: string, code: string) => Promise<boolean>;

function applies(rule: SecondFactorRule, req: FastifyRequest): boolean {
  if (req.auth?.via !== 'token') return false;
  if (rule === true) return true;
  if (rule === 'production') return req.auth.livemode;
  return rule(req);
}

/** Documents the header and the 403 on every route that asks for it. */
function document(route: RouteOptions) {
  const schema = (route.schema ?? {}) as { headers?: TObject; description?: string };
  const header = Type.Optional(Type.String({ maxLength: 64, description: 'Second factor of a dashboard token request: the current TOTP code, a recovery code or the e-mailed code' }));
  schema.headers = Type.Object({ ...(schema.headers?.properties ?? {}), [SECOND_FACTOR_HEADER]: header });
  const note =
    'From a dashboard token this needs the `X-Second-Factor` header (TOTP code when two-factor authentication is on, else a code from POST /api/auth/second-factor): without it 403 with `X-Error-Code: SECOND_FACTOR_REQUIRED`, a wrong one 403 `SECOND_FACTOR_INVALID`. API keys are not asked.';
  schema.description = schema.description ? `${schema.description}\n\n${note}` : note;
  route.schema = schema as RouteOptions['schema'];
}

export function installSecondFactor(app: FastifyInstance, check: SecondFactorCheck) {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.secondFactor) document(route);
  });
  app.addHook('preHandler', (req, _reply, done) => {
    const rule = req.routeOptions.config.secondFactor;
    if (!rule || !applies(rule, req)) return done();
    const raw = req.headers[SECOND_FACTOR_HEADER];
    const code = typeof raw === 'string' ? raw.trim() : '';
    if (!code) return done(secondFactorError('SECOND_FACTOR_REQUIRED', 'This action needs a second factor: send the code in the X-Second-Factor header'));
    check(req.auth.userId, code).then(
      (ok) => done(ok ? undefined : secondFactorError('SECOND_FACTOR_INVALID', 'The second factor is wrong, expired or already used')),
      done,
    );
  });
}
