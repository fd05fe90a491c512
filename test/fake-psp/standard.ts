// The Banco Central's API Pix as the fake PSP holds requests to it: the formats, the codes, the RFC
// 7807 problems, BR Codes, end-to-end ids, money as the standard writes it, a cobv's amount on a day.
import { randomBytes, randomUUID } from 'node:crypto';
import { crc16 } from '../../src/payments/pix.ts';
import type { Violation } from './types.ts';

export const ALL_SCOPES = [
  'cob.write', 'cob.read', 'cobv.write', 'cobv.read', 'pix.write', 'pix.read', 'webhook.write', 'webhook.read',
  'rec.write', 'rec.read', 'payloadlocationrec.write', 'payloadlocationrec.read', 'cobr.write', 'cobr.read', 'webhookrec.write', 'webhookrec.read', 'webhookcobr.write', 'webhookcobr.read',
] as const;

export const TXID = /^[a-zA-Z0-9]{26,35}$/;
export const E2EID = /^[a-zA-Z0-9]{32}$/;
export const DEVOLUCAO_ID = /^[a-zA-Z0-9]{1,35}$/;
export const MONEY = /^\d{1,10}\.\d{2}$/;
export const CPF = /^\d{11}$/;
export const CNPJ = /^[0-9A-Z]{14}$/;
export const DATE = /^\d{4}-\d{2}-\d{2}$/;
export const DAY_MS = 86_400_000;
export const ISPB = '99999999';
export const REC_ID = /^[a-zA-Z0-9]{29}$/;
export const PERIODICIDADES = ['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL'];
export const TIPOS_CONTA = ['CORRENTE', 'POUPANCA', 'PAGAMENTO'];
/** The standard's reasons for an attempt's rejection (CobRTentativas.rejeicao.codigo). */
export const ATTEMPT_CODES = ['AB10', 'AC05', 'AC06', 'AM02', 'AM09', 'DENC', 'DS27', 'DTED', 'DTNT', 'FBRD', 'IRNT', 'MIDI', 'MSUC', 'NIEC', 'NIPA', 'NITX', 'QUNT', 'RC09', 'UDEI'];

export function problem(type: string, status: number, title: string, detail?: string, violacoes?: Violation[]) {
  return { status, body: { type: `https://pix.bcb.gov.br/api/v2/error/${type}`, title, status, ...(detail ? { detail } : {}), ...(violacoes?.length ? { violacoes } : {}), correlationId: randomUUID() } };
}

export function tlv(id: string, value: string): string {
  return id + String(value.length).padStart(2, '0') + value;
}

/** A dynamic BR Code (the payload is fetched from the location), as a PSP returns in pixCopiaECola. */
export function dynamicBrCode(location: string): string {
  const payload =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('25', location)) +
    tlv('52', '0000') +
    tlv('53', '986') +
    tlv('58', 'BR') +
    tlv('59', 'LOJA TESTE') +
    tlv('60', 'SAO PAULO') +
    tlv('62', tlv('05', '***')) +
    '6304';
  return payload + crc16(payload);
}

/** Journey 3's composite BR Code: the charge's location and, in tag 80, the authorisation's. */
export function compositeBrCode(cobLocation: string, recLocation: string): string {
  const payload =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('25', cobLocation)) +
    tlv('52', '0000') +
    tlv('53', '986') +
    tlv('58', 'BR') +
    tlv('59', 'LOJA TESTE') +
    tlv('60', 'SAO PAULO') +
    tlv('62', tlv('05', '***')) +
    tlv('80', tlv('00', 'br.gov.bcb.pix') + tlv('25', recLocation)) +
    '6304';
  return payload + crc16(payload);
}

/** E + ISPB + yyyyMMddHHmm + 11 alphanumerics: 32 characters. */
export function newE2eid(at: Date): string {
  const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  return `E${ISPB}${stamp}${randomBytes(8).toString('hex').slice(0, 11)}`;
}

export function cents(valor: string): number {
  const [r, c] = valor.split('.');
  return Number(r) * 100 + Number(c);
}

