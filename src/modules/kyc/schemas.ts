import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';
import { KYC_CONTENT_TYPES } from './files.ts';

export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;
/** Only POST /api/kyc accepts bodies this large (every other route: 1 MB). */
export const KYC_BODY_LIMIT = 25 * 1024 * 1024;
export const MAX_DOCUMENTS = 10;

export const KYC_DOCUMENT_TYPES = ['IDENTITY_FRONT', 'IDENTITY_BACK', 'SELFIE', 'PROOF_OF_ADDRESS', 'COMPANY_REGISTRATION', 'ARTICLES_OF_ASSOCIATION', 'OTHER'] as const;

const DateOnly = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

export const KycAddressSchema = Type.Object(
  {
    street: Type.String({ minLength: 1, maxLength: 255 }),
    number: Type.String({ minLength: 1, maxLength: 20 }),
    complement: Type.Optional(Type.String({ maxLength: 255 })),
    district: Type.String({ minLength: 1, maxLength: 255, description: 'Bairro' }),
    city: Type.String({ minLength: 1, maxLength: 255 }),
    state: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'UF, two letters (SP, RJ, ...)' }),
    zipCode: Type.String({ pattern: '^\\d{5}-?\\d{3}$', description: 'CEP, 8 digits' }),
  },
  { additionalProperties: false },
);

export const KycDocumentInput = Type.Object(
  {
    type: Type.Union(KYC_DOCUMENT_TYPES.map((t) => Type.Literal(t))),
    fileName: Type.String({ minLength: 1, maxLength: 255 }),
    contentType: Type.Union(KYC_CONTENT_TYPES.map((t) => Type.Literal(t)), { description: 'Must match the file itself (checked by its first bytes)' }),
    contentBase64: Type.String({ minLength: 4, description: 'Standard base64, at most 5 MB once decoded' }),
  },
  { additionalProperties: false },
);

export const SubmitKycBody = Type.Object(
  {
    personType: Type.Union([Type.Literal('PF'), Type.Literal('PJ')], { description: 'PF: person (CPF); PJ: company (CNPJ)' }),
    legalName: Type.String({ minLength: 1, maxLength: 255, description: 'Full name (PF) or razão social (PJ)' }),
    document: Type.String({ minLength: 11, maxLength: 20, description: 'CPF for PF, CNPJ for PJ; check digits verified' }),
    birthDate: Type.Optional(DateOnly),
    foundingDate: Type.Optional(DateOnly),
    address: KycAddressSchema,
    documents: Type.Array(KycDocumentInput, { minItems: 1, maxItems: MAX_DOCUMENTS }),
  },
  { additionalProperties: false },
);

export const KycDocumentView = Type.Object({
  id: Uuid,
  type: Type.String(),
  fileName: Type.String(),
  contentType: Type.String(),
  sizeBytes: Type.Integer(),
  sha256: Type.String(),
  createdAt: Timestamp,
});

export const KycStatusSchema = Type.Union([Type.Literal('NOT_SUBMITTED'), Type.Literal('SUBMITTED'), Type.Literal('APPROVED'), Type.Literal('REJECTED')]);

export const KycView = Type.Object({
  id: Uuid,
  userId: Uuid,
  status: Type.String({ description: 'SUBMITTED, APPROVED or REJECTED' }),
  personType: Type.String(),
  legalName: Type.String(),
  document: Type.String(),
  birthDate: Nullable(Type.String()),
  foundingDate: Nullable(Type.String()),
  address: KycAddressSchema,
  reviewReason: Nullable(Type.String({ description: 'The operator’s reason (always given on rejection)' })),
  reviewedAt: Nullable(Timestamp),
  documents: Type.Array(KycDocumentView),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const KycResponse = Type.Object({ message: Type.String(), status: KycStatusSchema, kyc: Nullable(KycView) });

export const AdminKycQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Type.Union([Type.Literal('SUBMITTED'), Type.Literal('APPROVED'), Type.Literal('REJECTED')], { default: 'SUBMITTED' })),
    userId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
export const KycListResponse = Type.Object({ data: Type.Array(KycView), meta: PagePagination });
