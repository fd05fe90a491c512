// Sub-accounts (a platform's accounts for its sellers) and split partners: requests and views.
import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';
import { Email } from '../auth/schemas.ts';
import { CredentialView } from '../credentials/schemas.ts';
import { DocumentField, Phone } from '../clients/schemas.ts';
import { KycStatusSchema } from '../kyc/schemas.ts';
import { Address, AddressView } from '../transactions/schemas.ts';

const PixKey = Type.String({
  minLength: 1,
  maxLength: 77,
  description: 'Where the seller wants its payouts: a Pix key (CPF, CNPJ, e-mail, +55 mobile number or random key), its type told by its form and checked',
});

const fields = {
  name: Type.String({ minLength: 1, maxLength: 255, description: "The seller's name or its company's, as it appears to shoppers and partners" }),
  phone: Phone,
  address: Address,
};

export const CreateAccountBody = Type.Object(
  {
    ...fields,
    email: Type.String({ ...Email, description: 'Where the invitation to set a password goes; must not belong to another Cofre account' }),
    document: DocumentField,
    pixKey: Type.Optional(PixKey),
    createApiKey: Type.Optional(
      Type.Boolean({ default: false, description: "true: an API key of the new account (the request's environment, every permission), shown once in this answer. Development only: a production key needs the account's KYC approved" }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateAccountBody = Type.Partial(Type.Object({ ...fields, pixKey: Nullable(PixKey) }), {
  additionalProperties: false,
  minProperties: 1,
  description: 'The fields to change; pixKey null clears it. The e-mail and the document cannot change.',
});

export const AccountView = Type.Object({
  id: Uuid,
  walletId: Type.String({ format: 'uuid', description: 'Name it in a split to send this account a share of a sale' }),
  name: Type.String(),
  email: Type.String(),
  document: Type.String({ description: 'CPF or CNPJ, digits (and letters of an alphanumeric CNPJ) only' }),
  phone: Type.String(),
  address: AddressView,
  pixKey: Nullable(Type.String()),
  kycStatus: KycStatusSchema,
  loginEnabled: Type.Boolean({ description: 'The seller set a password (from the invitation): it can log in to the dashboard' }),
  balance: Type.Object(
    {
      availableCents: Type.Integer(),
      receivableCents: Type.Integer(),
      reservedCents: Type.Integer(),
    },
    { description: "The account's balance in the request's environment (read only: only the account moves its money)" },
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreatedAccountResponse = Type.Object({
  message: Type.String(),
  account: AccountView,
  apiKey: Nullable(
    Type.Object(
      { credential: CredentialView, key: Type.String({ description: 'The key itself: store it now, it is never shown again' }) },
      { description: "With createApiKey: the new account's key, as POST /api/credentials answers; null otherwise" },
    ),
  ),
});
export const AccountResponse = Type.Object({ message: Type.String(), account: AccountView });
export const ListAccountsQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export const AccountListResponse = Type.Object({ message: Type.String(), accounts: Type.Array(AccountView), pagination: PagePagination });

// --- Split partners ----------------------------------------------------------------------------

export const PARTNER_STATUSES = ['PENDING', 'ACCEPTED', 'DECLINED', 'REVOKED'] as const;
const PartnerStatus = Type.Union(PARTNER_STATUSES.map((s) => Type.Literal(s)));
const Party = Type.Object({ walletId: Type.String({ format: 'uuid' }), name: Type.String() });

export const InvitePartnerBody = Type.Object(
  {
    walletId: Type.String({ format: 'uuid', description: "The partner's wallet (its GET /api/v1/balance or GET /api/auth/me shows it)" }),
    message: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'A note for the partner, in its e-mail and in the invitation' })),
  },
  { additionalProperties: false },
);

export const PartnerView = Type.Object({
  id: Uuid,
  merchant: Type.Object(Party.properties, { description: 'Who invited: its sales may send shares to the partner once accepted' }),
  partner: Type.Object(Party.properties, { description: 'Who was invited: it receives the shares' }),
  status: PartnerStatus,
  message: Nullable(Type.String()),
  createdAt: Timestamp,
  decidedAt: Nullable(Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', description: 'When the partner accepted or declined' })),
  updatedAt: Timestamp,
});

export const PartnerResponse = Type.Object({ message: Type.String(), data: PartnerView });
export const ListPartnersQuery = Type.Object(
  {
    ...PageQuery,
    role: Type.Optional(Type.Union([Type.Literal('sent'), Type.Literal('received')], { description: 'sent: your invitations; received: those sent to you; omitted: both' })),
    status: Type.Optional(PartnerStatus),
  },
  { additionalProperties: false },
);
export const PartnerList = Type.Object({ data: Type.Array(PartnerView), meta: PagePagination });