export function money(c: number): string {
  return `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
}

export function isLoopback(u: URL): boolean {
  return u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]';
}

/** Checks the devedor object of a cob/cobv (PessoaFisica | PessoaJuridica, never both). */
export function checkDevedor(d: any, where: string, required: boolean, v: Violation[]) {
  if (d === undefined) {
    if (required) v.push({ razao: 'devedor é obrigatório', propriedade: where });
    return;
  }
  if (typeof d !== 'object' || d === null) return void v.push({ razao: 'devedor não respeita o schema', propriedade: where });
  if (d.cpf !== undefined && d.cnpj !== undefined) v.push({ razao: 'cpf e cnpj não podem estar ambos preenchidos', propriedade: where });
  if (d.cpf === undefined && d.cnpj === undefined) v.push({ razao: 'cpf ou cnpj é obrigatório', propriedade: where });
  if (d.cpf !== undefined && !(typeof d.cpf === 'string' && CPF.test(d.cpf))) v.push({ razao: 'cpf não respeita o schema', propriedade: `${where}.cpf`, valor: String(d.cpf) });
  if (d.cnpj !== undefined && !(typeof d.cnpj === 'string' && CNPJ.test(d.cnpj))) v.push({ razao: 'cnpj não respeita o schema', propriedade: `${where}.cnpj`, valor: String(d.cnpj) });
  if (typeof d.nome !== 'string' || d.nome.length === 0 || d.nome.length > 200) v.push({ razao: 'nome é obrigatório (até 200 caracteres)', propriedade: `${where}.nome` });
}

/** The São Paulo date (YYYY-MM-DD) of an instant (UTC-3, no daylight saving). */
export function spDay(at: Date): string {
  return new Date(at.getTime() - 3 * 3600_000).toISOString().slice(0, 10);
}

/** A cobv's due date as the standard has it apply: moved to the next business day (weekends here; no holiday table). */
export function effectiveDueDate(due: string): string {
  let d = new Date(`${due}T00:00:00Z`);
  while (d.getUTCDay() === 0 || d.getUTCDay() === 6) d = new Date(d.getTime() + DAY_MS);
  return d.toISOString().slice(0, 10);
}

/** Half up, in cents. */
const roundCents = (x: number) => Math.floor(x + 0.5);

/**
 * What a cobv costs when paid on `day` (valor.original, plus multa and juros after the due date, as
 * the standard's domains define them), or null when it can no longer be paid (past
 * validadeAposVencimento). Calendar-day modalities only: the business-day ones (juros 5 to 8) need a
 * holiday table and are refused by this PSP.
 */
export function cobvAmountOn(body: any, day: string): number | null {
  const original = cents(body.valor.original);
  const due = effectiveDueDate(body.calendario.dataDeVencimento);
  const late = Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${due}T00:00:00Z`)) / DAY_MS);
  if (late <= 0) return original;
  if (late > (body.calendario.validadeAposVencimento ?? 30)) return null;
  const multa = body.valor.multa;
  const fine = !multa ? 0 : multa.modalidade === 1 ? cents(multa.valorPerc) : roundCents((original * Number(multa.valorPerc)) / 100);
  const juros = body.valor.juros;
  const rate = juros ? Number(juros.valorPerc) : 0;
  const interest = !juros ? 0 : juros.modalidade === 1 ? cents(juros.valorPerc) * late : roundCents((original * rate * late) / 100 / ({ 2: 1, 3: 30, 4: 365 } as Record<number, number>)[juros.modalidade]);
  return original + fine + interest;
}

export function checkModalidade(o: any, where: string, max: number, v: Violation[]) {
  if (o === undefined) return;
  if (!Number.isInteger(o?.modalidade) || o.modalidade < 1 || o.modalidade > max) v.push({ razao: `modalidade deve ser de 1 a ${max}`, propriedade: `${where}.modalidade` });
  if (typeof o?.valorPerc !== 'string' || !MONEY.test(o.valorPerc)) v.push({ razao: 'valorPerc não respeita o schema', propriedade: `${where}.valorPerc` });
}

/** Today in São Paulo (UTC-3), YYYY-MM-DD. */
export const today = () => new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);
export const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T12:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
export const validDate = (d: unknown): d is string => typeof d === 'string' && DATE.test(d) && !Number.isNaN(Date.parse(d));
/** Appends a status change, now, to a record's history. */
export const stamp = (list: Array<{ status: string; data: Date }>, status: string) => list.push({ status, data: new Date() });
