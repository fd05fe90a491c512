// A fake Banco Inter, API Cobrança (Boleto com Pix) v3, for the boleto tests. Written from Inter's
// public reference (developers.inter.co: "API Cobrança v3" — Emitir cobrança, Recuperar cobrança,
// Recuperar coleção de cobranças, Cancelar cobrança, Recuperar cobrança em PDF, Criar/Editar
// webhook, Callback; "Autenticação": POST /oauth/v2/token, form-encoded client_id, client_secret,
// grant_type=client_credentials and scope, over mTLS, scopes boleto-cobranca.read and
// boleto-cobranca.write; the `x-conta-corrente` header) and the public clients that follow it.
// Issuing is asynchronous as Inter's is: a charge is EM_PROCESSAMENTO, without numbers, until
// `issueDelayMs` passed, then A_RECEBER with a FEBRABAN barcode (bank 077) and a Pix code.
// A repeat (same seuNumero, amount, due date and payer within 30 minutes) is refused, as Inter's
// reference says; another charge under a seuNumero already used is taken (counted in
// `issuedBySeuNumero`, so tests can prove it never happens). Not confirmed, so the fake's own
// choices: the list's `seuNumero` filter; the exact words of refusals. HTTPS on 127.0.0.1 requiring the client
// certificate; misbehaviour on demand (500s, slow answers, an answer lost after the work was done).
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { buildBoleto } from '../../src/payments/boleto.ts';
import { buildBrCode } from '../../src/payments/pix.ts';
import { makeCertificate } from '../webhook-receiver.ts';
import { chargeViolations, spToday, type Violation } from './rules.ts';

export const INTER_SCOPES = ['boleto-cobranca.read', 'boleto-cobranca.write'];

export interface FakeCharge {
  codigoSolicitacao: string;
  seuNumero: string;
  request: Record<string, any>;
  situacao: string;
  dataEmissao: string;
  dataSituacao: string;
  readyAt: number;
  createdAt: number;
  boleto: { nossoNumero: string; codigoBarras: string; linhaDigitavel: string } | null;
  pix: { txid: string; pixCopiaECola: string } | null;
  valorTotalRecebido?: number;
  origemRecebimento?: 'BOLETO' | 'PIX';
}

export interface Logged {
  method: string;
  path: string;
  headers: Record<string, unknown>;
  body: unknown;
  status: number;
}

export interface FakeInter {
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  account: string;
  clientCertFile: string;
  clientKeyFile: string;
  caFile: string;
  charges: Map<string, FakeCharge>;
  requests: Logged[];
  /** Requests that broke a rule of Inter's API (a correct client makes none). */
  violations: Array<{ path: string; violacoes: Violation[] }>;
  issuedBySeuNumero: Map<string, number>;
  webhookUrl: string | null;
  behaviour: { issueDelayMs: number; latencyMs: number; fail500: number; loseNext: number };
  /** The payer pays (its barcode or its Pix), for `cents` (default: the charge's). */
  pay(codigoSolicitacao: string, how: 'BOLETO' | 'PIX', cents?: number): void;
  /** The charge as Inter's callback posts it (one item of the array). */
  callbackItem(codigoSolicitacao: string): Record<string, unknown>;
  /** The charge issued for one of our seuNumeros. */
  bySeuNumero(seuNumero: string): FakeCharge | undefined;
  close(): Promise<void>;
}

type Answer = { status: number; body?: unknown };
type Tokens = Map<string, { scopes: string[]; expires: number }>;
const problem = (status: number, title: string, violacoes: Violation[] = []): Answer => ({ status, body: { title, detail: title, timestamp: new Date().toISOString(), violacoes } });

