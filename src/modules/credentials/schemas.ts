// API keys as the credentials API takes and shows them (also in a sub-account's creation, modules/accounts).
import { Type } from '@sinclair/typebox';
import { PERMISSIONS } from '../../http/auth.ts';
import { Environment, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';

export const PermissionSchema = Type.Union(PERMISSIONS.map((p) => Type.Literal(p)));

export const CredentialView = Type.Object({
  id: Uuid,
  name: Type.String(),
  environment: Environment,
  permissions: Type.Array(Type.String()),
  prefix: Type.String({ description: 'First characters of the key: cofre_test_ (development) or cofre_live_ (production)' }),
  createdAt: Timestamp,
  revokedAt: Nullable(Timestamp),
});
