// The fake Chargeback API's two answers a store gives (manual: "Aceite de contestação", "Recusa de
// contestação"): PUT /accept (JSON, per-item codes 101 / 931 / 941) and PUT /refuse
// (multipart/form-data with one document; 102, or 903-905, 926-931, 941). Each checks every field.
import { cbError, formatOf, parseMultipart, today } from './chargeback-rules.ts';
import type { CbAnswer, CbCase, CbLogged } from './chargeback-types.ts';

export interface CbState {
  clientId: string;
  clientSecret: string;
  mainCustomer: string;
  establishmentNumber: number;
  cases: Map<number, CbCase>;
  requests: CbLogged[];
  violations: string[];
  tokens: Map<string, number>;
  tokensIssued: number;
  failures: number[];
}

const EIGHT_MB = 8 * 1024 * 1024;
const numeric = (v: unknown) => typeof v === 'string' && /^\d{1,20}$/.test(v);
const userNameOk = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 256;

function caseOf(st: CbState, establishmentNumber: string, idChargeback: string): CbCase | null {
  const c = [...st.cases.values()].find((x) => String(x.idChargeback) === idChargeback);
  return c && String(c.establishmentNumber) === establishmentNumber ? c : null;
}

/** PUT /accept { updateChargeback: [{ establishmentNumber, idChargeback }], userName }: all fields required. */
export function accept(st: CbState, b: any): CbAnswer {
  const items = b?.updateChargeback;
  if (!Array.isArray(items) || !items.length) return cbError(926, 'O campo “id do chargeback” é obrigatório.');
  if (!userNameOk(b.userName)) return cbError(0, 'userName (the e-mail of who answers, at most 256) is required');
  for (const i of items) {
    if (i?.idChargeback === undefined || i.idChargeback === '') return cbError(926, 'O campo “id do chargeback” é obrigatório.');
    if (!numeric(String(i.idChargeback))) return cbError(928, 'O campo “id do chargeback” aceita somente caracteres numéricos.');
    if (!numeric(String(i.establishmentNumber ?? ''))) return cbError(910, 'O campo “número do estabelecimento” aceita somente caracteres numéricos.');
  }
  const answers = items.map((i: any) => {
    const head = { establishmentNumber: String(i.establishmentNumber), idChargeback: String(i.idChargeback) };
    const c = caseOf(st, head.establishmentNumber, head.idChargeback);
    if (!c) return { ...head, code: '941', message: 'Não foi possível concluir a requisição. Id do chargeback informado não condiz com o número do estabelecimento!' };
    if (c.status === 'DONE') return { ...head, code: '931', message: 'Não foi possível concluir a requisição. Chargeback já tratado anteriormente!' };
    Object.assign(c, { status: 'DONE', actionTakenCode: 'ACATADO', replyDate: today() });
    c.answers.push({ kind: 'accept', userName: b.userName });
    return { ...head, code: '101', message: 'Chargeback acatado com sucesso!' };
  });
  return { status: 200, body: answers };
}

/** PUT /refuse, multipart: establishmentNumber, idChargeback, reasonToRefuse (100), userName, file (one, named after the IdCase). */
export function refuse(st: CbState, contentType: string, raw: Buffer): CbAnswer {
  const parts = parseMultipart(contentType, raw);
  if (!parts) return cbError(0, 'multipart/form-data with a boundary is expected');
  const field = (n: string) => parts.find((p) => p.name === n && p.filename === null)?.data.toString('utf8');
  const files = parts.filter((p) => p.name === 'file' && p.filename !== null);
  const [ec, id, reason, user] = [field('establishmentNumber'), field('idChargeback'), field('reasonToRefuse'), field('userName')];
  if (!numeric(ec)) return cbError(910, 'O campo “número do estabelecimento” aceita somente caracteres numéricos.');
  if (!id) return cbError(926, 'O campo “id do chargeback” é obrigatório.');
  if (!numeric(id)) return cbError(928, 'O campo “id do chargeback” aceita somente caracteres numéricos.');
  if (!reason) return cbError(930, 'O campo “motivo de recusa” é obrigatório.');
  if (reason.length > 100) return cbError(905, 'Motivo de rejeição ultrapassou o limite de 100 caracteres.');
  if (!userNameOk(user)) return cbError(0, 'userName (the e-mail of who answers, at most 256) is required');
  if (files.length === 0) return cbError(904, 'Necessário adicionar um documento para recusar.');
  if (files.length > 1) return cbError(0, 'file: one document');
  const c = caseOf(st, ec!, id);
  if (!c) return cbError(941, 'Não foi possível concluir a requisição. Id do chargeback informado não condiz com o número do estabelecimento!');
  if (c.status === 'DONE') return cbError(931, 'Não foi possível concluir a requisição. Chargeback já tratado anteriormente!');
  const file = files[0];
  const name = file.filename!;
  if (name.replace(/\.[^.]*$/, '') !== String(c.idCase)) return cbError(929, 'Não foi possível concluir a requisição. O nome do documento deve ser o número do case!');
  const doc = 'Anexar a documentação dentro do padrão: formatos .TIF, .TIFF, .PDF ou .JPEG, contendo 8MB, máximo de 10 páginas e resolução máxima de 8,64 x 14 polegadas (aplicável para .TIF, .TIFF e .JPEG).';
  if (!formatOf(name, file.data) || file.data.length === 0 || file.data.length > EIGHT_MB) return cbError(903, doc);
  Object.assign(c, { status: 'DONE', actionTakenCode: 'RECUSADO', replyDate: today() });
  c.lifecycle.push({ action: 'Em análise com a Cielo', actionDate: today() });
  c.answers.push({ kind: 'refuse', userName: user!, reasonToRefuse: reason, file: { name, contentType: file.contentType, bytes: Buffer.from(file.data) } });
  return { status: 200, body: { code: '102', message: 'Chargeback recusado com sucesso!' } };
}