export async function startFakeInter(opts: { issueDelayMs?: number; latencyMs?: number } = {}): Promise<FakeInter> {
  const serverCert = makeCertificate();
  const client = makeCertificate();
  const tokens: Tokens = new Map();
  const fake: FakeInter = {
    apiUrl: '',
    clientId: `inter-client-${randomBytes(6).toString('hex')}`,
    clientSecret: `inter-secret-${randomBytes(16).toString('hex')}`,
    account: '12345678',
    clientCertFile: client.certFile,
    clientKeyFile: client.keyFile,
    caFile: serverCert.certFile,
    charges: new Map(),
    requests: [],
    violations: [],
    issuedBySeuNumero: new Map(),
    webhookUrl: null,
    behaviour: { issueDelayMs: opts.issueDelayMs ?? 0, latencyMs: opts.latencyMs ?? 0, fail500: 0, loseNext: 0 },
    pay(id, how, cents) {
      const c = view(fake, fake.charges.get(id)!);
      Object.assign(c, { situacao: 'RECEBIDO', dataSituacao: spToday(), valorTotalRecebido: cents !== undefined ? cents / 100 : c.request.valorNominal, origemRecebimento: how });
    },
    callbackItem(id) {
      const c = view(fake, fake.charges.get(id)!);
      return { codigoSolicitacao: c.codigoSolicitacao, seuNumero: c.seuNumero, situacao: c.situacao, dataHoraSituacao: new Date().toISOString(), valorTotalRecebido: c.valorTotalRecebido, origemRecebimento: c.origemRecebimento, ...c.boleto, ...c.pix };
    },
    bySeuNumero: (seu) => [...fake.charges.values()].find((c) => c.seuNumero === seu),
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      for (const d of [serverCert.dir, client.dir]) rmSync(d, { recursive: true, force: true });
    },
  };

  const server = https.createServer({ key: readFileSync(serverCert.keyFile), cert: readFileSync(serverCert.certFile), ca: readFileSync(client.certFile), requestCert: true, rejectUnauthorized: true }, (req, res) => serve(fake, tokens, req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.apiUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** A charge as it stands now: numbers once the issuing time passed. */
function view(fake: FakeInter, c: FakeCharge): FakeCharge {
  if (c.situacao === 'EM_PROCESSAMENTO' && Date.now() >= c.readyAt) {
    const cents = Math.round(c.request.valorNominal * 100);
    const nossoNumero = String(10_000_000 + fake.charges.size).padStart(11, '0');
    const b = buildBoleto({ bankCode: '077', dueDate: c.request.dataVencimento, amountCents: cents, freeField: `0001112${nossoNumero}0000000`.slice(0, 25) });
    const txid = c.codigoSolicitacao.replace(/-/g, '').slice(0, 32);
    c.boleto = { nossoNumero, codigoBarras: b.barcode, linhaDigitavel: b.digitableLine };
    c.pix = { txid, pixCopiaECola: buildBrCode({ pixKey: randomUUID(), merchantName: 'COFRE', merchantCity: 'SAO PAULO', amountCents: cents, txid: txid.slice(0, 25) }) };
    c.situacao = 'A_RECEBER';
    c.dataSituacao = spToday();
  }
  return c;
}
const asInter = (c: FakeCharge) => ({
  cobranca: { codigoSolicitacao: c.codigoSolicitacao, seuNumero: c.seuNumero, dataEmissao: c.dataEmissao, dataVencimento: c.request.dataVencimento, valorNominal: c.request.valorNominal, situacao: c.situacao, dataSituacao: c.dataSituacao, valorTotalRecebido: c.valorTotalRecebido, origemRecebimento: c.origemRecebimento, pagador: c.request.pagador },
  ...(c.boleto ? { boleto: c.boleto } : {}),
  ...(c.pix ? { pix: c.pix } : {}),
});

function token(fake: FakeInter, tokens: Tokens, raw: string): Answer {
  const f = new URLSearchParams(raw);
  if (f.get('client_id') !== fake.clientId || f.get('client_secret') !== fake.clientSecret || f.get('grant_type') !== 'client_credentials') return problem(401, 'Credenciais inválidas');
  const scopes = (f.get('scope') ?? '').split(' ').filter(Boolean);
  if (!scopes.length || scopes.some((s) => !INTER_SCOPES.includes(s))) return problem(400, 'Escopo inválido');
  const value = randomBytes(16).toString('hex');
  tokens.set(value, { scopes, expires: Date.now() + 3600_000 });
  return { status: 200, body: { access_token: value, token_type: 'Bearer', expires_in: 3600, scope: scopes.join(' ') } };
}

function api(fake: FakeInter, method: string, url: URL, body: unknown, scopes: string[]): Answer {
  const path = url.pathname;
  const need = method === 'GET' ? 'boleto-cobranca.read' : 'boleto-cobranca.write';
  if (!scopes.includes(need)) return problem(403, `Escopo ${need} necessário`);
  if (method === 'PUT' && path === '/cobranca/v3/cobrancas/webhook') {
    const u = (body as { webhookUrl?: unknown })?.webhookUrl;
    if (typeof u !== 'string' || !u.startsWith('https://')) return problem(400, 'webhookUrl deve ser https', [{ propriedade: 'webhookUrl', razao: 'https' }]);
    fake.webhookUrl = u;
    return { status: 204 };
  }
  if (method === 'POST' && path === '/cobranca/v3/cobrancas') return issue(fake, body);
  if (method === 'GET' && path === '/cobranca/v3/cobrancas') return list(fake, url.searchParams);
  const m = /^\/cobranca\/v3\/cobrancas\/([\w-]+)(\/cancelar|\/pdf)?$/.exec(path);
  const c = m && fake.charges.get(m[1]);
  if (!c) return problem(404, 'Cobrança não encontrada');
  view(fake, c);
  if (method === 'GET' && !m[2]) return { status: 200, body: asInter(c) };
  if (method === 'GET' && m[2] === '/pdf') return c.boleto ? { status: 200, body: { pdf: Buffer.from(`%PDF-1.4\n% boleto ${c.seuNumero} ${c.boleto.linhaDigitavel}\n%%EOF\n`).toString('base64') } } : problem(400, 'Cobrança em processamento');
  if (method === 'POST' && m[2] === '/cancelar') {
    const motivo = (body as { motivoCancelamento?: unknown })?.motivoCancelamento;
    if (typeof motivo !== 'string' || !motivo || motivo.length > 50) return problem(400, 'motivoCancelamento obrigatório', [{ propriedade: 'motivoCancelamento', razao: 'obrigatório' }]);
    if (!['A_RECEBER', 'ATRASADO', 'EM_PROCESSAMENTO'].includes(c.situacao)) return problem(400, `Cobrança ${c.situacao} não pode ser cancelada`);
    Object.assign(c, { situacao: 'CANCELADO', dataSituacao: spToday() });
    return { status: 202 };
  }
  return problem(405, 'Método não permitido');
}

function issue(fake: FakeInter, body: unknown): Answer {
  const violacoes = chargeViolations(body);
  if (violacoes.length) {
    fake.violations.push({ path: '/cobranca/v3/cobrancas', violacoes });
    return problem(400, 'Requisição inválida', violacoes);
  }
  const request = body as Record<string, any>;
  // Inter refuses a repeat: the same seuNumero, amount, due date and payer within 30 minutes.
  const same = (c: FakeCharge) => c.seuNumero === request.seuNumero && c.request.valorNominal === request.valorNominal && c.request.dataVencimento === request.dataVencimento && c.request.pagador.cpfCnpj === request.pagador.cpfCnpj;
  if ([...fake.charges.values()].some((c) => same(c) && Date.now() - c.createdAt < 30 * 60_000)) return problem(400, 'Cobrança duplicada: aguarde 30 minutos', [{ propriedade: 'seuNumero', razao: 'cobrança idêntica emitida há menos de 30 minutos' }]);
  const codigoSolicitacao = randomUUID();
  fake.issuedBySeuNumero.set(request.seuNumero, (fake.issuedBySeuNumero.get(request.seuNumero) ?? 0) + 1);
  fake.charges.set(codigoSolicitacao, { codigoSolicitacao, seuNumero: request.seuNumero, request, situacao: 'EM_PROCESSAMENTO', dataEmissao: spToday(), dataSituacao: spToday(), readyAt: Date.now() + fake.behaviour.issueDelayMs, createdAt: Date.now(), boleto: null, pix: null });
  return { status: 200, body: { codigoSolicitacao } };
}

function list(fake: FakeInter, q: URLSearchParams): Answer {
  const from = q.get('dataInicial');
  const to = q.get('dataFinal');
  const by = q.get('filtrarDataPor') ?? 'VENCIMENTO';
  if (!from || !to || !/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to)) return problem(400, 'dataInicial e dataFinal obrigatórias', [{ propriedade: 'dataInicial', razao: 'YYYY-MM-DD' }]);
  const size = Number(q.get('paginacao.itensPorPagina') ?? 100);
  const page = Number(q.get('paginacao.paginaAtual') ?? 0);
  const day = (c: FakeCharge) => (by === 'EMISSAO' ? c.dataEmissao : by === 'PAGAMENTO' ? (c.situacao === 'RECEBIDO' ? c.dataSituacao : null) : c.request.dataVencimento);
  const all = [...fake.charges.values()].map((c) => view(fake, c)).filter((c) => {
    const d = day(c);
    return d !== null && d >= from && d <= to && (!q.get('seuNumero') || c.seuNumero === q.get('seuNumero')) && (!q.get('situacao') || c.situacao === q.get('situacao'));
  });
  const pages = Math.max(1, Math.ceil(all.length / size));
  const slice = all.slice(page * size, (page + 1) * size);
  return { status: 200, body: { totalPaginas: pages, totalElementos: all.length, ultimaPagina: page + 1 >= pages, primeiraPagina: page === 0, tamanhoPagina: size, numeroDeElementos: slice.length, cobrancas: slice.map(asInter) } };
}

function serve(fake: FakeInter, tokens: Tokens, req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    let body: unknown = null;
    try {
      body = raw && url.pathname !== '/oauth/v2/token' ? JSON.parse(raw) : null;
    } catch {
      body = null;
    }
    let answer: Answer;
    if (!(req.socket as TLSSocket).authorized) answer = problem(401, 'Certificado do cliente obrigatório');
    else if (url.pathname === '/oauth/v2/token' && req.method === 'POST') answer = token(fake, tokens, raw);
    else {
      const t = tokens.get(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!t || t.expires < Date.now()) answer = problem(401, 'Token inválido');
      else if (req.headers['x-conta-corrente'] !== fake.account) answer = problem(400, 'x-conta-corrente inválido');
      else if (fake.behaviour.fail500 > 0) {
        fake.behaviour.fail500 -= 1;
        answer = problem(500, 'Erro interno (falha simulada)');
      } else answer = api(fake, req.method ?? 'GET', url, body, t.scopes);
    }
    const lose = url.pathname !== '/oauth/v2/token' && fake.behaviour.loseNext > 0 && answer.status < 300;
    if (lose) fake.behaviour.loseNext -= 1;
    fake.requests.push({ method: req.method ?? '', path: url.pathname + url.search, headers: req.headers, body, status: lose ? 0 : answer.status });
    setTimeout(() => {
      if (lose) {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, answer.body === undefined ? {} : { 'content-type': 'application/json' });
      res.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
    }, fake.behaviour.latencyMs);
  });
}

/** The settings that point a Cofre at a fake Inter. */
export function interEnv(f: FakeInter): Record<string, string> {
  return { BOLETO_PROVIDER: 'inter', INTER_API_URL: f.apiUrl, INTER_CLIENT_ID: f.clientId, INTER_CLIENT_SECRET: f.clientSecret, INTER_CERT_FILE: f.clientCertFile, INTER_KEY_FILE: f.clientKeyFile, INTER_CA_FILE: f.caFile, INTER_ACCOUNT: f.account };
}
