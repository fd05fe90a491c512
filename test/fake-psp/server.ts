// A fake PSP for the tests, written from the Banco Central's API Pix v2.9.0
// (../shared/spec/bcb-api-pix-2.9.0.yaml): HTTPS that requires a client certificate, the OAuth2
// client-credentials token endpoint with scopes, cob, cobv, pix, devolução and webhook
// registration, and the notifications a PSP posts to `{webhookUrl}/pix`; Pix Automático: locrec,
// rec (journey 3: a cob with the authorisation attached, the composite BR Code), cobr and its
// retentativas, webhookrec and webhookcobr with their notifications to `{webhookUrl}/rec` and
// `{webhookUrl}/cobr`; the payer's side on demand (approve, reject, cancel, debit, a failed attempt). Every request is checked
// against the standard's rules (txid format, required fields, value formats, the scope of the
// token) and refused with the standard's RFC 7807 problems. It misbehaves on demand: a 401 for a
// valid token, 5xx answers, slow answers, duplicate, out-of-order, bare-array and forged
// notifications, and notifications that are never sent. It listens on loopback only and calls
// loopback webhooks only.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { crc16 } from '../../src/payments/pix.ts';
import { makeCertificate } from '../webhook-receiver.ts';

export const ALL_SCOPES = [
  'cob.write', 'cob.read', 'cobv.write', 'cobv.read', 'pix.write', 'pix.read', 'webhook.write', 'webhook.read',
  'rec.write', 'rec.read', 'payloadlocationrec.write', 'payloadlocationrec.read', 'cobr.write', 'cobr.read', 'webhookrec.write', 'webhookrec.read', 'webhookcobr.write', 'webhookcobr.read',
] as const;

const TXID = /^[a-zA-Z0-9]{26,35}$/;
const E2EID = /^[a-zA-Z0-9]{32}$/;
const DEVOLUCAO_ID = /^[a-zA-Z0-9]{1,35}$/;
const MONEY = /^\d{1,10}\.\d{2}$/;
const CPF = /^\d{11}$/;
const CNPJ = /^[0-9A-Z]{14}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
const ISPB = '99999999';
const REC_ID = /^[a-zA-Z0-9]{29}$/;
const PERIODICIDADES = ['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL'];
const TIPOS_CONTA = ['CORRENTE', 'POUPANCA', 'PAGAMENTO'];
/** The standard's reasons for an attempt's rejection (CobRTentativas.rejeicao.codigo). */
const ATTEMPT_CODES = ['AB10', 'AC05', 'AC06', 'AM02', 'AM09', 'DENC', 'DS27', 'DTED', 'DTNT', 'FBRD', 'IRNT', 'MIDI', 'MSUC', 'NIEC', 'NIPA', 'NITX', 'QUNT', 'RC09', 'UDEI'];

export interface RecRecord {
  idRec: string;
  body: any;
  status: 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
  loc: { id: number; location: string; criacao: Date } | null;
  atualizacao: Array<{ status: string; data: Date }>;
  encerramento?: unknown;
}

export interface Tentativa {
  dataLiquidacao: string;
  tipo: 'AGND' | 'NTAG' | 'RIFL';
  status: 'SOLICITADA' | 'AGENDADA' | 'PAGA' | 'CANCELADA' | 'REJEITADA' | 'EXPIRADA';
  endToEndId: string;
  atualizacao: Array<{ status: string; data: Date }>;
  rejeicao?: { codigo: string; descricao: string };
}

export interface CobRRecord {
  txid: string;
  idRec: string;
  body: any;
  status: 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
  criacao: Date;
  tentativas: Tentativa[];
  pix: string[];
  atualizacao: Array<{ status: string; data: Date }>;
  encerramento?: unknown;
}

export interface Violation {
  razao: string;
  propriedade: string;
  valor?: string;
}

export interface Cob {
  kind: 'cob' | 'cobv';
  txid: string;
  revisao: number;
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
  criacao: Date;
  body: any;
  location: string;
  pixCopiaECola: string;
  pix: string[];
}

export interface Devolucao {
  id: string;
  rtrId: string;
  valor: string;
  natureza: string;
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  motivo?: string;
  solicitacao: Date;
  liquidacao?: Date;
}

export interface PixRecord {
  endToEndId: string;
  txid: string;
  valor: string;
  chave: string;
  horario: Date;
  devolucoes: Devolucao[];
}

export interface Logged {
  method: string;
  path: string;
  query: URLSearchParams;
  body: any;
  scope: string[] | null;
  status: number;
  at: number;
}

/** How a settlement's notification is sent. */
export interface NotifyOptions {
  /** none: the notification is lost; twice: sent two times; bare: the body is a bare array. */
  mode?: 'normal' | 'none' | 'twice' | 'bare';
}

export interface FakePsp {
  /** https://localhost:<port>/api/v2 */
  apiUrl: string;
  tokenUrl: string;
  /** PEM files: the PSP's server certificate (our PIX_API_CA_FILE) and our client certificate and key. */
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  clientId: string;
  clientSecret: string;
  /** The DICT keys this receiver owns (a cob or webhook for another key is refused). */
  keys: Set<string>;
  cobs: Map<string, Cob>;
  pix: Map<string, PixRecord>;
  webhooks: Map<string, { webhookUrl: string; criacao: Date }>;
  /** Pix Automático: authorisations by idRec, recurring charges by txid, the rec and cobr webhooks. */
  recs: Map<string, RecRecord>;
  cobrs: Map<string, CobRRecord>;
  recWebhook: { webhookUrl: string; criacao: Date } | null;
  cobrWebhook: { webhookUrl: string; criacao: Date } | null;
  requests: Logged[];
  tokensIssued: number;
  /** Scopes the client may be granted (default: all). */
  grantable: Set<string>;
  /** Every request logged for a method and path prefix. */
  calls(method: string, pathPrefix: string): Logged[];
  /** The next `n` API calls (token endpoint excluded) answer `status` with a problem. */
  failNext(n: number, status: number): void;
  /**
   * The next successful call of `method` on a path starting with `pathPrefix` is done (the charge
   * or authorisation is made) but its answer is lost: the connection is reset.
   */
  dropAnswer(method: string, pathPrefix: string): void;
  /** The next call of `method` on exactly `path` (or, when it ends in '/', on any path under it) answers `status` with a problem, doing nothing. */
  failNextOn(method: string, path: string, status: number): void;
  /** The next API call answers 401 although its token is valid (a PSP that revoked it). */
  unauthorizedOnce(): void;
  /** The next `n` API calls wait `ms` before answering (timeouts). */
  delayNext(n: number, ms: number): void;
  /**
   * A payer pays the charge `txid` (its full value, unless given; a cobv paid after its due date
   * costs its multa and juros, computed here); notifies the registered webhook.
   */
  pay(txid: string, opts?: NotifyOptions & { valor?: string; horario?: Date }): Promise<PixRecord>;
  /** Posts a notification for these e2eids (as stored; an unknown one is sent as a forged item). */
  notify(items: Array<PixRecord | Record<string, unknown>>, opts?: { bare?: boolean; chave?: string }): Promise<number>;
  /** Posts a notification for a Pix it never settled (same txid and value as `txid`'s charge). */
  forge(txid: string): Promise<{ status: number; e2eid: string }>;
  /** The payer answers an authorisation (APROVADA, REJEITADA with code AP13/AP14), or cancels one (USUARIO_PAGADOR); notifies webhookrec. */
  answerRec(idRec: string, answer: 'APROVADA' | 'REJEITADA' | 'CANCELADA' | 'EXPIRADA', opts?: NotifyOptions & { by?: 'USUARIO_PAGADOR' | 'PSP_PAGADOR' | 'PSP_RECEBEDOR'; codigo?: string }): Promise<RecRecord>;
  /** The payer's bank debits the recurring charge's scheduled attempt (a Pix settles it); notifies webhookcobr. */
  debit(txid: string, opts?: NotifyOptions): Promise<PixRecord>;
  /** The scheduled attempt fails (rejected with `codigo`, or EXPIRADA without one); notifies webhookcobr. */
  failAttempt(txid: string, codigo?: string, opts?: NotifyOptions): Promise<CobRRecord>;
  /** Posts a rec or cobr notification with whatever items (a forged one is just that). */
  notifyRecurring(kind: 'rec' | 'cobr', items: unknown[], opts?: { bare?: boolean }): Promise<number>;
  /** Finishes every refund still in processing (DEVOLVIDO, or NAO_REALIZADO with a reason); notifies. */
  finishRefunds(status: 'DEVOLVIDO' | 'NAO_REALIZADO', opts?: NotifyOptions): Promise<void>;
  close(): Promise<void>;
}

