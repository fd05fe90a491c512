// The fake PSP's PIX routes: cob and cobv (created, revised, removed), pix (one, or a period's),
// devolução, and the pix webhook of a key.
import { randomBytes, randomUUID } from 'node:crypto';
import { cents, checkDevedor, checkModalidade, DATE, DAY_MS, DEVOLUCAO_ID, dynamicBrCode, E2EID, ISPB, isLoopback, MONEY, problem, TXID } from './standard.ts';
import type { AddRoute, Cob, Devolucao, PspState, Violation } from './types.ts';
import { cobView, pixView } from './views.ts';

/** Registers the PIX routes, in the order they are matched. */
export function pixRoutes(s: PspState, route: AddRoute): void {
  const { cobs, pix, webhooks, keys } = s;
  route('PUT', /^\/cob\/([^/]+)$/, 'cob.write', (m, body) => putCob(s, 'cob', m[1], body));
  route('PATCH', /^\/cob\/([^/]+)$/, 'cob.write', (m, body) => patchCob(s, 'cob', m[1], body));
  route('GET', /^\/cob\/([^/]+)$/, 'cob.read', (m) => {
    const c = cobs.get(m[1]);
    return c && c.kind === 'cob' ? { status: 200, body: cobView(s, c) } : problem('CobNaoEncontrado', 404, 'Cobrança não encontrada');
  });
  route('PUT', /^\/cobv\/([^/]+)$/, 'cobv.write', (m, body) => putCob(s, 'cobv', m[1], body));
  route('PATCH', /^\/cobv\/([^/]+)$/, 'cobv.write', (m, body) => patchCob(s, 'cobv', m[1], body));
  route('GET', /^\/cobv\/([^/]+)$/, 'cobv.read', (m) => {
    const c = cobs.get(m[1]);
    return c && c.kind === 'cobv' ? { status: 200, body: cobView(s, c) } : problem('CobVNaoEncontrada', 404, 'Cobrança não encontrada');
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
}

/** cob / cobv creation and revision rules (PUT creates or alters an ATIVA one; PATCH revises). */
function putCob(s: PspState, kind: 'cob' | 'cobv', txid: string, body: any): { status: number; body?: unknown } {
  const { cobs, keys } = s;
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
    return { status: 201, body: cobView(s, existing) };
  }
  const location = `localhost:${s.port}/qr/v2/${kind === 'cobv' ? 'cobv/' : ''}${randomUUID().replace(/-/g, '')}`;
  const c: Cob = { kind, txid, revisao: 0, status: 'ATIVA', criacao: now, body, location, pixCopiaECola: dynamicBrCode(location), pix: [] };
  cobs.set(txid, c);
  s.locId += 1;
  return { status: 201, body: cobView(s, c) };
}

function patchCob(s: PspState, kind: 'cob' | 'cobv', txid: string, body: any): { status: number; body?: unknown } {
  const type = kind === 'cob' ? 'Cob' : 'CobV';
  const c = s.cobs.get(txid);
  if (!c || c.kind !== kind) return problem(`${type}NaoEncontrado`, 404, 'Cobrança não encontrada', 'Cobrança não encontrada para o txid informado.');
  if (c.status !== 'ATIVA') return problem(`${type}OperacaoInvalida`, 400, 'Cobrança inválida', 'A cobrança não está ATIVA, e a presente requisição busca alterá-la.');
  if (body?.status !== undefined) {
    if (body.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR') return problem(`${type}OperacaoInvalida`, 400, 'Cobrança inválida', 'o campo cob.status não respeita o schema', [{ razao: 'status inválido', propriedade: `${kind}.status` }]);
    if (Object.keys(body).length > 1) return problem(`${type}OperacaoInvalida`, 400, 'Cobrança inválida', 'remoção junto com outras alterações');
    c.status = 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
    c.revisao += 1;
    return { status: 200, body: cobView(s, c) };
  }
  c.body = { ...c.body, ...body };
  c.revisao += 1;
  return { status: 200, body: cobView(s, c) };
}
