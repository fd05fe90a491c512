// Shared TypeBox pieces: one schema is validation, OpenAPI and TS type at once.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

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

export const Message = Type.Object({ message: Type.String() });

export const FieldError = Type.Object({ field: Type.String(), message: Type.String() });
export const ValidationErrorBody = Type.Object(
  {
    message: Type.String(),
    code: Type.String({ description: 'Machine-readable error code; see docs/errors.md' }),
    timestamp: DateTime,
    path: Type.String(),
    errors: Type.Array(FieldError),
  },
  { $id: 'ValidationError' },
);
export const ErrorBody = Type.Object({ message: Type.String() }, { $id: 'Error' });

/** Standard error responses for an authenticated route, merged into a route's response map. */
export function errors(...statuses: number[]) {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) out[s] = s === 400 ? Type.Ref('ValidationError') : Type.Ref('Error');
  return out;
}

export const PageQuery = {
  page: Type.Integer({ minimum: 1, default: 1 }),
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
