// Shared TypeBox pieces: one schema is validation, OpenAPI and TS type at once.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyRequest, RouteOptions } from 'fastify';

/** OpenAPI 3.1 / JSON Schema nullable: `type: [T, 'null']`. */
export function Nullable<T extends TSchema>(schema: T) {
  const s = schema as unknown as { type?: string; anyOf?: unknown[] };
  if (typeof s.type === 'string') return Type.Unsafe<Static<T> | null>({ ...schema, type: [s.type, 'null'] });
  return Type.Unsafe<Static<T> | null>({ anyOf: [schema, { type: 'null' }] });
}

export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });
/** A date-time as produced by the database (Date objects are serialised to ISO 8601). */
export const Timestamp = Type.Unsafe<Date | string>({ type: 'string', format: 'date-time' });
export const Cents = (opts: { minimum?: number; maximum?: number; description?: string } = {}) =>
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, ...opts });

export const IdParams = Type.Object({ id: Uuid });

/** Route config of the operator API: a dashboard token of a user with role ADMIN (403 for anyone else). */
export const ADMIN = { auth: { token: true, admin: true } } as const;

/** The Idempotency-Key request header, as documented on the POST routes that honour it. */
export const IdempotencyHeader = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Retries with the same key and body replay the first response (24 h)' })),
});

/** preValidation of routes whose body is optional: a POST without one means `{}`. */
export const emptyBodyIsObject = async (req: FastifyRequest) => {
  (req as { body: unknown }).body ??= {};
};

/** Operator decisions: an optional or a required reason, told to the merchant. */
const Reason = Type.String({ minLength: 1, maxLength: 500 });
export const OptionalReasonBody = Type.Object({ reason: Type.Optional(Reason) }, { additionalProperties: false });
export const RequiredReasonBody = Type.Object({ reason: Reason }, { additionalProperties: false });

export const Message = Type.Object({ message: Type.String() });

export const FieldError = Type.Object({ field: Type.String(), message: Type.String() });
export const ValidationErrorBody = Type.Object(
  {
    message: Type.String(),
    code: Type.String({ description: 'Machine-readable error code; see docs/errors.md' }),
    timestamp: DateTime,
    path: Type.String(),
    errors: Type.Array(FieldError),
    success: Type.Literal(false, { description: 'Always false on an error (origin-compatible envelope)' }),
  },
  { $id: 'ValidationError' },
);
export const ErrorBody = Type.Object(
  { message: Type.String(), success: Type.Literal(false, { description: 'Always false on an error (origin-compatible envelope)' }) },
  { $id: 'Error' },
);

/**
 * What the OpenAPI document says about the errors any route of a kind can give (the error handler in
 * errors.ts answers them all with `{ message }`); other statuses mean different things per route.
 */
const GENERIC_ERRORS: Record<number, { description: string; headers?: Record<string, TSchema> }> = {
  413: { description: 'Request body larger than the size limit' },
  415: { description: 'Request body is not application/json' },
  429: {
    description: 'Rate limited: wait Retry-After seconds',
    headers: {
      'Retry-After': Type.Integer({ minimum: 1, description: 'Seconds until the limit resets' }),
      'RateLimit-Limit': Type.Integer({ minimum: 1, description: 'Requests allowed in the window' }),
      'RateLimit-Remaining': Type.Integer({ minimum: 0, description: 'Requests left in the window (0 here)' }),
      'RateLimit-Reset': Type.Integer({ minimum: 1, description: 'Seconds until the window resets' }),
    },
  },
  500: { description: 'Unexpected failure; no internals are revealed (X-Request-Id finds it in the logs)' },
};

/** Standard error responses, merged into a route's response map: 400 ValidationError, the rest Error. */
export function errors(...statuses: number[]) {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) out[s] = s === 400 ? Type.Ref('ValidationError') : Type.Ref('Error', GENERIC_ERRORS[s] ?? {});
  return out;
}

/**
 * onRoute hook: documents the errors every route of a kind can give, without replacing a response the
 * route declares itself: 413 and 415 where there is a body schema, 429 where `config.auth` applies the
 * per-merchant rate limit (auth.ts), 500 everywhere. Routes without a response map or hidden are left alone.
 */
export function addGenericErrors(route: RouteOptions) {
  const schema = route.schema as { response?: Record<string, unknown>; body?: unknown; hide?: boolean } | undefined;
  if (!schema?.response || schema.hide) return;
  const statuses = [...(schema.body ? [413, 415] : []), ...(route.config?.auth ? [429] : []), 500];
  // A new schema object: a schema literal shared by several routes must not collect another route's errors.
  route.schema = { ...schema, response: { ...errors(...statuses), ...schema.response } } as RouteOptions['schema'];
}

/** Highest `page` of page-style lists: with `limit` <= 100 the offset stays under 10^8 rows. */
export const MAX_PAGE = 1_000_000;

export const PageQuery = {
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
};

export const PagePagination = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  totalPages: Type.Integer(),
});

export const CursorPagination = Type.Object({
  limit: Type.Integer(),
  cursor: Nullable(Type.String()),
  hasMore: Type.Boolean(),
  nextCursor: Nullable(Type.String()),
});

export const CursorQuery = {
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  orderDirection: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' })),
};

export const Environment = Type.Union([Type.Literal('DEVELOPMENT'), Type.Literal('PRODUCTION')]);

/**
 * The OpenAPI document's view of a route's schema (@fastify/swagger `transform`): a query parameter
 * with a default is optional to the caller (validation fills it in), so it is not documented as
 * required, and typed clients (openapi-typescript) do not have to send it. Validation is unchanged.
 */
export function documentedSchema({ schema, url }: { schema: unknown; url: string }) {
  const s = schema as { querystring?: { properties?: Record<string, { default?: unknown }>; required?: string[] } } | undefined;
  const query = s?.querystring;
  if (!query?.properties || !Array.isArray(query.required)) return { schema, url };
  const required = query.required.filter((name) => query.properties![name]?.default === undefined);
  return { schema: { ...s, querystring: { ...query, required } }, url };
}
