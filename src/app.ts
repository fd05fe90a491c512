// buildApp(deps): plugins in order: infrastructure -> auth -> modules.
import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import Fastify from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.ts';
import type { Database, Db } from './db/index.ts';
import { uuidv7 } from './db/ids.ts';
import { Authenticator, REVOKED_CHANNEL, installAuth } from './http/auth.ts';
import { installCompat } from './http/compat.ts';
import { installErrorHandling } from './http/errors.ts';
import { installIdempotency } from './http/idempotency.ts';
import { Cursors } from './http/pagination.ts';
import type { RateLimiter } from './http/ratelimit.ts';
import { addGenericErrors, ErrorBody, ValidationErrorBody } from './http/schemas.ts';
import authRoutes from './modules/auth/routes.ts';
import clientRoutes from './modules/clients/routes.ts';
import { ORIGIN_COMPAT } from './modules/compat.ts';
import checkoutModule from './modules/checkout/index.ts';
import credentialRoutes from './modules/credentials/routes.ts';
import healthRoutes from './modules/health/routes.ts';
import ledgerRoutes from './modules/ledger/routes.ts';
import productRoutes from './modules/products/routes.ts';
import transactionRoutes from './modules/transactions/routes.ts';
import walletRoutes from './modules/wallet.ts';
import webhookRoutes from './modules/webhooks/routes.ts';
import { Webhooks } from './modules/webhooks/service.ts';
import { FeeSchedule } from './modules/fees.ts';
import { createProviders, type Providers } from './payments/provider.ts';
import type { App } from './deps.ts';
import webRoutes from './web/routes.ts';

export const API_VERSION = '2.30.0';

export interface BuildOptions {
  config: Config;
  database: Database;
  limiter: RateLimiter;
  /** Where JSON logs go (tests capture them); default stdout. */
  logStream?: DestinationStream;
  perUserPerMinute?: number;
  /** Payment providers; default from config (sandbox, and production if PAYMENT_PROVIDER is set). */
  providers?: Providers;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Body JSON is taken strictly (no type coercion); query strings, params and headers are coerced. */
function validatorCompiler() {
  const common = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false } as const;
  const strictAjv = addFormats.default(new Ajv.default({ ...common, coerceTypes: false }));
  const coercingAjv = addFormats.default(new Ajv.default({ ...common, coerceTypes: 'array' }));
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema);
}

export async function buildApp(opts: BuildOptions): Promise<App> {
  const { config, database, limiter } = opts;
  const perUserPerMinute = opts.perUserPerMinute ?? config.rateLimitPerMinute;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      stream: opts.logStream,
      redact: {
        paths: ['req.headers.authorization', 'req.headers["api-key"]', 'req.headers.cookie', '*.password', '*.token', '*.key', '*.secret', '*.document', '*.card'],
        censor: '[redacted]',
      },
      serializers: {
        // Path only: query strings can carry search text (names, documents).
        req: (req) => ({ method: req.method, path: req.url.split('?')[0], requestId: req.id }),
      },
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : uuidv7();
    },
    bodyLimit: 1024 * 1024,
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  app.setValidatorCompiler(validatorCompiler());
  const auth = new Authenticator({ db: database.db, jwtSecret: config.jwtSecret, limiter, perUserPerMinute });
  const cursors = new Cursors(config.cursorSecret);
  const providers = opts.providers ?? createProviders(config.productionProvider);
  const fees = new FeeSchedule(database.db, config.fees);
  const webhooks = new Webhooks({ db: database.db, database, config, cursors, log: app.log });
  app.decorate('deps', { config, database, db: database.db, limiter, auth, cursors, providers, tx: { db: database.db, config, providers, cursors, fees }, fees, webhooks });
  app.addHook('onClose', () => webhooks.close());
  // Revocations made by other instances reach this one's key cache at once (see REVOKED_CHANNEL).
  try {
    const stop = await database.listen(REVOKED_CHANNEL, (keyHash) => auth.forget(keyHash));
    app.addHook('onClose', () => stop().catch(() => {})); // the database may be closed already
  } catch (err) {
    app.log.warn({ err }, 'auth: LISTEN for key revocations failed; other instances revoke within the key cache time (4 s)');
  }

  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });

  // Infrastructure
  installErrorHandling(app);
  // Origin compatibility (envelopes, aliases, spellings): before any other onRoute hook, see compat.ts.
  installCompat(app, ORIGIN_COMPAT);
  app.addSchema(ValidationErrorBody);
  app.addSchema(ErrorBody);
  // Before compression: the idempotency store reads the JSON text of each response.
  installIdempotency(app, database.db);
  await app.register(compress, { encodings: ['br', 'gzip'], threshold: 1024 });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cofre payment gateway API',
        version: API_VERSION,
        description: 'PIX, card and boleto payments for Brazilian merchants. Money is in integer cents (BRL).',
      },
      servers: [{ url: config.baseUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'API-Key', description: 'API key (cofre_test_... or cofre_live_...)' },
          bearerApiKey: { type: 'http', scheme: 'bearer', description: 'The same API key as a Bearer token' },
          bearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Dashboard token from POST /api/auth/login' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // Responses every route of a kind can give, documented once: body limits, rate limits, 500.
  app.addHook('onRoute', addGenericErrors);

  // Auth, then modules
  installAuth(app, auth);
  await app.register(healthRoutes);
  await app.register(authRoutes);
  await app.register(credentialRoutes);
  await app.register(productRoutes);
  await app.register(clientRoutes);
  await app.register(transactionRoutes);
  await app.register(ledgerRoutes);
  await app.register(webhookRoutes);
  await app.register(walletRoutes);
  await app.register(checkoutModule);
  await app.register(webRoutes);

  return app;
}
