// buildApp(deps): the HTTP surface over the dependencies built by deps.ts, plugins in order:
// infrastructure -> auth -> modules -> hosted pages.
import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import Fastify from 'fastify';
import { ConfigError } from './config.ts';
import { uuidv7 } from './db/ids.ts';
import type { App, Deps } from './deps.ts';
import type { HttpApp } from './http/app-type.ts';
import { REVOKED_CHANNEL, installAuth } from './http/auth.ts';
import { installCompat } from './http/compat.ts';
import { installErrorHandling } from './http/errors.ts';
import { frameworkErrorOptions, installHardening, MAX_PARAM_LENGTH } from './http/hardening.ts';
import { installIdempotency } from './http/idempotency.ts';
import { LazySchemas } from './http/lazy-schemas.ts';
import { hoistSharedSchemas } from './http/openapi-components.ts';
import { enforce } from './http/ratelimit.ts';
import { addGenericErrors, documentedSchema, ErrorBody, ValidationErrorBody } from './http/schemas.ts';
import emailRoutes from './mail/routes.ts';
import planRoutes from './modules/subscriptions/plan-routes.ts';
import publicSubscriptionRoutes from './modules/subscriptions/public-routes.ts';
import subscriptionRoutes from './modules/subscriptions/routes.ts';
import advanceRoutes from './modules/advances/routes.ts';
import affiliateRoutes from './modules/affiliates/routes.ts';
import authRoutes from './modules/auth/routes.ts';
import securityRoutes from './modules/auth/security-routes.ts';
import { checkSecondFactor } from './modules/auth/second-factor.ts';
import { installSecondFactor } from './http/second-factor.ts';
import checkoutRoutes from './modules/checkout/routes.ts';
import cardRoutes from './modules/cards/routes.ts';
import clientRoutes from './modules/clients/routes.ts';
import privacyRoutes from './modules/privacy/routes.ts';
import { originCompat } from './modules/compat.ts';
import couponRoutes from './modules/coupons/routes.ts';
import referralRoutes from './modules/referrals/routes.ts';
import splitRoutes from './modules/splits/routes.ts';
import accountRoutes from './modules/accounts/routes.ts';
import partnerRoutes from './modules/accounts/partner-routes.ts';
import auditRoutes from './modules/audit/routes.ts';
import credentialRoutes from './modules/credentials/routes.ts';
import feeRoutes from './modules/fees/routes.ts';
import healthRoutes from './modules/health/routes.ts';
import kycRoutes from './modules/kyc/routes.ts';
import ledgerRoutes from './modules/ledger/routes.ts';
import mediaRoutes from './modules/media/routes.ts';
import checkoutsRoutes from './modules/checkouts/routes.ts';
import paymentLinkRoutes from './modules/payment-links/routes.ts';
import productRoutes from './modules/products/routes.ts';
import reportRoutes from './modules/reports/routes.ts';
import salesRoutes from './modules/sales/routes.ts';
import transactionRoutes from './modules/transactions/routes.ts';
import webhookRoutes from './modules/webhooks/routes.ts';
import withdrawalRoutes from './modules/withdrawals/routes.ts';
import checkoutPageRoutes from './web/checkout-routes.ts';
import dashboardRoutes from './web/dashboard.ts';
import subscriptionPageRoutes from './web/subscription-routes.ts';
import { docsUiOptions } from './web/docs-ui.ts';
import webRoutes from './web/routes.ts';

export const API_VERSION = '2.30.0';

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Dates (formats date and date-time) from year 1900 to 9999: earlier ones fall out of the database's
 * range once shifted to São Paulo time (there is no year 0), and no payment is that old.
 */
const DATE_YEARS = { min: 1900, max: 9999 };

/** ajv-formats' formats, with `date` and `date-time` also held to DATE_YEARS. */
function withFormats(ajv: Ajv.default): Ajv.default {
  addFormats.default(ajv);
  for (const name of ['date', 'date-time'] as const) {
    const base = fullFormats[name] as { validate: (s: string) => boolean; compare: (a: string, b: string) => number | undefined };
    ajv.addFormat(name, {
      type: 'string',
      validate: (s: string) => {
        const year = Number(s.slice(0, 4));
        return year >= DATE_YEARS.min && year <= DATE_YEARS.max && base.validate(s);
      },
      compare: base.compare,
    });
  }
  return ajv;
}

