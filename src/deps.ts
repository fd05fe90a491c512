// The composition root's types: every dependency the routes and jobs use, and the app as routes see it.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Config } from './config.ts';
import type { Database, Db } from './db/index.ts';
import type { Authenticator } from './http/auth.ts';
import type { Cursors } from './http/pagination.ts';
import type { RateLimiter } from './http/ratelimit.ts';
import type { FeeSchedule } from './modules/fees.ts';
import type { TxDeps } from './modules/transactions/service.ts';
import type { Webhooks } from './modules/webhooks/service.ts';
import type { Providers } from './payments/provider.ts';

export interface Deps {
  config: Config;
  database: Database;
  db: Db;
  limiter: RateLimiter;
  auth: Authenticator;
  cursors: Cursors;
  providers: Providers;
  tx: TxDeps;
  /** Each merchant's fees: the platform's, or an operator's overrides. */
  fees: FeeSchedule;
  /** Webhook sender and dispatcher (started by `serve` with RUN_JOBS, or by tests). */
  webhooks: Webhooks;
}

/** The Fastify instance as routes see it: TypeBox-typed, with the dependencies. */
export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider> & {
  deps: Deps;
};

declare module 'fastify' {
  interface FastifyInstance {
    deps: Deps;
  }
}
