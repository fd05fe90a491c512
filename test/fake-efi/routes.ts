// The fake Efí's API: the send (PUT /v3/gn/pix/:idEnvio), its lookup by idEnvio, the balance, and
// the paying key's webhook. Every request is checked against Efí's documented rules (server.ts
// cites the pages); a request that breaks one is refused (json_invalido, as Efí names a body of
// wrong fields) and kept in `violations`.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { isLoopback, postTo, type Route } from './transport.ts';
import type { Answer, EfiState, Sent } from './types.ts';

const ID_ENVIO = /^[a-zA-Z0-9]{1,35}$/;
const VALOR = /^\d{1,10}\.\d{2}$/;

export const toCents = (valor: string) => Math.round(Number(valor) * 100);
export const money = (cents: number) => `${Math.floor(cents / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/** A body that breaks the documented schema: json_invalido with the path that broke it. */
const invalid = (caminho: string, mensagem: string): Answer => ({ status: 400, body: { nome: 'json_invalido', mensagem: 'Valores ou tipos de campo inválidos', erros: [{ caminho, mensagem }] }, broken: true });

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const only = (o: Record<string, unknown>, keys: string[]) => Object.keys(o).find((k) => !keys.includes(k));

/** favorecido.contaBanco: nome (< 200), cpf ^[0-9]{11}$ or cnpj ^[0-9]{14}$, codigoBanco (ISPB) ^[0-9]{8}$, agencia ^[0-9]{1,4}$, conta ^[0-9]+, tipoConta cacc | svgs. */
function contaBancoProblem(c: unknown): Answer | null {
  if (!isObject(c)) return invalid('.body.favorecido.contaBanco', 'deve ser um objeto');
  const extra = only(c, ['nome', 'cpf', 'cnpj', 'codigoBanco', 'agencia', 'conta', 'tipoConta']);
  if (extra) return invalid(`.body.favorecido.contaBanco.${extra}`, 'propriedade não permitida');
  if (typeof c.nome !== 'string' || !c.nome.trim() || c.nome.length >= 200) return invalid('.body.favorecido.contaBanco.nome', 'obrigatório, menos de 200 caracteres');
  const cpf = typeof c.cpf === 'string' && /^[0-9]{11}$/.test(c.cpf);
  const cnpj = typeof c.cnpj === 'string' && /^[0-9]{14}$/.test(c.cnpj);
  if (cpf === cnpj || (c.cpf !== undefined && !cpf) || (c.cnpj !== undefined && !cnpj)) return invalid('.body.favorecido.contaBanco', 'cpf (11 dígitos) ou cnpj (14 dígitos)');
  if (typeof c.codigoBanco !== 'string' || !/^[0-9]{8}$/.test(c.codigoBanco)) return invalid('.body.favorecido.contaBanco.codigoBanco', 'ISPB de 8 dígitos');
  if (typeof c.agencia !== 'string' || !/^[0-9]{1,4}$/.test(c.agencia)) return invalid('.body.favorecido.contaBanco.agencia', 'até 4 dígitos, sem o dígito verificador');
  if (typeof c.conta !== 'string' || !/^[0-9]+$/.test(c.conta)) return invalid('.body.favorecido.contaBanco.conta', 'dígitos, com o dígito verificador');
  if (c.tipoConta !== 'cacc' && c.tipoConta !== 'svgs') return invalid('.body.favorecido.contaBanco.tipoConta', 'cacc ou svgs');
  return null;
}

/** The send's body: valor, pagador { chave, infoPagador? }, favorecido { chave [, cpf | cnpj] } or { contaBanco }. */
export function sendProblem(s: EfiState, body: unknown): Answer | null {
  if (!isObject(body)) return invalid('.body', 'deve ser um objeto');
  const extra = only(body, ['valor', 'pagador', 'favorecido']);
  if (extra) return invalid(`.body.${extra}`, 'propriedade não permitida');
  if (typeof body.valor !== 'string' || !VALOR.test(body.valor) || toCents(body.valor) <= 0) return invalid('.body.valor', 'string \\d{1,10}\\.\\d{2}, maior que zero');
  const p = body.pagador;
  if (!isObject(p) || only(p, ['chave', 'infoPagador']) || typeof p.chave !== 'string' || p.chave.length > 77) return invalid('.body.pagador', '{ chave (≤ 77), infoPagador? }');
  if (p.infoPagador !== undefined && (typeof p.infoPagador !== 'string' || p.infoPagador.length > 140)) return invalid('.body.pagador.infoPagador', 'string de até 140 caracteres');
  // Efí: the paying key must be one of the authenticated account's (chave_invalida, Efí's word).
  if (p.chave !== s.payingKey) return { status: 400, body: { nome: 'chave_invalida', mensagem: 'A chave informada não faz referência à conta autenticada' }, broken: true };
  const f = body.favorecido;
  if (!isObject(f) || only(f, ['chave', 'contaBanco', 'cpf', 'cnpj'])) return invalid('.body.favorecido', '{ chave } ou { contaBanco }');
  if ((f.chave === undefined) === (f.contaBanco === undefined)) return invalid('.body.favorecido', 'exatamente um de chave e contaBanco');
  if (f.contaBanco !== undefined) return f.cpf !== undefined || f.cnpj !== undefined ? invalid('.body.favorecido', 'cpf/cnpj acompanham a chave') : contaBancoProblem(f.contaBanco);
  if (typeof f.chave !== 'string' || !f.chave || f.chave.length > 77) return invalid('.body.favorecido.chave', 'chave DICT de até 77 caracteres');
  return null;
}

/** An e2eId of Efí's form: E + its ISPB 09089356 + yyyyMMddHHmm + "API" + 8 characters. */
function e2eId(): string {
  const d = new Date().toISOString().replace(/\D/g, '').slice(0, 12);
  return `E09089356${d}API${randomBytes(4).toString('hex')}`;
}

const sentView = (s: EfiState, p: Sent) => ({
  endToEndId: p.e2eId,
  idEnvio: p.idEnvio,
  valor: p.valor,
  chave: s.payingKey,
  status: p.status,
  ...(p.infoPagador ? { infoPagador: p.infoPagador } : {}),
  horario: { solicitacao: p.solicitacao, ...(p.liquidacao ? { liquidacao: p.liquidacao } : {}) },
  favorecido: p.favorecido.chave ? { chave: p.favorecido.chave } : { contaBanco: { nome: p.favorecido.contaBanco?.nome, agencia: p.favorecido.contaBanco?.agencia, conta: p.favorecido.contaBanco?.conta } },
});

/** PUT /v3/gn/pix/:idEnvio: checked, deduplicated by idEnvio, refused for the business' reasons, or sent (EM_PROCESSAMENTO). */
function send(s: EfiState, idEnvio: string, body: unknown, settle: (p: Sent) => void): Answer {
  if (!ID_ENVIO.test(idEnvio)) return invalid('.params.idEnvio', 'deve corresponder a ^[a-zA-Z0-9]{1,35}$');
  const problem = sendProblem(s, body);
  if (problem) return problem;
  const b = body as { valor: string; pagador: { infoPagador?: string }; favorecido: Sent['favorecido'] };
  // Efí sends nothing from a key without a webhook (the fake's words for it).
  if (!s.webhooks.has(s.payingKey)) return { status: 400, body: { nome: 'webhook_nao_cadastrado', mensagem: 'A chave do pagador não tem webhook associado' }, broken: true };
  // The same idEnvio never sends twice (the fake's words for the 409).
  if (s.sends.has(idEnvio)) return { status: 409, body: { nome: 'id_envio_duplicado', mensagem: 'O idEnvio informado já foi utilizado' } };
  const key = b.favorecido.chave;
  const conta = b.favorecido.contaBanco?.conta;
  const refusal = key ? s.behaviour.refuseKeys.get(key) : conta ? s.behaviour.refuseAccounts.get(conta) : undefined;
  if (refusal) return { status: 400, body: refusal };
  const cents = toCents(b.valor);
  if (cents > s.balanceCents) return { status: 400, body: s.behaviour.fundsRefusal };
  s.balanceCents -= cents;
  const p: Sent = { idEnvio, e2eId: e2eId(), valor: b.valor, cents, favorecido: b.favorecido, ...(b.pagador.infoPagador ? { infoPagador: b.pagador.infoPagador } : {}), status: 'EM_PROCESSAMENTO', solicitacao: new Date().toISOString(), debits: 1 };
  s.sends.set(idEnvio, p);
  settle(p);
  return { status: 201, body: { idEnvio, e2eId: p.e2eId, valor: p.valor, horario: { solicitacao: p.solicitacao }, status: p.status } };
}

/** PUT /v2/webhook/:chave: { webhookUrl }, https (loopback http allowed for the tests), x-skip-mtls-checking, the URL answering 2xx. */
async function registerWebhook(s: EfiState, chave: string, body: unknown, req: http.IncomingMessage): Promise<Answer> {
  if (!isObject(body) || only(body, ['webhookUrl']) || typeof body.webhookUrl !== 'string') return invalid('.body', '{ webhookUrl }');
  if (chave !== s.payingKey) return { status: 400, body: { nome: 'chave_invalida', mensagem: 'A chave informada não faz referência à conta autenticada' }, broken: true };
  let url: URL;
  try {
    url = new URL(body.webhookUrl);
  } catch {
    return { status: 400, body: { nome: 'valor_invalido', mensagem: 'URL inválida' }, broken: true };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url))) return { status: 400, body: { nome: 'valor_invalido', mensagem: 'A URL do webhook deve usar o protocolo HTTPS' }, broken: true };
  // Without the header Efí checks that the URL demands its client certificate; a gateway behind a TLS terminator cannot.
  const skipMtls = req.headers['x-skip-mtls-checking'] === 'true';
  if (!skipMtls) return { status: 400, body: { nome: 'webhook_invalido', mensagem: 'A autenticação de TLS mútuo não está configurada na URL informada' }, broken: true };
  if (s.behaviour.pingOnRegister) {
    const status = await postTo(body.webhookUrl, {});
    if (status === 0) return { status: 400, body: { nome: 'webhook_invalido', mensagem: 'A URL informada está inacessível' } };
    if (status < 200 || status >= 300) return { status: 400, body: { nome: 'webhook_invalido', mensagem: `A URL informada respondeu com o código HTTP ${status}` } };
  }
  s.webhooks.set(chave, { webhookUrl: body.webhookUrl, skipMtls, criacao: new Date().toISOString() });
  return { status: 200, body: { webhookUrl: body.webhookUrl } };
}

export function efiRoutes(s: EfiState, settle: (p: Sent) => void): Route[] {
  return [
    { method: 'PUT', re: /^\/v3\/gn\/pix\/([^/]+)$/, scope: 'pix.send', handle: (m, body) => send(s, decodeURIComponent(m[1]), body, settle) },
    {
      method: 'GET',
      re: /^\/v2\/gn\/pix\/enviados\/id-envio\/([^/]+)$/,
      scope: 'gn.pix.send.read',
      handle: (m) => {
        const p = s.sends.get(decodeURIComponent(m[1]));
        if (p) return { status: 200, body: sentView(s, p) };
        return { status: 404, body: { type: 'https://pix.bcb.gov.br/api/v2/error/PixEnviadoNaoEncontrado', title: 'Não Encontrado', status: 404, detail: 'Pix enviado não encontrado para o idEnvio informado.' } };
      },
    },
    { method: 'GET', re: /^\/v2\/gn\/saldo\/?$/, scope: 'gn.balance.read', handle: () => ({ status: 200, body: { saldo: money(s.balanceCents) } }) },
    { method: 'PUT', re: /^\/v2\/webhook\/([^/]+)$/, scope: 'webhook.write', handle: (m, body, req) => registerWebhook(s, decodeURIComponent(m[1]), body, req) },
    {
      method: 'GET',
      re: /^\/v2\/webhook\/([^/]+)$/,
      scope: 'webhook.read',
      handle: (m) => {
        const chave = decodeURIComponent(m[1]);
        const hook = s.webhooks.get(chave);
        return hook ? { status: 200, body: { webhookUrl: hook.webhookUrl, chave, criacao: hook.criacao } } : { status: 404, body: { nome: 'webhook_nao_encontrado', mensagem: 'Webhook não encontrado para a chave informada' } };
      },
    },
  ];
}
