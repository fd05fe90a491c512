import { Type } from '@sinclair/typebox';
import { PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

export const Email = Type.String({ format: 'email', maxLength: 255 });

export const UserView = Type.Object({
  id: Uuid,
  name: Type.String(),
  email: Type.String(),
  role: Type.Union([Type.Literal('USER'), Type.Literal('ADMIN')]),
  referralCode: Type.String(),
  createdAt: Timestamp,
});

export const RegisterBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    email: Email,
    password: Type.String({ minLength: 8, maxLength: 256, description: 'At least 8 characters, not only spaces, not a common password' }),
    referralCode: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  },
  { additionalProperties: false },
);

export const LoginBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 255 }), password: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: 256 }),
    newPassword: Type.String({ minLength: 8, maxLength: 256, description: 'At least 8 characters, not only spaces, not a common password' }),
  },
  { additionalProperties: false },
);

/** The operator's merchant lookup (Operação: find a merchant to set its fees). */
export const AdminMerchantsQuery = Type.Object(
  {
    ...PageQuery,
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Part of the name or e-mail, or the exact id' })),
  },
  { additionalProperties: false },
);
export const AdminMerchantView = Type.Intersect([
  UserView,
  Type.Object({ customFees: Type.Boolean({ description: 'An operator set negotiated fees for this merchant (GET /api/admin/merchants/{id}/fees)' }) }),
]);
export const AdminMerchantList = Type.Object({ data: Type.Array(AdminMerchantView), meta: PagePagination });
