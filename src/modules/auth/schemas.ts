import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

export const Email = Type.String({ format: 'email', maxLength: 255 });

export const UserView = Type.Object({
  id: Uuid,
  name: Type.String(),
  email: Type.String(),
  role: Type.Union([Type.Literal('USER'), Type.Literal('ADMIN')]),
  referralCode: Type.String(),
  walletId: Type.String({ format: 'uuid', description: "The account's wallet: what another merchant names in a split to send it a share of a sale (docs/splits.md)" }),
  createdAt: Timestamp,
});

/** GET /api/auth/me: the account, and the platform that created it when it is a sub-account. */
export const MeView = Type.Intersect([
  UserView,
  Type.Object({
    platform: Nullable(
      Type.Object({ name: Type.String(), walletId: Type.String({ format: 'uuid' }) }, { description: 'The platform that created this account (a sub-account, docs/accounts.md); null for any other account' }),
    ),
  }),
]);

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

export const MfaChallengeResponse = Type.Object({
  message: Type.String(),
  mfaRequired: Type.Literal(true, { description: 'Two-factor authentication is on: send the code with POST /api/auth/login/mfa' }),
  challenge: Type.String({ description: 'Single-use, valid for expiresIn seconds' }),
  expiresIn: Type.Integer({ description: 'seconds' }),
});

export const LoginMfaBody = Type.Object(
  {
    challenge: Type.String({ minLength: 1, maxLength: 128 }),
    code: Type.String({ minLength: 6, maxLength: 32, description: 'The 6-digit code of the authenticator app, or one of the recovery codes' }),
  },
  { additionalProperties: false },
);

export const ForgotPasswordBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: false });

export const ResetPasswordBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 128, description: 'From the link e-mailed by POST /api/auth/password/forgot' }),
    password: Type.String({ minLength: 8, maxLength: 256, description: 'At least 8 characters, not only spaces, not a common password' }),
  },
  { additionalProperties: false },
);

export const MfaStatus = Type.Object({
  enabled: Type.Boolean(),
  enabledAt: Nullable(Timestamp),
  recoveryCodesLeft: Type.Integer({ description: 'Unused recovery codes (0 while two-factor authentication is off)' }),
});

export const EnrolmentResponse = Type.Object({
  message: Type.String(),
  secret: Type.String({ description: 'Base32, for typing into the app by hand; shown only in this response' }),
  otpauthUri: Type.String({ description: 'otpauth://totp/... (SHA-1, 6 digits, 30 s)' }),
  qrCode: Type.String({ description: 'The otpauth URI as a PNG QR code (data: URL)' }),
});

export const CodeBody = Type.Object({ code: Type.String({ minLength: 6, maxLength: 6, pattern: '^[0-9]{6}$', description: 'The current 6-digit code of the authenticator app' }) }, { additionalProperties: false });

export const RecoveryCodesResponse = Type.Object({
  message: Type.String(),
  recoveryCodes: Type.Array(Type.String(), { description: 'Ten single-use codes for when the phone is lost; shown only in this response' }),
});

export const SessionView = Type.Object({
  id: Uuid,
  current: Type.Boolean({ description: 'The session of the token making this request' }),
  device: Type.String({ description: 'Browser and system read from the User-Agent, e.g. "Chrome · Windows"' }),
  userAgent: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  createdAt: Timestamp,
  lastUsedAt: Timestamp,
  expiresAt: Timestamp,
});
