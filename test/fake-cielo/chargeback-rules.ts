// What the fake Cielo Chargeback API checks and answers, from its manual
// (https://developercielo.github.io/manual/api-chargeback-2-0 and the reference pages cited in
// chargeback.ts): the query body (codes 906-936), accept and refuse (903-905, 926-931, 941), the
// pending and treated case views, and a small multipart/form-data reader for the refusal.
import type { CbAnswer, CbCase } from './chargeback-types.ts';

/** A date as the API writes it (yyyy-MM-dd), `offsetDays` from today. */
export const today = (offsetDays = 0) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** An error as the fake answers it: the manual gives codes and texts, not the error body's shape. */
export const cbError = (code: number, message: string, status = 400): CbAnswer => ({ status, body: { code: String(code), message } });

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const numeric = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0) || (typeof v === 'string' && /^\d+$/.test(v));

/** POST /chargeback/v1/{status}: page, pageSize and the body's filters as the manual states them. */
export function checkQuery(status: string, q: URLSearchParams, b: any): CbAnswer | null {
  if (status !== 'PENDING' && status !== 'DONE') return cbError(919, 'O campo “status” é obrigatório.');
  if (!/^\d+$/.test(q.get('page') ?? '')) return cbError(916, 'O campo “page” deve ser maior ou igual a 0.');
  const size = Number(q.get('pageSize') ?? 'x');
  if (!Number.isInteger(size) || size < 1) return cbError(917, 'O campo “pageSize” deve ser igual ou maior que 1.');
  if (size > 200) return cbError(138, 'Limite máximo de itens por página deve ser até 200 registros.');
  if (!b || typeof b !== 'object') return cbError(909, 'Obrigatório o preenchimento do campo “número do estabelecimento” ou informar o número da matriz');
  const ecs = b.establishmentNumber;
  if (ecs !== undefined && (!Array.isArray(ecs) || !ecs.every(numeric))) return cbError(910, 'O campo “número do estabelecimento” aceita somente caracteres numéricos.');
  const byEc = Array.isArray(ecs) && ecs.length > 0;
  if (!byEc && b.mainCustomer === undefined) return cbError(909, 'Obrigatório o preenchimento do campo “número do estabelecimento” ou informar o número da matriz');
  if (!byEc && !numeric(b.mainCustomer)) return cbError(936, 'O campo “número da matriz” aceita somente caracteres numéricos.');
  if (!byEc && ![1, 2, 4].includes(b.hierarchyType)) return cbError(0, 'hierarchyType (1, 2 or 4) is required with mainCustomer');
  if (b.idCase !== undefined && b.idCase !== '' && !numeric(b.idCase)) return cbError(911, 'O campo “número do case” aceita somente caracteres numéricos.');
  return status === 'DONE' ? checkPeriod(b) : null;
}

function checkPeriod(b: any): CbAnswer | null {
  if (b.startNotificationPeriod === undefined && b.endNotificationPeriod === undefined) return cbError(920, 'O campo “período de notificação” é obrigatório.');
  if (!b.startNotificationPeriod) return cbError(921, 'O campo “data inicial do período de notificação” é obrigatório.');
  if (!b.endNotificationPeriod) return cbError(922, 'O campo “data final do período de notificação” é obrigatório.');
  if (!DATE.test(b.startNotificationPeriod) || !DATE.test(b.endNotificationPeriod)) return cbError(907, 'O campo período de notificação aceita somente caracteres numéricos e no formato AAAA-MM-DD.');
  const start = Date.parse(b.startNotificationPeriod);
  const end = Date.parse(b.endNotificationPeriod);
  if (!(start < end)) return cbError(923, 'A data inicial do período de notificação deve ser menor que data final.');
  if (end - start > 180 * 86_400_000) return cbError(906, 'O limite de período para a consulta é de 180 dias.');
  return null;
}

/** Whether a case answers a query's filters (establishments or head office, idCase, DONE's period). */
export function matches(c: CbCase, status: string, b: any, mainCustomer: string): boolean {
  if (c.status !== status) return false;
  const ecs = Array.isArray(b.establishmentNumber) && b.establishmentNumber.length ? b.establishmentNumber.map(String) : null;
  if (ecs ? !ecs.includes(String(c.establishmentNumber)) : String(b.mainCustomer) !== mainCustomer) return false;
  if (b.idCase !== undefined && b.idCase !== '' && String(b.idCase) !== String(c.idCase)) return false;
  if (status === 'DONE') return c.receptionDate >= b.startNotificationPeriod && c.receptionDate <= b.endNotificationPeriod;
  return true;
}

