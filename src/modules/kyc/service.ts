// KYC (know your customer): a merchant submits who it is with its documents; an operator approves
// or rejects. Production API keys, production withdrawals and production advances need APPROVED KYC.
// KYC belongs to the account (no environment); its events are recorded in both environments so a
// webhook subscription of either one receives them.
import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { inTx, type Db, type Executor, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { KycStatus, KycSubmission } from '../../db/types.ts';
import { badRequest, forbidden, notFound, ownAccount, validation, type FieldError } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import { requiredText, sanitizeText } from '../../http/sanitize.ts';
import { maskDocument, validateDocument } from '../../payments/documents.ts';
import { recordAudit, type Actor } from '../audit/service.ts';
import type { EventLog, EventType } from '../events/service.ts';
import { decodeBase64, sniffContentType } from './files.ts';
import { MAX_DOCUMENT_BYTES, type AdminKycQuery, type SubmitKycBody } from './schemas.ts';

type SubmitInput = Static<typeof SubmitKycBody>;

export interface DocumentMeta {
  id: string;
  type: string;
  file_name: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  created_at: Date;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const FILE_NAME_UNSAFE = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

const DOC_META = ['id', 'type', 'file_name', 'content_type', 'size_bytes', 'sha256', 'created_at'] as const;
const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

export function kycView(s: KycSubmission, documents: DocumentMeta[]) {
  return {
    id: s.id,
    userId: s.user_id,
    status: s.status,
    personType: s.person_type,
    legalName: s.legal_name,
    document: s.document,
    birthDate: s.birth_date,
    foundingDate: s.founding_date,
    address: s.address,
    reviewReason: s.review_reason,
    reviewedAt: s.reviewed_at,
    documents: documents.map((d) => ({ id: d.id, type: d.type, fileName: d.file_name, contentType: d.content_type, sizeBytes: d.size_bytes, sha256: d.sha256, createdAt: d.created_at })),
    createdAt: s.created_at,
    updatedAt: s.updated_at,
  };
}

/** Event payload: the document masked, no address, no files. */
function eventData(s: KycSubmission) {
  return { id: s.id, status: s.status, personType: s.person_type, legalName: s.legal_name, document: maskDocument(s.document), reason: s.review_reason, reviewedAt: s.reviewed_at, createdAt: s.created_at };
}

/** What submitting and reviewing need besides the database: the event log (built by deps.ts). */
export interface KycDeps {
  db: Db;
  events: EventLog;
}

async function recordKycEvent(deps: KycDeps, trx: Trx, s: KycSubmission, type: EventType) {
  // Account-level: both environments hear about it.
  for (const livemode of [false, true]) await deps.events.record(trx, { userId: s.user_id, livemode }, [{ type, data: eventData(s) }]);
}

const todayUtc = () => new Date().toISOString().slice(0, 10);
const isRealDate = (d: string) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().slice(0, 10) === d;

function yearsBetween(from: string, to: string): number {
  const [fy, fm, fd] = from.split('-').map(Number);
  const [ty, tm, td] = to.split('-').map(Number);
  return ty - fy - (tm < fm || (tm === fm && td < fd) ? 1 : 0);
}

interface CheckedFile {
  type: string;
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

function checkInput(input: SubmitInput): { document: string; legalName: string; files: CheckedFile[] } {
  const errors: FieldError[] = [];
  const doc = validateDocument(input.document);
  let document = '';
  if (!doc.ok) throw badRequest('INVALID_DOCUMENT', 'Invalid CPF or CNPJ', [{ field: 'document', message: doc.reason }]);
  document = doc.normalized;
  if (input.personType === 'PF' && doc.kind !== 'CPF') errors.push({ field: 'document', message: 'must be a CPF for personType PF' });
  if (input.personType === 'PJ' && doc.kind !== 'CNPJ') errors.push({ field: 'document', message: 'must be a CNPJ for personType PJ' });
  const today = todayUtc();
  if (input.personType === 'PF') {
    if (input.foundingDate !== undefined) errors.push({ field: 'foundingDate', message: 'is for companies (PJ); a person gives birthDate' });
    if (input.birthDate === undefined) errors.push({ field: 'birthDate', message: 'is required for personType PF' });
    else if (!isRealDate(input.birthDate)) errors.push({ field: 'birthDate', message: 'is not a calendar date' });
    else if (yearsBetween(input.birthDate, today) < 18) errors.push({ field: 'birthDate', message: 'the account holder must be at least 18 years old' });
    else if (yearsBetween(input.birthDate, today) > 130) errors.push({ field: 'birthDate', message: 'is too far in the past' });
  } else {
    if (input.birthDate !== undefined) errors.push({ field: 'birthDate', message: 'is for people (PF); a company gives foundingDate' });
    if (input.foundingDate === undefined) errors.push({ field: 'foundingDate', message: 'is required for personType PJ' });
    else if (!isRealDate(input.foundingDate)) errors.push({ field: 'foundingDate', message: 'is not a calendar date' });
    else if (input.foundingDate > today) errors.push({ field: 'foundingDate', message: 'must not be in the future' });
  }
  const files: CheckedFile[] = [];
  input.documents.forEach((d, i) => {
    const field = `documents.${i}`;
    const bytes = decodeBase64(d.contentBase64);
    if (!bytes) return void errors.push({ field: `${field}.contentBase64`, message: 'is not standard base64 (A-Z, a-z, 0-9, +, /, padded with =, no spaces)' });
    if (bytes.length > MAX_DOCUMENT_BYTES) return void errors.push({ field: `${field}.contentBase64`, message: `is ${bytes.length} bytes; at most ${MAX_DOCUMENT_BYTES} (5 MB) per document` });
    const sniffed = sniffContentType(bytes);
    if (!sniffed) return void errors.push({ field: `${field}.contentBase64`, message: 'is not a PNG, JPEG, WebP image or a PDF' });
    if (sniffed !== d.contentType) return void errors.push({ field: `${field}.contentType`, message: `says ${d.contentType} but the file is ${sniffed}` });
    // A file name ends up in a Content-Disposition header and in operators' downloads: no control
    // characters (CR/LF would split the header), no line/paragraph separators or bidi overrides
    // (a name that displays as "recibo.pdf" but is "fdp.exe"), no path separators.
    const fileName = sanitizeText(d.fileName.replace(FILE_NAME_UNSAFE, '')).replace(/[/\\]/g, '_');
    if (!fileName) return void errors.push({ field: `${field}.fileName`, message: 'must contain text' });
    files.push({ type: d.type, fileName, contentType: sniffed, bytes });
  });
  if (errors.length) throw badRequest('VALIDATION_ERROR', 'Validation failed', errors);
  return { document, legalName: requiredText(input.legalName, 'legalName'), files };
}

function documentsOf(db: Executor, userId: string, submissionIds: string[]): Promise<(DocumentMeta & { submission_id: string })[]> {
  if (!submissionIds.length) return Promise.resolve([]);
  return db
    .selectFrom('kyc_documents')
    .select([...DOC_META, 'submission_id'])
    .where('user_id', '=', userId)
    .where('submission_id', 'in', submissionIds)
    .orderBy('position')
    .execute();
}

export async function submitKyc(deps: KycDeps, userId: string, input: SubmitInput, actor: Actor) {
  const { document, legalName, files } = checkInput(input);
  const address = {
    street: requiredText(input.address.street, 'address.street'),
    number: requiredText(input.address.number, 'address.number'),
    ...(input.address.complement ? { complement: sanitizeText(input.address.complement) } : {}),
    district: requiredText(input.address.district, 'address.district'),
    city: requiredText(input.address.city, 'address.city'),
    state: input.address.state.toUpperCase(),
    zipCode: input.address.zipCode.replace('-', ''),
  };
  try {
    return await inTx(deps.db, async (trx) => {
      const current = await latestSubmission(trx, userId);
      if (current?.status === 'SUBMITTED') throw badRequest('INVALID_STATE_TRANSITION', 'A KYC submission is already under review', [{ field: 'status', message: 'SUBMITTED: wait for the review' }]);
      if (current?.status === 'APPROVED') throw badRequest('INVALID_STATE_TRANSITION', 'KYC is already approved', [{ field: 'status', message: 'APPROVED' }]);
      const now = new Date();
      const submission = await trx
        .insertInto('kyc_submissions')
        .values({
          id: uuidv7(now.getTime()),
          user_id: userId,
          status: 'SUBMITTED',
          person_type: input.personType,
          legal_name: legalName,
          document,
          birth_date: input.birthDate ?? null,
          founding_date: input.foundingDate ?? null,
          address: JSON.stringify(address),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const docs = await trx
        .insertInto('kyc_documents')
        .values(
          files.map((f, position) => ({
            id: uuidv7(now.getTime()),
            user_id: userId,
            submission_id: submission.id,
            position,
            type: f.type,
            file_name: f.fileName,
            content_type: f.contentType,
            size_bytes: f.bytes.length,
            sha256: createHash('sha256').update(f.bytes).digest('hex'),
            content: f.bytes,
            created_at: now,
          })),
        )
        .returning([...DOC_META, 'position'])
        .execute();
      docs.sort((a, b) => a.position - b.position);
      await recordKycEvent(deps, trx, submission, 'kyc.submitted');
      const view = kycView(submission, docs);
      await recordAudit(trx, actor, { userId, livemode: null, action: 'kyc.submitted', objectType: 'kyc_submission', objectId: submission.id, after: view });
      return view;
    });
  } catch (err) {
    // Two submissions racing: the partial unique index lets one through.
    if (isUniqueViolation(err)) throw badRequest('INVALID_STATE_TRANSITION', 'A KYC submission is already under review', [{ field: 'status', message: 'SUBMITTED: wait for the review' }]);
    throw err;
  }
}

function latestSubmission(db: Executor, userId: string) {
  return db.selectFrom('kyc_submissions').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function kycStatus(db: Executor, userId: string): Promise<KycStatus | 'NOT_SUBMITTED'> {
  return (await latestSubmission(db, userId))?.status ?? 'NOT_SUBMITTED';
}

/** 403 unless the account's KYC is APPROVED; `what` completes "… needs approved KYC". */
export async function requireApprovedKyc(db: Executor, userId: string, what: string): Promise<void> {
  const status = await kycStatus(db, userId);
  if (status !== 'APPROVED') {
    throw forbidden(`${what} needs approved KYC (current status: ${status}); submit it with POST /api/kyc and wait for the review`);
  }
}

export async function getKyc(db: Executor, userId: string) {
  const s = await latestSubmission(db, userId);
  if (!s) return { status: 'NOT_SUBMITTED' as const, kyc: null };
  return { status: s.status, kyc: kycView(s, await documentsOf(db, userId, [s.id])) };
}

// ---------------------------------------------------------------------------------------------
// Operators

export async function listSubmissions(db: Executor, q: Static<typeof AdminKycQuery>) {
  let base = db.selectFrom('kyc_submissions').where('status', '=', q.status ?? 'SUBMITTED');
  if (q.userId) base = base.where('user_id', '=', q.userId);
  // The review queue: oldest first.
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  const docs = rows.length ? await db.selectFrom('kyc_documents').select([...DOC_META, 'submission_id']).where('submission_id', 'in', rows.map((r) => r.id)).orderBy('position').execute() : [];
  return { data: rows.map((r) => kycView(r, docs.filter((d) => d.submission_id === r.id))), meta: pageInfo(q.page, q.limit, Number(total)) };
}

export async function getSubmission(db: Executor, id: string) {
  const s = await db.selectFrom('kyc_submissions').selectAll().where('id', '=', id).executeTakeFirst();
  if (!s) throw notFound('KYC submission');
  return kycView(s, await documentsOf(db, s.user_id, [s.id]));
}

export async function getDocumentFile(db: Executor, submissionId: string, documentId: string) {
  const d = await db.selectFrom('kyc_documents').select(['file_name', 'content_type', 'content']).where('submission_id', '=', submissionId).where('id', '=', documentId).executeTakeFirst();
  if (!d) throw notFound('KYC document');
  return { fileName: d.file_name, contentType: d.content_type, content: Buffer.from(d.content) };
}

/** SUBMITTED -> APPROVED or REJECTED, once (the row is locked); a rejection needs a reason. */
export async function reviewKyc(deps: KycDeps, actor: Actor & { id: string }, id: string, decision: 'APPROVED' | 'REJECTED', reason: string | undefined) {
  const operatorId = actor.id;
  const why = reason === undefined ? null : sanitizeText(reason) || null;
  if (decision === 'REJECTED' && !why) throw validation('reason', 'is required to reject: the merchant is told why');
  return inTx(deps.db, async (trx) => {
    const s = await trx.selectFrom('kyc_submissions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    if (!s) throw notFound('KYC submission');
    if (s.user_id === operatorId) throw ownAccount();
    if (s.status !== 'SUBMITTED') {
      throw badRequest('INVALID_STATE_TRANSITION', `A ${s.status} KYC submission cannot be ${decision.toLowerCase()}`, [{ field: 'status', message: `${s.status} -> ${decision} is not allowed` }]);
    }
    const now = new Date();
    const updated = await trx
      .updateTable('kyc_submissions')
      .set({ status: decision, review_reason: why, reviewed_by: operatorId, reviewed_at: now, updated_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordKycEvent(deps, trx, updated, decision === 'APPROVED' ? 'kyc.approved' : 'kyc.rejected');
    const docs = await documentsOf(trx, updated.user_id, [updated.id]);
    const after = kycView(updated, docs);
    const entry = { userId: s.user_id, livemode: null, objectType: 'kyc_submission', objectId: s.id, before: kycView(s, docs), after };
    await recordAudit(trx, actor, { ...entry, action: decision === 'APPROVED' ? 'kyc.approved' : 'kyc.rejected' });
    return after;
  });
}
