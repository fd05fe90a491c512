import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

export const Phone = Type.String({ minLength: 8, maxLength: 20, pattern: '^\\+?[0-9 ()-]{8,20}$' });
export const DocumentField = Type.String({
  minLength: 11,
  maxLength: 20,
  description: 'CPF or CNPJ (numeric or the alphanumeric CNPJ issued since July 2026); punctuation allowed, check digits verified',
});

const fields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  email: Type.String({ format: 'email', maxLength: 255 }),
  document: DocumentField,
  phone: Phone,
};

export const CreateClientBody = Type.Object(
  { name: fields.name, email: fields.email, document: fields.document, phone: Type.Optional(Nullable(fields.phone)) },
  { additionalProperties: false },
);
export const UpdateClientBody = Type.Partial(CreateClientBody, { additionalProperties: false, minProperties: 1 });

export const ClientView = Type.Object({
  id: Uuid,
  name: Type.String(),
  email: Type.String(),
  document: Type.String(),
  phone: Nullable(Type.String()),
  erasedAt: Nullable(Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', description: 'When its personal data was erased (POST /api/v1/clients/{id}/erase): the fields above are anonymised and it cannot be charged' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ListClientsQuery = Type.Object({ ...PageQuery, search: Type.Optional(Type.String({ maxLength: 255 })) }, { additionalProperties: false });
export const ClientResponse = Type.Object({ message: Type.String(), client: ClientView });
export const ClientListResponse = Type.Object({ message: Type.String(), clients: Type.Array(ClientView), pagination: PagePagination });
