import { Type } from '@sinclair/typebox';
import { CursorPagination, CursorQuery, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { ACTOR_TYPES } from './service.ts';

const ActorType = Type.Union(ACTOR_TYPES.map((t) => Type.Literal(t)));

export const AuditEntryView = Type.Object({
  id: Uuid,
  occurredAt: Timestamp,
  userId: Nullable(Type.String({ format: 'uuid', description: 'The merchant whose object it is (null: a platform-wide operator action)' })),
  livemode: Nullable(Type.Boolean({ description: "The object's environment; null for account-level objects (API keys, KYC, fees, password, sign-in)" })),
  actor: Type.Object({
    type: ActorType,
    id: Nullable(Type.String({ description: 'USER, OPERATOR: the user id; API_KEY: the key id; SYSTEM: null' })),
    ip: Nullable(Type.String()),
    userAgent: Nullable(Type.String()),
  }),
  action: Type.String({ description: 'e.g. withdrawal.created, api_key.revoked, webhook.secret_rotated (docs/audit.md lists them)' }),
  objectType: Type.String(),
  objectId: Nullable(Type.String()),
  before: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'The object before the change (secrets removed, documents masked)' })),
  after: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'The object after the change (secrets removed, documents masked)' })),
});

const Filters = {
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Exact action, e.g. withdrawal.created' })),
  objectType: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  objectId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  actorType: Type.Optional(ActorType),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this instant' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or before this instant' })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv (or Accept: text/csv): every matching entry as a pt-BR CSV file, streamed; limit and cursor are then ignored' })),
};

export const AuditQuery = Type.Object({ ...CursorQuery, ...Filters }, { additionalProperties: false });
export const AdminAuditQuery = Type.Object({ ...CursorQuery, ...Filters, userId: Type.Optional(Uuid) }, { additionalProperties: false });

export const AuditListResponse = Type.Object({ message: Type.String(), entries: Type.Array(AuditEntryView), pagination: CursorPagination });
