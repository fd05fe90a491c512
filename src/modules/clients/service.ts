// Clients (the merchant's customers). One client per document per merchant and environment.
import type { Static } from '@sinclair/typebox';
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Client } from '../../db/types.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import { requiredText } from '../../http/sanitize.ts';
import { likePattern, owned, ownedUpdate, type Scope } from '../../http/scope.ts';
import { onlyDigitsAndLetters, validateDocument } from '../../payments/documents.ts';
import type { CreateClientBody, ListClientsQuery, UpdateClientBody } from './schemas.ts';

export function clientView(c: Client) {
  return { id: c.id, name: c.name, email: c.email, document: c.document, phone: c.phone, erasedAt: c.erased_at, createdAt: c.created_at, updatedAt: c.updated_at };
}

/** Normalises a CPF/CNPJ or throws 400 INVALID_DOCUMENT naming the field. */
export function normalizeDocument(document: string, field = 'document'): string {
  const result = validateDocument(document);
  if (!result.ok) throw badRequest('INVALID_DOCUMENT', 'Invalid CPF or CNPJ', [{ field, message: result.reason }]);
  return result.normalized;
}

/** 400 CLIENT_ERASED on `field` for a client whose personal data was erased (privacy/erasure.ts): nothing new is made for it. */
export function refuseErased(client: Pick<Client, 'erased_at'>, field = 'clientId'): void {
  if (client.erased_at) {
    throw badRequest('CLIENT_ERASED', "This client's personal data was erased: it cannot be charged or changed", [
      { field, message: 'names a client whose data was erased (LGPD); create the client again to sell to this person' },
    ]);
  }
}

/** The sanitised name; a name that was only markup is refused like an empty one (as for products). */
const alreadyExists = () => badRequest('CLIENT_ALREADY_EXISTS', 'A client with this document already exists', [{ field: 'document', message: 'is already registered' }]);
const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

function findByDocument(db: Executor, scope: Scope, document: string) {
  return owned(db, 'clients', scope)
    .selectAll()
    .where('document', '=', document)
    .executeTakeFirst();
}

export async function createClient(db: Executor, scope: Scope, input: Static<typeof CreateClientBody>): Promise<Client> {
  const document = normalizeDocument(input.document);
  const name = requiredText(input.name, 'name');
  if (await findByDocument(db, scope, document)) throw alreadyExists();
  const now = new Date();
  try {
    return await db
      .insertInto('clients')
      .values({
        id: uuidv7(),
        user_id: scope.userId,
        livemode: scope.livemode,
        name,
        email: normalizeEmail(input.email),
        document,
        phone: input.phone ?? null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err)) throw alreadyExists();
    throw err;
  }
}

/** How client emails are stored. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** How a client upsert refreshes the client already stored with that document (the latest contact details; a phone is kept when none is given). */
export const CLIENT_UPSERT_CONFLICT = sql`ON CONFLICT (user_id, livemode, document) WHERE deleted_at IS NULL
    DO UPDATE SET name = excluded.name, email = excluded.email, phone = COALESCE(excluded.phone, clients.phone), updated_at = excluded.updated_at`;

/**
 * The client with this document, created or refreshed with the latest contact details, as SQL
 * (RETURNING *) for statements that write more than the client, as a CTE (transaction creation
 * upserts its batch's clients with the same CLIENT_UPSERT_CONFLICT). Safe under concurrent calls
 * (upsert on the unique index). The caller passes a cleaned name (requiredText) and a normalised
 * document; `input.email` is normalised here.
 */
export function upsertClientSql(scope: Scope, id: string, now: Date, input: { name: string; email: string; document: string; phone?: string | null }): RawBuilder<Client> {
  return sql<Client>`
    INSERT INTO clients (id, user_id, livemode, name, email, document, phone, created_at, updated_at)
    VALUES (${id}::uuid, ${scope.userId}::uuid, ${scope.livemode}::boolean, ${input.name}::text, ${normalizeEmail(input.email)}::text, ${input.document}::text,
      ${input.phone ?? null}::text, ${now}::timestamptz, ${now}::timestamptz)
    ${CLIENT_UPSERT_CONFLICT}
    RETURNING *`;
}

/** The scope's client `id`; an archived one only with `archived` (a creation's replay needs it). */
export async function getClient(db: Executor, scope: Scope, id: string, opts: { archived?: boolean } = {}): Promise<Client> {
  const c = await owned(db, 'clients', scope, opts)
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!c) throw notFound('Client');
  return c;
}

export async function updateClient(db: Executor, scope: Scope, id: string, input: Static<typeof UpdateClientBody>): Promise<Client> {
  refuseErased(await getClient(db, scope, id), 'id');
  const name = input.name !== undefined ? requiredText(input.name, 'name') : undefined;
  const document = input.document !== undefined ? normalizeDocument(input.document) : undefined;
  if (document) {
    const other = await findByDocument(db, scope, document);
    if (other && other.id !== id) throw alreadyExists();
  }
  try {
    return await ownedUpdate(db, 'clients', scope, id)
      .set({
        ...(name !== undefined && { name }),
        ...(input.email !== undefined && { email: normalizeEmail(input.email) }),
        ...(document !== undefined && { document }),
        ...(input.phone !== undefined && { phone: input.phone }),
        updated_at: new Date(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err)) throw alreadyExists();
    throw err;
  }
}

export async function deleteClient(db: Executor, scope: Scope, id: string): Promise<void> {
  const res = await ownedUpdate(db, 'clients', scope, id)
    .set({ deleted_at: new Date(), updated_at: new Date() })
    .executeTakeFirst();
  if (!res.numUpdatedRows) throw notFound('Client');
}

export async function listClients(db: Executor, scope: Scope, q: Static<typeof ListClientsQuery>) {
  let base = owned(db, 'clients', scope);
  if (q.search) {
    const pattern = likePattern(q.search);
    // Documents are stored normalised, so "529.982.247-25" must find 52998224725.
    const doc = onlyDigitsAndLetters(q.search);
    const docPattern = doc ? likePattern(doc) : pattern;
    base = base.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('email', 'ilike', pattern), eb('document', 'ilike', docPattern)]));
  }
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { rows, pagination: pageInfo(q.page, q.limit, Number(total)) };
}