function problem(type: string, status: number, title: string, detail?: string, violacoes?: Violation[]) {
  return { status, body: { type: `https://pix.bcb.gov.br/api/v2/error/${type}`, title, status, ...(detail ? { detail } : {}), ...(violacoes?.length ? { violacoes } : {}), correlationId: randomUUID() } };
}

function tlv(id: string, value: string): string {
  return id + String(value.length).padStart(2, '0') + value;
}

/** A dynamic BR Code (the payload is fetched from the location), as a PSP returns in pixCopiaECola. */
function dynamicBrCode(location: string): string {
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
function compositeBrCode(cobLocation: string, recLocation: string): string {
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
function newE2eid(at: Date): string {
  const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  return `E${ISPB}${stamp}${randomBytes(8).toString('hex').slice(0, 11)}`;
}

function cents(valor: string): number {
  const [r, c] = valor.split('.');
  return Number(r) * 100 + Number(c);
}

function money(c: number): string {
  return `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
}

function isLoopback(u: URL): boolean {
  return u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]';
}

/** Checks the devedor object of a cob/cobv (PessoaFisica | PessoaJuridica, never both). */
function checkDevedor(d: any, where: string, required: boolean, v: Violation[]) {
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
function spDay(at: Date): string {
  return new Date(at.getTime() - 3 * 3600_000).toISOString().slice(0, 10);
}

/** A cobv's due date as the standard has it apply: moved to the next business day (weekends here; no holiday table). */
function effectiveDueDate(due: string): string {
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

function checkModalidade(o: any, where: string, max: number, v: Violation[]) {
  if (o === undefined) return;
  if (!Number.isInteger(o?.modalidade) || o.modalidade < 1 || o.modalidade > max) v.push({ razao: `modalidade deve ser de 1 a ${max}`, propriedade: `${where}.modalidade` });
  if (typeof o?.valorPerc !== 'string' || !MONEY.test(o.valorPerc)) v.push({ razao: 'valorPerc não respeita o schema', propriedade: `${where}.valorPerc` });
}

export async function startFakePsp(opts: { keys?: string[]; tokenTtlSeconds?: number } = {}): Promise<FakePsp> {
  const server = makeCertificate();
  const client = makeCertificate();
  const clientId = `client_${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(16).toString('hex');
  const tokenTtl = opts.tokenTtlSeconds ?? 3600;
  const tokens = new Map<string, { scopes: string[]; expires: number }>();
  const cobs = new Map<string, Cob>();
  const pix = new Map<string, PixRecord>();
  const webhooks = new Map<string, { webhookUrl: string; criacao: Date }>();
  const recs = new Map<string, RecRecord>();
  const cobrs = new Map<string, CobRRecord>();
  const locrecs = new Map<number, { id: number; location: string; criacao: Date; idRec: string | null }>();
  let locRecId = 500;
  const requests: Logged[] = [];
  const keys = new Set(opts.keys ?? ['pix@loja.example']);
  const grantable = new Set<string>(ALL_SCOPES);
  const failures: number[] = [];
  const delays: number[] = [];
  const drops: Array<{ method: string; pathPrefix: string }> = [];
  const targetedFailures: Array<{ method: string; path: string; status: number }> = [];
  let unauthorized = 0;
  let locId = 1000;
  let port = 0;

  const routes: Array<{ method: string; re: RegExp; scope: string; handle: (m: RegExpMatchArray, body: any, q: URLSearchParams) => { status: number; body?: unknown } }> = [];
  const route = (method: string, re: RegExp, scope: string, handle: (typeof routes)[number]['handle']) => routes.push({ method, re, scope, handle });

  function cobView(c: Cob) {
    const cal = c.kind === 'cob' ? { criacao: c.criacao.toISOString(), expiracao: c.body.calendario?.expiracao ?? 86400 } : { criacao: c.criacao.toISOString(), dataDeVencimento: c.body.calendario.dataDeVencimento, validadeAposVencimento: c.body.calendario.validadeAposVencimento ?? 30 };
    return {
      ...c.body,
      calendario: cal,
      txid: c.txid,
      revisao: c.revisao,
      loc: { id: locId, location: c.location, tipoCob: c.kind, criacao: c.criacao.toISOString() },
      location: c.location,
      status: c.status,
      pixCopiaECola: c.pixCopiaECola,
      ...(c.kind === 'cobv' ? { recebedor: { cnpj: '12345678000195', nome: 'Loja Teste', logradouro: 'Rua A, 1', cidade: 'São Paulo', uf: 'SP', cep: '01001000' } } : {}),
      ...(c.pix.length ? { pix: c.pix.map((e) => pixView(pix.get(e)!)) } : {}),
    };
  }

  function pixView(p: PixRecord) {
    return {
      endToEndId: p.endToEndId,
      txid: p.txid,
      valor: p.valor,
      chave: p.chave,
      horario: p.horario.toISOString(),
      componentesValor: { original: { valor: p.valor } },
      ...(p.devolucoes.length
        ? {
            devolucoes: p.devolucoes.map((d) => ({
              id: d.id,
              rtrId: d.rtrId,
              valor: d.valor,
              natureza: d.natureza,
              horario: { solicitacao: d.solicitacao.toISOString(), ...(d.liquidacao ? { liquidacao: d.liquidacao.toISOString() } : {}) },
              status: d.status,
              ...(d.motivo ? { motivo: d.motivo } : {}),
            })),
          }
        : {}),
    };
  }

  /** cob / cobv creation and revision rules (PUT creates or alters an ATIVA one; PATCH revises). */
  function putCob(kind: 'cob' | 'cobv', txid: string, body: any): { status: number; body?: unknown } {
    const type = kind === 'cob' ? 'Cob' : 'CobV';
    if (!TXID.test(txid)) return problem('RequisicaoInvalida', 400, 'Requisição inválida', 'txid não respeita o schema', [{ razao: 'txid deve ter de 26 a 35 caracteres alfanuméricos', propriedade: 'txid', valor: txid }]);
    const v: Violation[] = [];
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return problem(`${type}OperacaoInvalida`, 400, 'Cobrança inválida', 'corpo não é um objeto');
    if (typeof body.chave !== 'string' || body.chave.length > 77) v.push({ razao: 'chave é obrigatória', propriedade: `${kind}.chave` });
    else if (!keys.has(body.chave)) v.push({ razao: 'a chave não pertence a este usuário recebedor', propriedade: `${kind}.chave`, valor: body.chave });
    if (typeof body.valor?.original !== 'string' || !MONEY.test(body.valor.original)) v.push({ razao: 'valor.original não respeita o schema', propriedade: `${kind}.valor.original` });
    else if (cents(body.valor.original) === 0) v.push({ razao: 'valor.original não pode ser zero', propriedade: `${kind}.valor.original` });
    if (typeof body.calendario !== 'object' || body.calendario === null) v.push({ razao: 'calendario é obrigatório', propriedade: `${kind}.calendario` });
    else if (kind === 'cob') {
      const exp = body.calendario.expiracao;
      if (exp !== undefined && !(Number.isInteger(exp) && exp > 0)) v.push({ razao: 'expiracao deve ser um inteiro maior que zero', propriedade: 'cob.calendario.expiracao' });
    } else {
      const due = body.calendario.dataDeVencimento;
      if (typeof due !== 'string' || !DATE.test(due) || Number.isNaN(Date.parse(due))) v.push({ razao: 'dataDeVencimento não respeita o schema', propriedade: 'cobv.calendario.dataDeVencimento' });
      const val = body.calendario.validadeAposVencimento;
      if (val !== undefined && !(Number.isInteger(val) && val >= 0)) v.push({ razao: 'validadeAposVencimento não respeita o schema', propriedade: 'cobv.calendario.validadeAposVencimento' });
      checkModalidade(body.valor?.multa, 'cobv.valor.multa', 2, v);
      checkModalidade(body.valor?.juros, 'cobv.valor.juros', 8, v);
      if (body.valor?.juros?.modalidade > 4) v.push({ razao: 'juros em dias úteis não são oferecidos por este PSP', propriedade: 'cobv.valor.juros.modalidade' });
    }
    checkDevedor(body.devedor, `${kind}.devedor`, kind === 'cobv', v);
    if (body.solicitacaoPagador !== undefined && (typeof body.solicitacaoPagador !== 'string' || body.solicitacaoPagador.length > 140)) v.push({ razao: 'solicitacaoPagador até 140 caracteres', propriedade: `${kind}.solicitacaoPagador` });
    if (v.length) return problem(`${type}OperacaoInvalida`, 400, 'Cobrança inválida', 'A requisição que busca criar uma cobrança não respeita o schema.', v);
    const existing = cobs.get(txid);
    if (existing && existing.kind !== kind) return problem(`${type}OperacaoInvalida`, 400, 'Cobrança inválida', 'txid em uso por outro tipo de cobrança');
    if (existing && existing.status !== 'ATIVA') return problem(`${type}OperacaoInvalida`, 400, 'Cobrança inválida', 'A cobrança já existe e não está ATIVA.');
    const now = new Date();
    if (existing) {
      if (JSON.stringify(existing.body) !== JSON.stringify(body)) existing.revisao += 1;
      existing.body = body;
      return { status: 201, body: cobView(existing) };
    }
    const location = `localhost:${port}/qr/v2/${kind === 'cobv' ? 'cobv/' : ''}${randomUUID().replace(/-/g, '')}`;
    const c: Cob = { kind, txid, revisao: 0, status: 'ATIVA', criacao: now, body, location, pixCopiaECola: dynamicBrCode(location), pix: [] };
    cobs.set(txid, c);
    locId += 1;
    return { status: 201, body: cobView(c) };
  }

  function patchCob(kind: 'cob' | 'cobv', txid: string, body: any): { status: number; body?: unknown } {
    const type = kind === 'cob' ? 'Cob' : 'CobV';
    const c = cobs.get(txid);
    if (!c || c.kind !== kind) return problem(`${type}NaoEncontrado`, 404, 'Cobrança não encontrada', 'Cobrança não encontrada para o txid informado.');
    if (c.status !== 'ATIVA') return problem(`${type}OperacaoInvalida`, 400, 'Cobrança inválida', 'A cobrança não está ATIVA, e a presente requisição busca alterá-la.');
    if (body?.status !== undefined) {
      if (body.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR') return problem(`${type}OperacaoInvalida`, 400, 'Cobrança inválida', 'o campo cob.status não respeita o schema', [{ razao: 'status inválido', propriedade: `${kind}.status` }]);
      if (Object.keys(body).length > 1) return problem(`${type}OperacaoInvalida`, 400, 'Cobrança inválida', 'remoção junto com outras alterações');
      c.status = 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
      c.revisao += 1;
      return { status: 200, body: cobView(c) };
    }
    c.body = { ...c.body, ...body };
    c.revisao += 1;
    return { status: 200, body: cobView(c) };
  }

  route('PUT', /^\/cob\/([^/]+)$/, 'cob.write', (m, body) => putCob('cob', m[1], body));
  route('PATCH', /^\/cob\/([^/]+)$/, 'cob.write', (m, body) => patchCob('cob', m[1], body));
  route('GET', /^\/cob\/([^/]+)$/, 'cob.read', (m) => {
    const c = cobs.get(m[1]);
    return c && c.kind === 'cob' ? { status: 200, body: cobView(c) } : problem('CobNaoEncontrado', 404, 'Cobrança não encontrada');
  });
  route('PUT', /^\/cobv\/([^/]+)$/, 'cobv.write', (m, body) => putCob('cobv', m[1], body));
  route('PATCH', /^\/cobv\/([^/]+)$/, 'cobv.write', (m, body) => patchCob('cobv', m[1], body));
  route('GET', /^\/cobv\/([^/]+)$/, 'cobv.read', (m) => {
    const c = cobs.get(m[1]);
    return c && c.kind === 'cobv' ? { status: 200, body: cobView(c) } : problem('CobVNaoEncontrada', 404, 'Cobrança não encontrada');
  });

  route('GET', /^\/pix\/([^/]+)$/, 'pix.read', (m) => {
    if (!E2EID.test(m[1])) return problem('RequisicaoInvalida', 400, 'Requisição inválida', 'e2eid não respeita o schema');
    const p = pix.get(m[1]);
    return p ? { status: 200, body: pixView(p) } : problem('PixNaoEncontrado', 404, 'Pix não encontrado', 'Pix não encontrado para o e2eid informado.');
  });
  route('GET', /^\/pix$/, 'pix.read', (_m, _b, q) => {
    const inicio = Date.parse(q.get('inicio') ?? '');
    const fim = Date.parse(q.get('fim') ?? '');
    const page = Number(q.get('paginacao.paginaAtual') ?? '0');
    const per = Number(q.get('paginacao.itensPorPagina') ?? '100');
    const v: Violation[] = [];
    if (Number.isNaN(inicio)) v.push({ razao: 'inicio é obrigatório (RFC 3339)', propriedade: 'inicio' });
    if (Number.isNaN(fim)) v.push({ razao: 'fim é obrigatório (RFC 3339)', propriedade: 'fim' });
    if (!v.length && fim < inicio) v.push({ razao: 'fim é anterior a inicio', propriedade: 'fim' });
    if (!Number.isInteger(page) || page < 0) v.push({ razao: 'paginaAtual negativo', propriedade: 'paginacao.paginaAtual' });
    if (!Number.isInteger(per) || per < 1 || per > 1000) v.push({ razao: 'itensPorPagina fora de 1..1000', propriedade: 'paginacao.itensPorPagina' });
    if (v.length) return problem('PixConsultaInvalida', 400, 'Consulta inválida', undefined, v);
    const all = [...pix.values()].filter((p) => p.horario.getTime() >= inicio && p.horario.getTime() <= fim).sort((a, b) => a.horario.getTime() - b.horario.getTime());
    const pages = Math.max(1, Math.ceil(all.length / per));
    return {
      status: 200,
      body: {
        parametros: { inicio: q.get('inicio'), fim: q.get('fim'), paginacao: { paginaAtual: page, itensPorPagina: per, quantidadeDePaginas: pages, quantidadeTotalDeItens: all.length } },
        pix: all.slice(page * per, page * per + per).map(pixView),
      },
    };
  });
  route('PUT', /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/, 'pix.write', (m, body) => {
    const [, e2eid, id] = m;
    const p = pix.get(e2eid);
    if (!p) return problem('PixNaoEncontrado', 404, 'Pix não encontrado');
    const v: Violation[] = [];
    if (!DEVOLUCAO_ID.test(id)) v.push({ razao: 'id não respeita o schema', propriedade: 'id', valor: id });
    if (typeof body?.valor !== 'string' || !MONEY.test(body.valor) || cents(body.valor) === 0) v.push({ razao: 'valor não respeita o schema', propriedade: 'devolucao.valor' });
    if (body?.natureza !== undefined && body.natureza !== 'ORIGINAL' && body.natureza !== 'RETIRADA') v.push({ razao: 'natureza não respeita o schema', propriedade: 'devolucao.natureza' });
    if (body?.descricao !== undefined && (typeof body.descricao !== 'string' || body.descricao.length > 140)) v.push({ razao: 'descricao até 140 caracteres', propriedade: 'devolucao.descricao' });
    if (!v.length && p.devolucoes.some((d) => d.id === id)) v.push({ razao: 'id já utilizado por outra devolução deste Pix', propriedade: 'id', valor: id });
    if (!v.length) {
      const taken = p.devolucoes.filter((d) => d.status !== 'NAO_REALIZADO').reduce((s, d) => s + cents(d.valor), 0);
      if (taken + cents(body.valor) > cents(p.valor)) v.push({ razao: 'a soma das devoluções excederia o valor do Pix', propriedade: 'devolucao.valor', valor: body.valor });
      if (Date.now() - p.horario.getTime() > 90 * DAY_MS) v.push({ razao: 'fora da janela de 90 dias desde a liquidação', propriedade: 'e2eid' });
    }
    if (v.length) return problem('PixDevolucaoInvalida', 400, 'Devolução inválida', undefined, v);
    const d: Devolucao = { id, rtrId: `D${ISPB}${new Date().toISOString().replace(/[-:T]/g, '').slice(0, 12)}${randomBytes(8).toString('hex').slice(0, 11)}`, valor: body.valor, natureza: body.natureza ?? 'ORIGINAL', status: 'EM_PROCESSAMENTO', solicitacao: new Date() };
    p.devolucoes.push(d);
    return { status: 201, body: pixView(p).devolucoes!.find((x) => x.id === id) };
  });
  route('GET', /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/, 'pix.read', (m) => {
    const d = pix.get(m[1])?.devolucoes.find((x) => x.id === m[2]);
    if (!d) return problem('PixDevolucaoNaoEncontrada', 404, 'Devolução não encontrada');
    return { status: 200, body: pixView(pix.get(m[1])!).devolucoes!.find((x) => x.id === m[2]) };
  });

  route('PUT', /^\/webhook\/([^/]+)$/, 'webhook.write', (m, body) => {
    const chave = decodeURIComponent(m[1]);
    const v: Violation[] = [];
    if (!keys.has(chave)) v.push({ razao: 'a chave não pertence a este usuário recebedor', propriedade: 'chave', valor: chave });
    let target: URL | null = null;
    try {
      target = new URL(body?.webhookUrl);
    } catch {
      v.push({ razao: 'webhookUrl não respeita o schema', propriedade: 'webhook.webhookUrl' });
    }
    if (target && !isLoopback(target)) v.push({ razao: 'o PSP de teste só chama endereços de loopback', propriedade: 'webhook.webhookUrl' });
    if (v.length) return problem('WebhookOperacaoInvalida', 400, 'Webhook inválido', undefined, v);
    webhooks.set(chave, { webhookUrl: body.webhookUrl, criacao: webhooks.get(chave)?.criacao ?? new Date() });
    return { status: 200 };
  });
  route('GET', /^\/webhook\/([^/]+)$/, 'webhook.read', (m) => {
    const w = webhooks.get(decodeURIComponent(m[1]));
    return w ? { status: 200, body: { webhookUrl: w.webhookUrl, chave: decodeURIComponent(m[1]), criacao: w.criacao.toISOString() } } : problem('WebhookNaoEncontrado', 404, 'Webhook não encontrado');
  });
  route('DELETE', /^\/webhook\/([^/]+)$/, 'webhook.write', (m) => (webhooks.delete(decodeURIComponent(m[1])) ? { status: 204 } : problem('WebhookNaoEncontrado', 404, 'Webhook não encontrado')));

  // -------------------------------------------------------------------------------------------
  // Pix Automático

  const today = () => new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);
  const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T12:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
  const validDate = (d: unknown): d is string => typeof d === 'string' && DATE.test(d) && !Number.isNaN(Date.parse(d));
  const stamp = (list: Array<{ status: string; data: Date }>, status: string) => list.push({ status, data: new Date() });

  function recView(r: RecRecord, withTxid?: string) {
    const c = r.body.ativacao?.dadosJornada?.txid ? cobs.get(r.body.ativacao.dadosJornada.txid) : undefined;
    const composite = withTxid && c && r.loc ? compositeBrCode(c.location, r.loc.location) : null;
    return {
      idRec: r.idRec,
      vinculo: r.body.vinculo,
      calendario: r.body.calendario,
      ...(r.body.valor ? { valor: r.body.valor } : {}),
      politicaRetentativa: r.body.politicaRetentativa,
      recebedor: { cnpj: '12345678000195', nome: 'Loja Teste' },
      status: r.status,
      ...(r.loc ? { loc: { id: r.loc.id, location: r.loc.location, criacao: r.loc.criacao.toISOString(), idRec: r.idRec } } : {}),
      ativacao: { tipoJornada: r.body.ativacao?.dadosJornada?.txid ? 'JORNADA_3' : 'AGUARDANDO_DEFINICAO', ...(r.body.ativacao?.dadosJornada ? { dadosJornada: r.body.ativacao.dadosJornada } : {}) },
      ...(r.encerramento ? { encerramento: r.encerramento } : {}),
      atualizacao: r.atualizacao.map((a) => ({ status: a.status, data: a.data.toISOString() })),
      ...(composite ? { dadosQR: { jornada: 'JORNADA_3', pixCopiaECola: composite } } : {}),
    };
  }

  function cobrView(c: CobRRecord) {
    return {
      idRec: c.idRec,
      txid: c.txid,
      ...(c.body.infoAdicional !== undefined ? { infoAdicional: c.body.infoAdicional } : {}),
      calendario: { criacao: c.criacao.toISOString().slice(0, 10), dataDeVencimento: c.body.calendario.dataDeVencimento },
      valor: c.body.valor,
      status: c.status,
      politicaRetentativa: recs.get(c.idRec)?.body.politicaRetentativa ?? 'NAO_PERMITE',
      ajusteDiaUtil: c.body.ajusteDiaUtil,
      recebedor: c.body.recebedor,
      ...(c.body.devedor ? { devedor: c.body.devedor } : {}),
      ...(c.pix.length ? { pix: c.pix.map((e) => { const p = pixView(pix.get(e)!); return { endToEndId: p.endToEndId, txid: p.txid, valor: p.valor, horario: p.horario }; }) } : {}),
      atualizacao: c.atualizacao.map((a) => ({ status: a.status, data: a.data.toISOString() })),
      ...(c.encerramento ? { encerramento: c.encerramento } : {}),
      tentativas: c.tentativas.map((t) => ({ ...t, atualizacao: t.atualizacao.map((a) => ({ status: a.status, data: a.data.toISOString() })) })),
    };
  }

  route('POST', /^\/locrec$/, 'payloadlocationrec.write', () => {
    locRecId += 1;
    const l = { id: locRecId, location: `localhost:${port}/qr/v2/rec/${randomUUID().replace(/-/g, '')}`, criacao: new Date(), idRec: null };
    locrecs.set(l.id, l);
    return { status: 201, body: { id: l.id, location: l.location, criacao: l.criacao.toISOString() } };
  });
  route('GET', /^\/locrec\/(\d+)$/, 'payloadlocationrec.read', (m) => {
    const l = locrecs.get(Number(m[1]));
    return l ? { status: 200, body: { id: l.id, location: l.location, criacao: l.criacao.toISOString(), ...(l.idRec ? { idRec: l.idRec } : {}) } } : problem('NaoEncontrado', 404, 'Location não encontrada');
  });

  route('POST', /^\/rec$/, 'rec.write', (_m, body) => {
    const v: Violation[] = [];
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return problem('RecOperacaoInvalida', 400, 'Recorrência inválida', 'corpo não é um objeto');
    const vin = body.vinculo;
    if (typeof vin !== 'object' || vin === null) v.push({ razao: 'vinculo é obrigatório', propriedade: 'rec.vinculo' });
    else {
      if (typeof vin.contrato !== 'string' || !vin.contrato || vin.contrato.length > 35) v.push({ razao: 'contrato é obrigatório (até 35 caracteres)', propriedade: 'rec.vinculo.contrato' });
      if (vin.objeto !== undefined && (typeof vin.objeto !== 'string' || vin.objeto.length > 35)) v.push({ razao: 'objeto até 35 caracteres', propriedade: 'rec.vinculo.objeto' });
      const d = vin.devedor;
      if (typeof d !== 'object' || d === null) v.push({ razao: 'devedor é obrigatório', propriedade: 'rec.vinculo.devedor' });
      else {
        if ((d.cpf === undefined) === (d.cnpj === undefined)) v.push({ razao: 'informe cpf ou cnpj', propriedade: 'rec.vinculo.devedor' });
        if (d.cpf !== undefined && !(typeof d.cpf === 'string' && CPF.test(d.cpf))) v.push({ razao: 'cpf não respeita o schema', propriedade: 'rec.vinculo.devedor.cpf' });
        if (d.cnpj !== undefined && !(typeof d.cnpj === 'string' && CNPJ.test(d.cnpj))) v.push({ razao: 'cnpj não respeita o schema', propriedade: 'rec.vinculo.devedor.cnpj' });
        if (typeof d.nome !== 'string' || !d.nome || d.nome.length > 140) v.push({ razao: 'nome é obrigatório (até 140 caracteres)', propriedade: 'rec.vinculo.devedor.nome' });
      }
    }
    const cal = body.calendario;
    if (typeof cal !== 'object' || cal === null) v.push({ razao: 'calendario é obrigatório', propriedade: 'rec.calendario' });
    else {
      if (!validDate(cal.dataInicial)) v.push({ razao: 'dataInicial não respeita o schema', propriedade: 'rec.calendario.dataInicial' });
      else if (cal.dataInicial < today()) v.push({ razao: 'dataInicial é anterior à data de criação da recorrência', propriedade: 'rec.calendario.dataInicial' });
      if (cal.dataFinal !== undefined && (!validDate(cal.dataFinal) || (validDate(cal.dataInicial) && cal.dataFinal < cal.dataInicial))) v.push({ razao: 'dataFinal anterior a dataInicial', propriedade: 'rec.calendario.dataFinal' });
      if (!PERIODICIDADES.includes(cal.periodicidade)) v.push({ razao: 'periodicidade não respeita o schema', propriedade: 'rec.calendario.periodicidade' });
    }
    if (body.valor !== undefined) {
      const val = body.valor;
      if (val?.valorRec !== undefined && val?.valorMinimoRecebedor !== undefined) v.push({ razao: 'valorRec e valorMinimoRecebedor não podem estar ambos preenchidos', propriedade: 'rec.valor' });
      for (const k of ['valorRec', 'valorMinimoRecebedor']) if (val?.[k] !== undefined && !(typeof val[k] === 'string' && MONEY.test(val[k]))) v.push({ razao: `${k} não respeita o schema`, propriedade: `rec.valor.${k}` });
    }
    if (body.politicaRetentativa !== 'NAO_PERMITE' && body.politicaRetentativa !== 'PERMITE_3R_7D') v.push({ razao: 'politicaRetentativa não respeita o schema', propriedade: 'rec.politicaRetentativa' });
    let loc: (typeof locrecs extends Map<number, infer L> ? L : never) | undefined;
    if (body.loc !== undefined) {
      loc = locrecs.get(Number(body.loc));
      if (!loc) v.push({ razao: 'o location referenciado por rec.loc inexiste', propriedade: 'rec.loc' });
      else if (loc.idRec) v.push({ razao: 'o location referenciado por rec.loc já está sendo utilizado por outra recorrência', propriedade: 'rec.loc' });
    }
    const jt = body.ativacao?.dadosJornada?.txid;
    if (body.ativacao?.dadosJornada !== undefined) {
      if (typeof jt !== 'string' || !TXID.test(jt)) v.push({ razao: 'txid não respeita o schema', propriedade: 'rec.ativacao.dadosJornada.txid' });
      else if (cobs.get(jt)?.kind !== 'cob') v.push({ razao: 'txid não corresponde a uma cobrança imediata', propriedade: 'rec.ativacao.dadosJornada.txid' });
    }
    if (v.length) return problem('RecOperacaoInvalida', 400, 'Recorrência inválida', 'A requisição que busca criar uma recorrência não respeita o schema ou está semanticamente errada.', v);
    const idRec = `R${body.politicaRetentativa === 'PERMITE_3R_7D' ? 'R' : 'N'}${ISPB}${today().replace(/-/g, '')}${randomBytes(8).toString('hex').slice(0, 11)}`;
    const r: RecRecord = { idRec, body, status: 'CRIADA', loc: loc ? { id: loc.id, location: loc.location, criacao: loc.criacao } : null, atualizacao: [] };
    stamp(r.atualizacao, 'CRIADA');
    if (loc) loc.idRec = idRec;
    recs.set(idRec, r);
    return { status: 201, body: recView(r) };
  });
  route('GET', /^\/rec\/([^/]+)$/, 'rec.read', (m, _b, q) => {
    const r = recs.get(m[1]);
    if (!r) return problem('RecNaoEncontrada', 404, 'Recorrência não encontrada', 'Recorrência não encontrada para o idRec informado.');
    const txid = q.get('txid');
    if (txid !== null) {
      const c = cobs.get(txid);
      if (c?.kind !== 'cob') return problem('RecConsultaInvalida', 400, 'Consulta inválida', 'o parâmetro txid não corresponde a uma cobrança compatível com a JORNADA_3');
      if (r.body.ativacao?.dadosJornada?.txid !== txid) return problem('RecConsultaInvalida', 400, 'Consulta inválida', 'o parâmetro txid corresponde a uma cobrança imediata diferente da informada em ativacao.dadosJornada.txid');
    }
    return { status: 200, body: recView(r, txid ?? undefined) };
  });
  route('PATCH', /^\/rec\/([^/]+)$/, 'rec.write', (m, body) => {
    const r = recs.get(m[1]);
    if (!r) return problem('RecNaoEncontrada', 404, 'Recorrência não encontrada');
    if (body?.status !== undefined) {
      if (body.status !== 'CANCELADA') return problem('RecOperacaoInvalida', 400, 'Recorrência inválida', 'o campo rec.status não respeita o schema', [{ razao: 'status inválido', propriedade: 'rec.status' }]);
      if (r.status !== 'CRIADA' && r.status !== 'APROVADA') return problem('RecOperacaoInvalida', 400, 'Recorrência inválida', 'A recorrência encontra-se expirada, cancelada ou rejeitada.');
      r.status = 'CANCELADA';
      r.encerramento = { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR', descricao: 'Cancelamento solicitado pelo usuário recebedor' } };
      stamp(r.atualizacao, 'CANCELADA');
      cancelCobrsOf(r.idRec, 'USUARIO_RECEBEDOR');
    }
    return { status: 200, body: recView(r) };
  });

  /** An authorisation that ends takes its scheduled debits with it. */
  function cancelCobrsOf(idRec: string, solicitante: string) {
    for (const c of cobrs.values()) {
      if (c.idRec !== idRec || (c.status !== 'CRIADA' && c.status !== 'ATIVA')) continue;
      c.status = 'CANCELADA';
      c.encerramento = { cancelamento: { solicitante, codigo: 'OTHR', descricao: 'Recorrência cancelada' } };
      for (const t of c.tentativas) if (t.status === 'SOLICITADA' || t.status === 'AGENDADA') { t.status = 'CANCELADA'; stamp(t.atualizacao, 'CANCELADA'); }
      stamp(c.atualizacao, 'CANCELADA');
    }
  }

  /** Whether two due dates fall in the same cycle of the authorisation's periodicity. */
  function sameCycle(periodicidade: string, a: string, b: string): boolean {
    const [ya, ma] = [Number(a.slice(0, 4)), Number(a.slice(5, 7))];
    const [yb, mb] = [Number(b.slice(0, 4)), Number(b.slice(5, 7))];
    if (periodicidade === 'SEMANAL') return Math.abs(Date.parse(a) - Date.parse(b)) < 7 * DAY_MS;
    if (periodicidade === 'MENSAL') return ya === yb && ma === mb;
    if (periodicidade === 'TRIMESTRAL') return ya === yb && Math.ceil(ma / 3) === Math.ceil(mb / 3);
    if (periodicidade === 'SEMESTRAL') return ya === yb && Math.ceil(ma / 6) === Math.ceil(mb / 6);
    return ya === yb;
  }

  route('PUT', /^\/cobr\/([^/]+)$/, 'cobr.write', (m, body) => {
    const txid = m[1];
    if (!TXID.test(txid)) return problem('RequisicaoInvalida', 400, 'Requisição inválida', 'txid não respeita o schema', [{ razao: 'txid deve ter de 26 a 35 caracteres alfanuméricos', propriedade: 'txid', valor: txid }]);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return problem('CobROperacaoInvalida', 400, 'Cobrança inválida', 'corpo não é um objeto');
    const v: Violation[] = [];
    const rec = typeof body.idRec === 'string' && REC_ID.test(body.idRec) ? recs.get(body.idRec) : undefined;
    if (typeof body.idRec !== 'string' || !REC_ID.test(body.idRec)) v.push({ razao: 'idRec não respeita o schema', propriedade: 'cobr.idRec' });
    else if (!rec) v.push({ razao: 'recorrência inexistente', propriedade: 'cobr.idRec' });
    else if (rec.status !== 'APROVADA') v.push({ razao: 'a recorrência não está APROVADA', propriedade: 'cobr.idRec' });
    const due = body.calendario?.dataDeVencimento;
    if (!validDate(due)) v.push({ razao: 'dataDeVencimento não respeita o schema', propriedade: 'cobr.calendario.dataDeVencimento' });
    else if (due < today()) v.push({ razao: 'dataDeVencimento é anterior à data de criação da cobrança', propriedade: 'cobr.calendario.dataDeVencimento' });
    if (typeof body.valor?.original !== 'string' || !MONEY.test(body.valor.original) || cents(body.valor.original) === 0) v.push({ razao: 'valor não respeita o schema', propriedade: 'cobr.valor' });
    if (typeof body.ajusteDiaUtil !== 'boolean') v.push({ razao: 'ajusteDiaUtil é obrigatório', propriedade: 'cobr.ajusteDiaUtil' });
    const rb = body.recebedor;
    if (typeof rb !== 'object' || rb === null) v.push({ razao: 'recebedor é obrigatório', propriedade: 'cobr.recebedor' });
    else {
      if (typeof rb.conta !== 'string' || !rb.conta || rb.conta.length > 20) v.push({ razao: 'conta é obrigatória (até 20 caracteres)', propriedade: 'cobr.recebedor.conta' });
      if (!TIPOS_CONTA.includes(rb.tipoConta)) v.push({ razao: 'tipoConta não respeita o schema', propriedade: 'cobr.recebedor.tipoConta' });
      if (rb.agencia !== undefined && (typeof rb.agencia !== 'string' || rb.agencia.length > 4)) v.push({ razao: 'agencia até 4 caracteres', propriedade: 'cobr.recebedor.agencia' });
    }
    if (body.infoAdicional !== undefined && (typeof body.infoAdicional !== 'string' || body.infoAdicional.length > 140)) v.push({ razao: 'infoAdicional não respeita o schema', propriedade: 'cobr.infoAdicional' });
    const existing = cobrs.get(txid) ?? (cobs.has(txid) ? ({} as CobRRecord) : undefined);
    if (!v.length && existing) {
      // The same request again (an answer lost) finds the charge it made; anything else is a txid in use.
      if (existing.body && JSON.stringify(existing.body) === JSON.stringify(body)) return { status: 201, body: cobrView(existing) };
      v.push({ razao: 'o campo cobr.txid encontra-se em uso', propriedade: 'cobr.txid', valor: txid });
    }
    if (!v.length && rec && [...cobrs.values()].some((c) => c.idRec === rec.idRec && c.status !== 'REJEITADA' && c.status !== 'CANCELADA' && sameCycle(rec.body.calendario.periodicidade, c.body.calendario.dataDeVencimento, due))) {
      v.push({ razao: 'existe uma CobR com status diferente de REJEITADA e CANCELADA referente ao mesmo idRec com dataDeVencimento no mesmo ciclo', propriedade: 'cobr.calendario.dataDeVencimento' });
    }
    if (v.length) return problem('CobROperacaoInvalida', 400, 'Cobrança inválida', 'A requisição que busca criar uma cobrança recorrente não respeita o schema ou está semanticamente errada.', v);
    const c: CobRRecord = { txid, idRec: body.idRec, body, status: 'CRIADA', criacao: new Date(), tentativas: [], pix: [], atualizacao: [] };
    stamp(c.atualizacao, 'CRIADA');
    const answer = cobrView(c);
    // The payer's bank accepts the schedule at once here: ATIVA, the first attempt AGENDADA on the due date.
    c.status = 'ATIVA';
    stamp(c.atualizacao, 'ATIVA');
    const t: Tentativa = { dataLiquidacao: due, tipo: 'AGND', status: 'AGENDADA', endToEndId: newE2eid(new Date()), atualizacao: [] };
    stamp(t.atualizacao, 'SOLICITADA');
    stamp(t.atualizacao, 'AGENDADA');
    c.tentativas.push(t);
    cobrs.set(txid, c);
    return { status: 201, body: answer };
  });
  route('GET', /^\/cobr\/([^/]+)$/, 'cobr.read', (m) => {
    const c = cobrs.get(m[1]);
    return c ? { status: 200, body: cobrView(c) } : problem('CobRNaoEncontrado', 404, 'Cobrança não encontrada', 'Cobrança não encontrada para o txid informado.');
  });
  route('PATCH', /^\/cobr\/([^/]+)$/, 'cobr.write', (m, body) => {
    const c = cobrs.get(m[1]);
    if (!c) return problem('CobRNaoEncontrado', 404, 'Cobrança não encontrada');
    if (body?.status !== 'CANCELADA') return problem('CobROperacaoInvalida', 400, 'Cobrança inválida', 'o campo cobr.status não respeita o schema', [{ razao: 'status inválido', propriedade: 'cobr.status' }]);
    if (c.status !== 'CRIADA' && c.status !== 'ATIVA') return problem('CobROperacaoInvalida', 400, 'Cobrança inválida', 'a cobrança não está CRIADA ou ATIVA');
    const first = c.tentativas[0]?.dataLiquidacao ?? c.body.calendario.dataDeVencimento;
    if (today() >= first) return problem('CobROperacaoInvalida', 400, 'Cobrança inválida', 'Não é possível cancelar uma cobrança em uma data igual ou maior que a data prevista da primeira tentativa de liquidação.');
    c.status = 'CANCELADA';
    c.encerramento = { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR', descricao: 'Cancelamento solicitado pelo usuário recebedor' } };
    for (const t of c.tentativas) if (t.status === 'SOLICITADA' || t.status === 'AGENDADA') { t.status = 'CANCELADA'; stamp(t.atualizacao, 'CANCELADA'); }
    stamp(c.atualizacao, 'CANCELADA');
    return { status: 200, body: cobrView(c) };
  });
  route('POST', /^\/cobr\/([^/]+)\/retentativa\/([^/]+)$/, 'cobr.write', (m) => {
    const c = cobrs.get(m[1]);
    if (!c) return problem('CobRNaoEncontrado', 404, 'Cobrança não encontrada');
    const data = m[2];
    const fail = (razao: string) => problem('CobROperacaoInvalida', 400, 'Cobrança inválida', razao, [{ razao, propriedade: 'data', valor: data }]);
    if (recs.get(c.idRec)?.body.politicaRetentativa !== 'PERMITE_3R_7D') return fail('A política configurada na recorrência não permite retentativa de cobrança.');
    if (!validDate(data) || data <= today()) return fail('O parâmetro data não corresponde a uma data futura.');
    if (c.status !== 'ATIVA') return fail('A cobrança não está ATIVA.');
    if (c.tentativas.some((t) => t.status === 'SOLICITADA' || t.status === 'AGENDADA')) return fail('Existe uma tentativa com status SOLICITADA ou AGENDADA.');
    if (data > addDays(c.body.calendario.dataDeVencimento, 7)) return fail('As retentativas devem ocorrer em até 7 dias após a data de vencimento.');
    if (c.tentativas.length - 1 >= 3) return fail('O limite de 3 retentativas foi atingido.');
    const t: Tentativa = { dataLiquidacao: data, tipo: 'NTAG', status: 'AGENDADA', endToEndId: newE2eid(new Date()), atualizacao: [] };
    stamp(t.atualizacao, 'SOLICITADA');
    stamp(t.atualizacao, 'AGENDADA');
    c.tentativas.push(t);
    return { status: 201, body: cobrView(c) };
  });

  for (const kind of ['rec', 'cobr'] as const) {
    route('PUT', new RegExp(`^/webhook${kind}$`), `webhook${kind}.write`, (_m, body) => {
      let target: URL | null = null;
      try {
        target = new URL(body?.webhookUrl);
      } catch {
        return problem('WebhookOperacaoInvalida', 400, 'Webhook inválido', undefined, [{ razao: 'webhookUrl não respeita o schema', propriedade: 'webhook.webhookUrl' }]);
      }
      if (!isLoopback(target)) return problem('WebhookOperacaoInvalida', 400, 'Webhook inválido', undefined, [{ razao: 'o PSP de teste só chama endereços de loopback', propriedade: 'webhook.webhookUrl' }]);
      const hook = { webhookUrl: body.webhookUrl, criacao: (kind === 'rec' ? psp.recWebhook : psp.cobrWebhook)?.criacao ?? new Date() };
      if (kind === 'rec') psp.recWebhook = hook;
      else psp.cobrWebhook = hook;
      return { status: 200 };
    });
    route('GET', new RegExp(`^/webhook${kind}$`), `webhook${kind}.read`, () => {
      const w = kind === 'rec' ? psp.recWebhook : psp.cobrWebhook;
      return w ? { status: 200, body: { webhookUrl: w.webhookUrl, criacao: w.criacao.toISOString() } } : problem('WebhookNaoEncontrado', 404, 'Webhook não encontrado');
    });
    route('DELETE', new RegExp(`^/webhook${kind}$`), `webhook${kind}.write`, () => {
      const had = kind === 'rec' ? psp.recWebhook : psp.cobrWebhook;
      if (kind === 'rec') psp.recWebhook = null;
      else psp.cobrWebhook = null;
      return had ? { status: 204 } : problem('WebhookNaoEncontrado', 404, 'Webhook não encontrado');
    });
  }

  function token(req: http.IncomingMessage, raw: string): { status: number; body?: unknown } {
    const auth = String(req.headers.authorization ?? '');
    const decoded = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
    const sep = decoded.indexOf(':');
    const [id, secret] = sep < 0 ? ['', ''] : [decodeURIComponent(decoded.slice(0, sep)), decodeURIComponent(decoded.slice(sep + 1))];
    if (id !== clientId || secret !== clientSecret) return { status: 401, body: { error: 'invalid_client' } };
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return { status: 400, body: { error: 'invalid_request' } };
    const form = new URLSearchParams(raw);
    if (form.get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } };
    const asked = (form.get('scope') ?? [...grantable].join(' ')).split(' ').filter(Boolean);
    if (asked.some((s) => !grantable.has(s))) return { status: 400, body: { error: 'invalid_scope' } };
    const t = randomBytes(24).toString('base64url');
    tokens.set(t, { scopes: asked, expires: Date.now() + tokenTtl * 1000 });
    psp.tokensIssued += 1;
    return { status: 200, body: { access_token: t, token_type: 'Bearer', expires_in: tokenTtl, scope: asked.join(' ') } };
  }

  const httpsServer = https.createServer(
    { key: readFileSync(server.keyFile), cert: readFileSync(server.certFile), ca: readFileSync(client.certFile), requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void answer(req, res, Buffer.concat(chunks).toString('utf8')));
    },
  );

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const send = (status: number, body?: unknown, scope: string[] | null = null, parsed: unknown = null) => {
      requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, body: parsed, scope, status, at: Date.now() });
      if (res.destroyed) return;
      const isProblem = status >= 400 && body && typeof body === 'object' && 'type' in body;
      res.writeHead(status, body === undefined ? {} : { 'content-type': isProblem ? 'application/problem+json' : 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    // The TLS layer already refused a client without a certificate this server trusts.
    if (!(req.socket as TLSSocket).authorized) return send(401, { error: 'client certificate required' });
    if (url.pathname === '/oauth/token' && req.method === 'POST') {
      const t = token(req, raw);
      return send(t.status, t.body);
    }
    if (!url.pathname.startsWith('/api/v2/')) return send(404, problem('NaoEncontrado', 404, 'Não encontrado').body);
    const path = url.pathname.slice('/api/v2'.length);
    let body: any;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        return send(400, problem('RequisicaoInvalida', 400, 'Requisição inválida', 'JSON inválido').body);
      }
    }
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const grant = tokens.get(bearer);
    if (!grant || grant.expires < Date.now()) return send(401, problem('AcessoNegado', 401, 'Não autorizado', 'token ausente, inválido ou expirado').body, null, body);
    // What a request meets is decided when it arrives: a slow request answered after its client gave
    // up must not take a misbehaviour queued for a later one.
    const delay = delays.shift();
    const revoked = unauthorized > 0;
    if (revoked) unauthorized -= 1;
    const failure = revoked ? undefined : failures.shift();
    if (delay) await new Promise((r) => setTimeout(r, delay));
    if (revoked) {
      tokens.delete(bearer);
      return send(401, problem('AcessoNegado', 401, 'Não autorizado', 'token revogado').body, grant.scopes, body);
    }
    if (failure) return send(failure, problem(failure === 504 ? 'IndisponibilidadePorTempoEsgotado' : failure === 503 ? 'ServicoIndisponivel' : 'ErroInternoDoServidor', failure, 'Falha', 'falha simulada').body, grant.scopes, body);
    const targeted = targetedFailures.findIndex((d) => d.method === req.method && (path === d.path || (d.path.endsWith('/') && path.startsWith(d.path))));
    if (targeted >= 0) {
      const [{ status }] = targetedFailures.splice(targeted, 1);
      return send(status, problem(status >= 500 ? 'ServicoIndisponivel' : 'OperacaoInvalida', status, 'Falha', 'falha simulada').body, grant.scopes, body);
    }
    const r = routes.find((x) => x.method === req.method && x.re.test(path));
    if (!r) return send(404, problem('NaoEncontrado', 404, 'Não encontrado').body, grant.scopes, body);
    if (!grant.scopes.includes(r.scope)) return send(403, problem('AcessoNegado', 403, 'Acesso negado', `escopo ${r.scope} necessário`).body, grant.scopes, body);
    if ((req.method === 'PUT' || req.method === 'PATCH') && !String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return send(400, problem('RequisicaoInvalida', 400, 'Requisição inválida', 'content-type deve ser application/json').body, grant.scopes, body);
    }
    const out = r.handle(path.match(r.re)!, body, url.searchParams);
    const drop = drops.findIndex((d) => d.method === req.method && path.startsWith(d.pathPrefix));
    if (drop >= 0 && out.status < 300) {
      // Done here, but the answer is lost: the connection is reset (logged with status 0).
      drops.splice(drop, 1);
      requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, body, scope: grant.scopes, status: 0, at: Date.now() });
      req.socket.destroy();
      return;
    }
    return send(out.status, out.body, grant.scopes, body);
  }

  /** POST {webhookUrl}/pix with the items (or a bare array). Returns the receiver's status. */
  function post(chave: string, items: unknown[], bare: boolean): Promise<number> {
    const hook = webhooks.get(chave);
    return hook ? postTo(hook.webhookUrl, 'pix', 'pix', items, bare) : Promise.resolve(0);
  }

  /** POST {webhookUrl}/{suffix} with `{ [list]: items }` (or a bare array). Returns the receiver's status. */
  async function postTo(webhookUrl: string, suffix: string, list: string, items: unknown[], bare: boolean): Promise<number> {
    const target = new URL(webhookUrl.replace(/\/+$/, '') + '/' + suffix);
    if (!isLoopback(target)) throw new Error('the fake PSP calls loopback addresses only');
    const payload = JSON.stringify(bare ? items : { [list]: items });
    const lib = target.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const r = lib.request(target, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      r.on('error', reject);
      r.end(payload);
    });
  }

  async function deliver(chave: string, items: unknown[], o: NotifyOptions = {}) {
    const mode = o.mode ?? 'normal';
    if (mode === 'none') return;
    await post(chave, items, mode === 'bare');
    if (mode === 'twice') await post(chave, items, false);
  }

  /** A rec or cobr notification, as the standard's callbacks carry it ({recs} / {cobsr}). */
  async function deliverRecurring(kind: 'rec' | 'cobr', items: unknown[], o: NotifyOptions = {}) {
    const hook = kind === 'rec' ? psp.recWebhook : psp.cobrWebhook;
    const mode = o.mode ?? 'normal';
    if (!hook || mode === 'none') return;
    const list = kind === 'rec' ? 'recs' : 'cobsr';
    await postTo(hook.webhookUrl, kind, list, items, mode === 'bare');
    if (mode === 'twice') await postTo(hook.webhookUrl, kind, list, items, false);
  }

  const recNotice = (r: RecRecord) => {
    const v = recView(r);
    return { idRec: v.idRec, status: v.status, atualizacao: v.atualizacao, ativacao: v.ativacao, ...(v.encerramento ? { encerramento: v.encerramento } : {}) };
  };
  const cobrNotice = (c: CobRRecord) => {
    const v = cobrView(c);
    return { idRec: v.idRec, txid: v.txid, status: v.status, atualizacao: v.atualizacao, tentativas: v.tentativas, ...(v.pix ? { pix: v.pix } : {}) };
  };

  await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve));
  port = (httpsServer.address() as AddressInfo).port;

  const psp: FakePsp = {
    apiUrl: `https://localhost:${port}/api/v2`,
    tokenUrl: `https://localhost:${port}/oauth/token`,
    caFile: server.certFile,
    clientCertFile: client.certFile,
    clientKeyFile: client.keyFile,
    clientId,
    clientSecret,
    keys,
    cobs,
    pix,
    webhooks,
    recs,
    cobrs,
    recWebhook: null,
    cobrWebhook: null,
    requests,
    tokensIssued: 0,
    grantable,
    calls: (method, prefix) => requests.filter((r) => r.method === method && r.path.startsWith(`/api/v2${prefix}`)),
    failNext(n, status) {
      for (let i = 0; i < n; i++) failures.push(status);
    },
    dropAnswer(method, pathPrefix) {
      drops.push({ method, pathPrefix });
    },
    failNextOn(method, path, status) {
      targetedFailures.push({ method, path, status });
    },
    unauthorizedOnce() {
      unauthorized += 1;
    },
    delayNext(n, ms) {
      for (let i = 0; i < n; i++) delays.push(ms);
    },
    async pay(txid, o = {}) {
      const c = cobs.get(txid);
      if (c?.status !== 'ATIVA') throw new Error(`fake PSP: no ATIVA charge ${txid}`);
      const at = o.horario ?? new Date();
      const due = c.kind === 'cobv' ? cobvAmountOn(c.body, spDay(at)) : cents(c.body.valor.original);
      if (due === null) throw new Error(`fake PSP: charge ${txid} is past its validadeAposVencimento`);
      const p: PixRecord = { endToEndId: newE2eid(at), txid, valor: o.valor ?? money(due), chave: c.body.chave, horario: at, devolucoes: [] };
      pix.set(p.endToEndId, p);
      c.pix.push(p.endToEndId);
      c.status = 'CONCLUIDA';
      await deliver(c.body.chave, [pixView(p)], o);
      return p;
    },
    async notify(items, o = {}) {
      const views = items.map((i) => ('endToEndId' in i && pix.has(String(i.endToEndId)) ? pixView(pix.get(String(i.endToEndId))!) : i));
      const chave = o.chave ?? [...keys][0];
      return post(chave, views, o.bare ?? false);
    },
    async forge(txid) {
      const c = cobs.get(txid);
      if (!c) throw new Error(`fake PSP: no charge ${txid}`);
      const e2eid = newE2eid(new Date());
      const status = await post(c.body.chave, [{ endToEndId: e2eid, txid, valor: c.body.valor.original, chave: c.body.chave, horario: new Date().toISOString() }], false);
      return { status, e2eid };
    },
    async answerRec(idRec, answer, o = {}) {
      const r = recs.get(idRec);
      if (!r) throw new Error(`fake PSP: no authorisation ${idRec}`);
      if (answer === 'CANCELADA' ? r.status !== 'CRIADA' && r.status !== 'APROVADA' : r.status !== 'CRIADA') throw new Error(`fake PSP: authorisation ${idRec} is ${r.status}`);
      r.status = answer;
      if (answer === 'REJEITADA') r.encerramento = { rejeicao: { codigo: 'AP13', descricao: 'Recusada pelo usuário pagador' } };
      if (answer === 'CANCELADA') {
        const solicitante = o.by ?? 'USUARIO_PAGADOR';
        r.encerramento = { cancelamento: { solicitante, codigo: o.codigo ?? 'ACCL', descricao: 'Cancelamento da recorrência' } };
        cancelCobrsOf(idRec, solicitante);
      }
      stamp(r.atualizacao, answer);
      await deliverRecurring('rec', [recNotice(r)], o);
      return r;
    },
    async debit(txid, o = {}) {
      const c = cobrs.get(txid);
      const t = c?.tentativas.at(-1);
      if (c?.status !== 'ATIVA' || t?.status !== 'AGENDADA') throw new Error(`fake PSP: no scheduled debit for ${txid}`);
      const at = new Date();
      const p: PixRecord = { endToEndId: t.endToEndId, txid, valor: c.body.valor.original, chave: [...keys][0], horario: at, devolucoes: [] };
      pix.set(p.endToEndId, p);
      c.pix.push(p.endToEndId);
      t.status = 'PAGA';
      stamp(t.atualizacao, 'PAGA');
      c.status = 'CONCLUIDA';
      stamp(c.atualizacao, 'CONCLUIDA');
      await deliverRecurring('cobr', [cobrNotice(c)], o);
      return p;
    },
    async failAttempt(txid, codigo, o = {}) {
      const c = cobrs.get(txid);
      const t = c?.tentativas.at(-1);
      if (c?.status !== 'ATIVA' || t?.status !== 'AGENDADA') throw new Error(`fake PSP: no scheduled debit for ${txid}`);
      if (codigo !== undefined && !ATTEMPT_CODES.includes(codigo)) throw new Error(`fake PSP: ${codigo} is not a rejection code of the standard`);
      t.status = codigo ? 'REJEITADA' : 'EXPIRADA';
      if (codigo) t.rejeicao = { codigo, descricao: 'Tentativa rejeitada pelo PSP pagador' };
      stamp(t.atualizacao, t.status);
      // These codes reject the whole charge (the standard's CobRTentativas.rejeicao).
      if (codigo && ['AC05', 'AM09', 'DENC', 'DS27', 'DTED', 'MIDI', 'MSUC', 'NITX', 'RC09'].includes(codigo)) {
        c.status = 'REJEITADA';
        c.encerramento = { rejeicao: { codigo, descricao: 'Cobrança rejeitada' } };
        stamp(c.atualizacao, 'REJEITADA');
      }
      await deliverRecurring('cobr', [cobrNotice(c)], o);
      return c;
    },
    async notifyRecurring(kind, items, o = {}) {
      const hook = kind === 'rec' ? psp.recWebhook : psp.cobrWebhook;
      return hook ? postTo(hook.webhookUrl, kind, kind === 'rec' ? 'recs' : 'cobsr', items, o.bare ?? false) : 0;
    },
    async finishRefunds(status, o = {}) {
      for (const p of pix.values()) {
        const open = p.devolucoes.filter((d) => d.status === 'EM_PROCESSAMENTO');
        if (!open.length) continue;
        for (const d of open) {
          d.status = status;
          d.liquidacao = status === 'DEVOLVIDO' ? new Date() : undefined;
          if (status === 'NAO_REALIZADO') d.motivo = 'Conta do pagador encerrada';
        }
        await deliver(p.chave, [pixView(p)], o);
      }
    },
    async close() {
      httpsServer.closeAllConnections();
      await new Promise<void>((resolve) => httpsServer.close(() => resolve()));
      rmSync(server.dir, { recursive: true, force: true });
      rmSync(client.dir, { recursive: true, force: true });
    },
  };
  return psp;
}

export { cents as pspCents, money as pspMoney };
