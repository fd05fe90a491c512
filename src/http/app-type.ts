// The Fastify instance as route plugins see it: TypeBox-typed. Below the modules, so that a route
// file names its app without importing the composition root; what a plugin needs it is given as its
// options (app.ts: `app.register(plugin, deps)`).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';

export type HttpApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
