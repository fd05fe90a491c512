// A merchant's answer to a Cielo chargeback, forwarded to the Chargeback API as its manual documents
// (https://developercielo.github.io/manual/api-chargeback-2-0, "Aceite" and "Recusa de contestação"):
// the case is read first (its establishmentNumber and idChargeback, which the answers name); ACCEPT
// is PUT /chargeback/v1/accept { updateChargeback: [{ establishmentNumber, idChargeback }], userName }
// (code 101); CONTEST is PUT /chargeback/v1/refuse as multipart/form-data with establishmentNumber,
// idChargeback, reasonToRefuse (at most 100 characters), userName and ONE file (.TIF, .TIFF, .PDF or
// .JPEG, at most 8 MB, named after the idCase) (code 102). What Cielo cannot take is refused here,
// before anything is sent, with the field named.
import { AppError, validation } from '../../http/errors.ts';
import type { DisputeRequest, ProviderResult } from '../connector.ts';
import { ChargebackApiError } from './chargeback-client.ts';
import { CASE_ID, findCase, type CaseParts } from './chargeback-cases.ts';

/** The manual's limits on a refusal: reasonToRefuse 100 characters (905), one document of 8 MB (903, 904). */
export const REFUSAL = { reasonMax: 100, fileBytes: 8 * 1024 * 1024 } as const;
/** Our evidence types Cielo takes, with the extension the file is sent under (PNG is not among its formats). */
const EXTENSIONS: Record<string, string> = { 'application/pdf': 'pdf', 'image/jpeg': 'jpeg' };

const unreachable = () => new AppError(503, "Cielo's Chargeback API did not answer; nothing was recorded here. Send the answer again in a moment.");

/** What Cielo's refusal takes, checked before anything is sent (400 naming the field otherwise). */
function checkContest(req: DisputeRequest) {
  const text = req.text ?? '';
  if (text.length > REFUSAL.reasonMax) throw validation('text', `Cielo takes a reason of at most ${REFUSAL.reasonMax} characters to contest (got ${text.length}): summarise it and let the document carry the detail`);
  const files = req.files ?? [];
  if (files.length !== 1) throw validation('files', 'Cielo takes exactly one document to contest (PDF or JPEG): join the evidence into one file');
  const ext = EXTENSIONS[files[0].contentType];
  if (!ext) throw validation('files.0.contentType', 'Cielo takes PDF, JPEG or TIFF documents, not PNG: send it as PDF or JPEG');
  if (files[0].content.length > REFUSAL.fileBytes) throw validation('files.0', 'Cielo takes documents of at most 8 MB');
  return { text, file: files[0], ext };
}

export async function disputeCielo(p: CaseParts, userName: string, req: DisputeRequest): Promise<ProviderResult> {
  const contest = req.action === 'CONTEST' ? checkContest(req) : null;
  if (!CASE_ID.test(req.caseId)) return { ok: false, reason: 'UNKNOWN_CASE', message: 'not a Cielo case id' };
  try {
    const found = await findCase(p, req.caseId);
    if (!found) return { ok: false, reason: 'UNKNOWN_CASE', message: `Cielo shows no case ${req.caseId}` };
    const c = found.item as { establishmentNumber?: unknown; idChargeback?: unknown; actionTakenCode?: unknown };
    if (!found.pending) {
      // Our own refusal whose answer was lost: Cielo shows it treated as refused, so it went through.
      if (contest && c.actionTakenCode === 'RECUSADO') return { ok: true };
      return { ok: false, reason: 'ALREADY_ANSWERED', message: `Cielo shows case ${req.caseId} as already answered: see it on Cielo's site` };
    }
    const ids = { establishmentNumber: String(c.establishmentNumber ?? ''), idChargeback: String(c.idChargeback ?? '') };
    if (!contest) {
      const answer = await p.cb.json<unknown>('PUT', '/accept', { updateChargeback: [ids], userName }, false);
      const items = (Array.isArray(answer) ? answer : []) as Array<{ idChargeback?: unknown; code?: unknown; message?: unknown }>;
      const mine = items.find((i) => String(i?.idChargeback) === ids.idChargeback) ?? items[0];
      return String(mine?.code) === '101' ? { ok: true } : { ok: false, reason: 'ACCEPT_REFUSED', message: `Cielo ${String(mine?.code ?? '?')}: ${String(mine?.message ?? 'the accept was not taken').slice(0, 160)}` };
    }
    const fields = { ...ids, reasonToRefuse: contest.text, userName };
    const answer = await p.cb.multipart<{ code?: unknown; message?: unknown } | null>('/refuse', fields, { name: `${req.caseId}.${contest.ext}`, contentType: contest.file.contentType, content: contest.file.content });
    return String(answer?.code) === '102' ? { ok: true } : { ok: false, reason: 'REFUSAL_REFUSED', message: `Cielo ${String(answer?.code ?? '?')}: ${String(answer?.message ?? 'the refusal was not taken').slice(0, 160)}` };
  } catch (err) {
    if (!(err instanceof ChargebackApiError)) throw err;
    p.log.warn({ transactionId: req.transactionId, cielo: { idCase: req.caseId, ...err.toLog() } }, `cielo: a chargeback ${req.action.toLowerCase()} failed`);
    if (err.kind === 'unavailable') throw unreachable();
    return { ok: false, reason: 'DISPUTE_REFUSED', message: `Cielo ${err.code ?? err.status}: ${err.said || 'the answer was refused'}` };
  }
}