/** Body JSON is taken strictly (no type coercion); query strings, params and headers are coerced. */
function validatorCompiler() {
  // multipleOfPrecision: "multipleOf: 0.01" checked with a tolerance, else 1.15 (1.15 / 0.01 =
  // 114.99999999999999 in binary floating point) is refused as not a multiple of 0.01.
  const common = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false, multipleOfPrecision: 9 } as const;
  const strictAjv = withFormats(new Ajv.default({ ...common, coerceTypes: false }));
  const coercingAjv = withFormats(new Ajv.default({ ...common, coerceTypes: 'array' }));
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema);
}

/**
 * The connectors' inbound notifications (payments/registry.ts routes): /api/psp/<connector>/... and
 * their aliases. No API credentials (a connector may ask for a header its provider was told to send:
 * it gets the request's headers); a connector believes nothing a notification says before it asks
 * its provider; a per-address limit keeps strangers from spending the provider's quota.
 */
async function connectorRoutes(app: HttpApp, deps: Pick<Deps, 'connectors' | 'limiter'>) {
  const { connectors, limiter } = deps;
  app.addHook('onClose', async () => connectors.close());
  for (const route of connectors.routes()) {
    const preHandler = async (req: { ip: string }) => {
      await enforce(limiter, `psp-notify:ip:${req.ip}`, 60_000, route.perMinute, 'Too many notifications from this address; send them again later');
    };
    route.urls.forEach((url, i) => {
      const schema = {
        tags: ['PSP notifications'],
        operationId: `${route.operationId}${i === 0 ? '' : `Alt${i}`}`,
        summary: route.summary,
        description: `${route.description}${i === 0 ? '' : ` Also at ${route.urls[0]}.`}`,
        body: route.body as object,
        response: { 200: Type.Object({ message: Type.String() }), 401: Type.Ref('Error'), 429: Type.Ref('Error'), 503: Type.Ref('Error') },
      };
      app.post(url, { schema, preHandler }, async (req) => {
        await route.handle(req.body, req.headers, req.query as Record<string, unknown>);
        return { message: 'OK' };
      });
    });
  }
}

/**
 * Each route plugin is given the dependencies as its options (`app.register(plugin, deps)`). Fastify
 * reads `prefix`, `logLevel` and `logSerializers` from a plugin's options, and avvio `name`: no
 * dependency may be called so (this fails to compile if one is).
 */
const DEPS_ARE_PLUGIN_OPTIONS: [Extract<keyof Deps, 'prefix' | 'logLevel' | 'logSerializers' | 'name'>] extends [never] ? true : never = true;
void DEPS_ARE_PLUGIN_OPTIONS;

export async function buildApp(deps: Deps): Promise<App> {
  const { config, database, auth } = deps;
  const app = Fastify({
    loggerInstance: deps.log,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : uuidv7();
    },
    bodyLimit: 1024 * 1024,
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    ...frameworkErrorOptions({ baseUrl: config.baseUrl }),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  const schemas = new LazySchemas();
  app.setValidatorCompiler(schemas.validators(validatorCompiler()));
  app.decorate('deps', deps);
  app.decorate('schemas', schemas);
  app.addHook('onClose', () => deps.webhooks.close());
  app.addHook('onClose', async () => deps.mail.mailer.close());
  await listenForRevocations(app, deps);

  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Request-Id', req.id);
    done();
  });

  // Infrastructure
  installErrorHandling(app);
  installHardening(app, { baseUrl: config.baseUrl });
  // Origin compatibility (envelopes, aliases, spellings): before any other onRoute hook, see compat.ts.
  installCompat(app, originCompat(deps.db), schemas);
  app.addSchema(ValidationErrorBody);
  app.addSchema(ErrorBody);
  // Before the idempotency store: a refused second factor is not an answer to replay.
  installSecondFactor(app, (userId, code) => checkSecondFactor({ db: deps.db, keys: deps.accountKeys, limiter: deps.limiter }, userId, code));
  // Before compression: the idempotency store reads the JSON text of each response.
  installIdempotency(app, database.db);
  await app.register(compress, { encodings: ['br', 'gzip'], threshold: 1024 });
  await installApiDocs(app, config.baseUrl);
  // The site's front door is the merchant dashboard (served under /dashboard).
  app.get('/', { schema: { hide: true } }, (_req, reply) => reply.redirect('/dashboard', 302));

  // Responses every route of a kind can give, documented once: body limits, rate limits, 500.
  app.addHook('onRoute', addGenericErrors);

  // Auth, then modules
  installAuth(app, auth);
  installReplicaReads(app, deps);
  await registerRoutes(app, deps);

  return app;
}

