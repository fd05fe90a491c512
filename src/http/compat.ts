// Compatibility with the origin gateway's clients (docs/compatibility.md): code written against the
// origin works against Cofre with another base URL and key. The mechanisms live here, declared once
// for every route; what they apply to is one table (src/modules/compat.ts):
// - aliases: a route is served under the origin's path too (same handler, schema and hooks);
// - spellings: a preValidation step rewrites the origin's field names and values into ours, so
//   validation, services and the Idempotency-Key fingerprint only ever see the canonical request;
// - envelopes on every body (envelope.ts);
// - an empty JSON body is no body (in the JSON parser, http/hardening.ts);
// - `page=1` on cursor-style lists is the first page.
import type { FastifyInstance, FastifyRequest, HTTPMethods, RouteOptions } from 'fastify';
import { addEnvelope, envelopeSerializerCompiler } from './envelope.ts';
import { validation } from './errors.ts';
import type { LazySchemas } from './lazy-schemas.ts';

export interface Alias {
  /** Default: the route's own method. */
  method?: HTTPMethods;
  url: string;
  /** The alias's OpenAPI operationId, or a suffix to the route's own (one of the two is required). */
  operationId?: string;
  operationIdSuffix?: string;
}

export interface CompatRoute {
  /** Other paths (or methods) that serve this route. */
  aliases?: Alias[];
  /** Rewrites the origin's spellings in the request into ours, before validation. */
  spellings?: (req: FastifyRequest) => void | Promise<void>;
}

/** Origin compatibility of the routes, keyed by `METHOD /path` as the route declares it (`:id` params). */
export type CompatTable = Record<string, CompatRoute>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on an alias route: the route it serves (`METHOD /path`). */
    aliasOf?: string;
  }
}

const asArray = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

/**
 * Installs the compatibility layer. Call it before the routes are registered and before any other
 * onRoute hook: an alias is registered from the route's options as its module declared them, so
 * every other hook (auth, documented errors, OpenAPI) processes the alias on its own, exactly once.
 * Every route's serializer is the envelope's, compiled on first use (`schemas`).
 */
export function installCompat(app: FastifyInstance, table: CompatTable, schemas: LazySchemas) {
  app.setSerializerCompiler(schemas.serializers(envelopeSerializerCompiler(() => app.getSchemas())));

  const seen = new Set<string>();
  app.addHook('onRoute', function (this: FastifyInstance, route: RouteOptions) {
    if (route.config?.aliasOf) return;
    const methods = asArray(route.method);
    const key = `${methods[0]} ${route.url}`;
    const entry = table[key];
    if (!entry || methods.length !== 1) return;
    seen.add(key);
    const spellings = entry.spellings;
    // Callback-style: most spellings are rewritten in place, with no promise to wait for.
    if (spellings) {
      const hook = (req: FastifyRequest, _reply: unknown, done: (err?: Error) => void) => {
        let pending: void | Promise<void>;
        try {
          pending = spellings(req);
        } catch (err) {
          return done(err as Error);
        }
        if (pending) pending.then(() => done(), done);
        else done();
      };
      route.preValidation = [hook, ...asArray(route.preValidation)];
    }
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    for (const alias of entry.aliases ?? []) {
      const method = alias.method ?? methods[0];
      const { path: _p, prefix: _x, routePath: _r, ...options } = route as RouteOptions & { path?: string; prefix?: string; routePath?: string };
      this.route({
        ...options,
        method,
        url: alias.url,
        config: { ...route.config, aliasOf: key },
        schema: {
          ...schema,
          operationId: aliasOperationId(key, schema.operationId, alias),
          description: `Alias of \`${key.replace(/:(\w+)/g, '{$1}')}\` (origin-compatible path): the same operation, request and response.${schema.description ? `\n\n${schema.description}` : ''}`,
          'x-alias-of': key.replace(/:(\w+)/g, '{$1}'),
        },
      } as RouteOptions);
    }
  });
  app.addHook('onRoute', addEnvelope);
  app.addHook('onRoute', acceptFirstPage);
  // A table entry that matches no route is a typo or a renamed route: refuse to start.
  app.addHook('onReady', async () => {
    const unmatched = Object.keys(table).filter((k) => !seen.has(k));
    if (unmatched.length) throw new Error(`compat table names routes that do not exist: ${unmatched.join(', ')}`);
  });
}

/** Every alias is an operation of its own in the OpenAPI document, with a unique operationId. */
function aliasOperationId(key: string, own: unknown, alias: Alias): string {
  if (alias.operationId) return alias.operationId;
  if (typeof own !== 'string' || !alias.operationIdSuffix) throw new Error(`compat alias ${alias.url} of ${key}: give it an operationId (or the route one and a suffix)`);
  return `${own}${alias.operationIdSuffix}`;
}

const FIRST_PAGE_ONLY = 'cursor-style list: page=1 (the first page) is accepted; for the next pages follow pagination.nextCursor (cursor=...)';

/**
 * onRoute hook: a cursor-style list (its query has `cursor` and no `page`) takes `page=1` as the first
 * page, as origin clients send it; any other page is a 400 pointing at nextCursor. The parameter is
 * documented on the list and removed before validation, so the list itself never sees it.
 */
export function acceptFirstPage(route: RouteOptions) {
  const schema = route.schema as { querystring?: { properties?: Record<string, unknown> } } | undefined;
  const props = schema?.querystring?.properties;
  if (!props || !('cursor' in props) || 'page' in props) return;
  route.schema = {
    ...schema,
    querystring: {
      ...schema!.querystring,
      properties: { ...props, page: { type: 'integer', minimum: 1, maximum: 1, description: `Origin compatibility: ${FIRST_PAGE_ONLY}` } },
    },
  } as RouteOptions['schema'];
  const firstPage = async (req: FastifyRequest) => {
    const q = req.query as Record<string, unknown> | undefined;
    if (!q || q.page === undefined) return;
    if (q.page !== '1' && q.page !== 1) throw validation('querystring.page', FIRST_PAGE_ONLY);
    delete q.page;
  };
  route.preValidation = [firstPage, ...asArray(route.preValidation)];
}

/**
 * Moves `body[alias]` to `body[canonical]` (through `map`). Both at once are accepted only when they
 * say the same thing.
 */
export function takeAlias(body: Record<string, unknown> | undefined, alias: string, canonical: string, map: (v: unknown) => unknown = (v) => v) {
  if (!body || typeof body !== 'object' || body[alias] === undefined) return;
  const value = map(body[alias]);
  if (body[canonical] !== undefined && body[canonical] !== value) throw validation(alias, `says something else than ${canonical}: send one of them`);
  body[canonical] = value;
  delete body[alias];
}

/** The origin's `CREDIT_CARD` is our `CARD`. */
export const canonicalMethod = (v: unknown) => (v === 'CREDIT_CARD' ? 'CARD' : v);