function details(c: CbCase) {
  return {
    transactionDate: c.transactionDate,
    authorization: c.authorization,
    cardAssociation: 1,
    cardAssociationName: 'Visa',
    productCode: 1,
    productDescription: 'Crédito à vista',
    issuerSenderCode: '0237',
    issuerSenderDescription: 'Banco Emissor',
    truncatedCard: c.truncatedCard,
    currency: 'REAL',
    referenceNumber: c.referenceNumber,
    nsu: Number(c.nsu),
    ro: c.ro,
    terminal: c.terminal,
    tid: c.tid,
    establishmentName: 'Loja Cofre',
  };
}

const lastStep = (c: CbCase) => c.lifecycle.at(-1) ?? {};

/** A case as the PENDING query (and the new-chargeback webhook) shows it. */
export function pendingView(c: CbCase, today: string) {
  const days = Math.max(0, Math.round((Date.parse(c.treatmentDeadline) - Date.parse(today)) / 86_400_000));
  return {
    treatmentDeadline: c.treatmentDeadline,
    idCase: c.idCase,
    idChargeback: c.idChargeback,
    establishmentNumber: c.establishmentNumber,
    process: 'PRIMEIRO_CHARGEBACK',
    lifecycle: lastStep(c),
    transactionAmount: c.amountCents / 100,
    transactionDetails: details(c),
    chargebackDetails: { reasonCode: c.reasonCode, reasonDescription: c.reasonDescription, tpReason: 1, receptionDate: c.receptionDate, issuerDocument: [] },
    remainingDaysToTreat: days,
  };
}

/** A case as the DONE query shows it (actionTakenCode, replyDate). */
export function doneView(c: CbCase) {
  return {
    idCase: c.idCase,
    idChargeback: c.idChargeback,
    establishmentNumber: c.establishmentNumber,
    process: 'PRIMEIRO_CHARGEBACK',
    lifecycle: lastStep(c),
    transactionAmount: c.amountCents / 100,
    actionTakenCode: c.actionTakenCode,
    transactionDetails: details(c),
    chargebackDetails: { reasonCode: c.reasonCode, reasonDescription: c.reasonDescription, tpReason: 1, reasonMessage: '', receptionDate: c.receptionDate, replyDate: c.replyDate, rapidDisputeResolution: 'false', issuerDocument: [] },
  };
}

/** The page around a query's content, as the manual's example shows it. */
export function page(content: unknown[], size: number) {
  const sort = { sorted: true, unsorted: false, empty: false };
  return { content, pageable: { sort, pageNumber: 0, pageSize: size, offset: 0, paged: true, unpaged: false }, last: true, totalElements: content.length, totalPages: 1, number: 0, sort, first: true, numberOfElements: content.length, size, empty: content.length === 0 };
}

export interface Part {
  name: string;
  filename: string | null;
  contentType: string | null;
  data: Buffer;
}

/** multipart/form-data parts; null when the body is not one (no boundary, no closing delimiter). */
export function parseMultipart(contentType: string, raw: Buffer): Part[] | null {
  const m = /^multipart\/form-data;\s*boundary="?([^";]+)"?/i.exec(contentType);
  if (!m) return null;
  const delim = Buffer.from(`--${m[1]}`);
  const parts: Part[] = [];
  let at = raw.indexOf(delim);
  while (at >= 0) {
    const start = at + delim.length;
    if (raw.subarray(start, start + 2).toString() === '--') return parts;
    const next = raw.indexOf(delim, start);
    if (next < 0) return null;
    const chunk = raw.subarray(start + 2, next - 2);
    const split = chunk.indexOf('\r\n\r\n');
    if (split < 0) return null;
    const head = chunk.subarray(0, split).toString('utf8');
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined) return null;
    parts.push({ name, filename: /filename="([^"]*)"/i.exec(head)?.[1] ?? null, contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? null, data: chunk.subarray(split + 4) });
    at = next;
  }
  return null;
}

/** A document's bytes match what its extension says (.pdf, .jpeg, .tif/.tiff): Cielo's formats (903). */
export function formatOf(name: string, data: Buffer): string | null {
  const ext = /\.(tif|tiff|pdf|jpeg)$/i.exec(name)?.[1]?.toLowerCase();
  if (!ext) return null;
  const head = data.subarray(0, 4);
  const ok =
    ext === 'pdf' ? head.toString('latin1') === '%PDF' : ext === 'jpeg' ? head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff : head.toString('latin1') === 'II*\u0000' || head.toString('latin1') === 'MM\u0000*';
  return ok ? ext : null;
}