/**
 * Reads from the replica (db/read-router.ts): its probe starts with the HTTP app; a merchant's
 * request that may have written marks it before the answer goes out, so its next reads go to the
 * primary until the replica has it (read-your-writes).
 */
function installReplicaReads(app: App, { reads }: Deps) {
  if (!reads.replica) return; // no replica: nothing on the hot path
  reads.start();
  const safe = new Set(['GET', 'HEAD', 'OPTIONS']);
  app.addHook('onSend', (req, _reply, payload, done) => {
    const marked = req.auth && !safe.has(req.method) ? reads.wrote(req.auth.userId) : undefined;
    if (marked) marked.then(() => done(null, payload));
    else done(null, payload);
  });
}

/** Revocations made by other instances reach this one's key cache at once (see REVOKED_CHANNEL). */
async function listenForRevocations(app: App, { database, auth }: Deps) {
  try {
    const stop = await database.listen(REVOKED_CHANNEL, (keyHash) => auth.forget(keyHash));
    app.addHook('onClose', () => stop().catch(() => {})); // the database may be closed already
  } catch (err) {
    if (err instanceof ConfigError) throw err; // LISTEN through a pooler that cannot carry it: refuse to start
    app.log.warn({ err }, 'auth: LISTEN for key revocations failed; other instances revoke within the key cache time (4 s)');
  }
}

/** The OpenAPI document (/openapi.json) and its rendered docs (/docs). */
async function installApiDocs(app: App, baseUrl: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cofre payment gateway API',
        version: API_VERSION,
        description: 'PIX, card and boleto payments for Brazilian merchants. Money is in integer cents (BRL).',
      },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'API-Key', description: 'API key (cofre_test_... or cofre_live_...)' },
          bearerApiKey: { type: 'http', scheme: 'bearer', description: 'The same API key as a Bearer token' },
          bearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Dashboard token from POST /api/auth/login' },
        },
      },
    },
    transform: documentedSchema as never,
    transformObject: (({ openapiObject }: { openapiObject: Record<string, unknown> }) => hoistSharedSchemas(openapiObject)) as never,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, docsUiOptions(baseUrl));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/** Every module's routes, then the hosted pages and the dashboard. */
async function registerRoutes(app: App, deps: Deps) {
  await app.register(healthRoutes, deps);
  await app.register(authRoutes, deps);
  await app.register(securityRoutes, deps);
  await app.register(credentialRoutes, deps);
  await app.register(auditRoutes, deps);
  await app.register(productRoutes, deps);
  await app.register(clientRoutes, deps);
  await app.register(privacyRoutes, deps);
  await app.register(cardRoutes, deps);
  await app.register(salesRoutes, deps);
  await app.register(transactionRoutes, deps);
  await app.register(reportRoutes, deps);
  await app.register(ledgerRoutes, deps);
  await app.register(feeRoutes, deps);
  await app.register(webhookRoutes, deps);
  await app.register(withdrawalRoutes, deps);
  await app.register(advanceRoutes, deps);
  await app.register(kycRoutes, deps);
  await app.register(emailRoutes, deps);
  await app.register(planRoutes, deps);
  await app.register(subscriptionRoutes, deps);
  await app.register(publicSubscriptionRoutes, deps);
  await app.register(paymentLinkRoutes, deps);
  await app.register(checkoutsRoutes, deps);
  await app.register(couponRoutes, deps);
  await app.register(affiliateRoutes, deps);
  await app.register(referralRoutes, deps);
  await app.register(splitRoutes, deps);
  await app.register(accountRoutes, deps);
  await app.register(partnerRoutes, deps);
  await app.register(checkoutRoutes, deps);
  await app.register(connectorRoutes, deps);
  await app.register(checkoutPageRoutes, deps);
  await app.register(subscriptionPageRoutes, deps);
  await app.register(webRoutes, deps);
  await app.register(mediaRoutes, deps);
  await app.register(dashboardRoutes);
}
