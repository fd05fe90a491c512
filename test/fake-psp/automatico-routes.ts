// The fake PSP's Pix Automático routes: locrec, rec (the authorisation; journey 3 with a cob),
// cobr (recurring charges) and their retentativas, and the webhookrec and webhookcobr registrations.
import { randomBytes, randomUUID } from 'node:crypto';
import { addDays, cents, CNPJ, CPF, DAY_MS, ISPB, isLoopback, MONEY, newE2eid, PERIODICIDADES, problem, REC_ID, stamp, TIPOS_CONTA, today, TXID, validDate } from './standard.ts';
import type { AddRoute, Answer, CobRRecord, LocRec, PspState, RecRecord, Tentativa, Violation } from './types.ts';
import { cobrView, recView } from './views.ts';

/** Registers locrec and rec. */
export function recRoutes(s: PspState, route: AddRoute): void {
  const { cobs, recs, locrecs } = s;
  route('POST', /^\/locrec$/, 'payloadlocationrec.write', () => {
    s.locRecId += 1;
    const l = { id: s.locRecId, location: `localhost:${s.port}/qr/v2/rec/${randomUUID().replace(/-/g, '')}`, criacao: new Date(), idRec: null };
    locrecs.set(l.id, l);
    return { status: 201, body: { id: l.id, location: l.location, criacao: l.criacao.toISOString() } };
  });
  route('GET', /^\/locrec\/(\d+)$/, 'payloadlocationrec.read', (m) => {
    const l = locrecs.get(Number(m[1]));
    return l ? { status: 200, body: { id: l.id, location: l.location, criacao: l.criacao.toISOString(), ...(l.idRec ? { idRec: l.idRec } : {}) } } : problem('NaoEncontrado', 404, 'Location não encontrada');
  });

  route('POST', /^\/rec$/, 'rec.write', (_m, body) => createRec(s, body));
  route('GET', /^\/rec\/([^/]+)$/, 'rec.read', (m, _b, q) => {
    const r = recs.get(m[1]);
    if (!r) return problem('RecNaoEncontrada', 404, 'Recorrência não encontrada', 'Recorrência não encontrada para o idRec informado.');
    const txid = q.get('txid');
    if (txid !== null) {
      const c = cobs.get(txid);
      if (c?.kind !== 'cob') return problem('RecConsultaInvalida', 400, 'Consulta inválida', 'o parâmetro txid não corresponde a uma cobrança compatível com a JORNADA_3');
      if (r.body.ativacao?.dadosJornada?.txid !== txid) return problem('RecConsultaInvalida', 400, 'Consulta inválida', 'o parâmetro txid corresponde a uma cobrança imediata diferente da informada em ativacao.dadosJornada.txid');
    }
    return { status: 200, body: recView(s, r, txid ?? undefined) };
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
      cancelCobrsOf(s, r.idRec, 'USUARIO_RECEBEDOR');
    }
    return { status: 200, body: recView(s, r) };
  });
}

/** Registers cobr and its retentativas. */
export function cobrRoutes(s: PspState, route: AddRoute): void {
  const { recs, cobrs } = s;
  route('PUT', /^\/cobr\/([^/]+)$/, 'cobr.write', (m, body) => putCobr(s, m[1], body));
  route('GET', /^\/cobr\/([^/]+)$/, 'cobr.read', (m) => {
    const c = cobrs.get(m[1]);
    return c ? { status: 200, body: cobrView(s, c) } : problem('CobRNaoEncontrado', 404, 'Cobrança não encontrada', 'Cobrança não encontrada para o txid informado.');
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
    return { status: 200, body: cobrView(s, c) };
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
    return { status: 201, body: cobrView(s, c) };
  });
}

/** Registers webhookrec and webhookcobr (PUT, GET, DELETE). */
export function recurringWebhookRoutes(s: PspState, route: AddRoute): void {
  for (const kind of ['rec', 'cobr'] as const) {
    route('PUT', new RegExp(`^/webhook${kind}$`), `webhook${kind}.write`, (_m, body) => {
      let target: URL | null = null;
      try {
        target = new URL(body?.webhookUrl);
      } catch {
        return problem('WebhookOperacaoInvalida', 400, 'Webhook inválido', undefined, [{ razao: 'webhookUrl não respeita o schema', propriedade: 'webhook.webhookUrl' }]);
      }
      if (!isLoopback(target)) return problem('WebhookOperacaoInvalida', 400, 'Webhook inválido', undefined, [{ razao: 'o PSP de teste só chama endereços de loopback', propriedade: 'webhook.webhookUrl' }]);
      const hook = { webhookUrl: body.webhookUrl, criacao: (kind === 'rec' ? s.recWebhook : s.cobrWebhook)?.criacao ?? new Date() };
      if (kind === 'rec') s.recWebhook = hook;
      else s.cobrWebhook = hook;
      return { status: 200 };
    });
    route('GET', new RegExp(`^/webhook${kind}$`), `webhook${kind}.read`, () => {
      const w = kind === 'rec' ? s.recWebhook : s.cobrWebhook;
      return w ? { status: 200, body: { webhookUrl: w.webhookUrl, criacao: w.criacao.toISOString() } } : problem('WebhookNaoEncontrado', 404, 'Webhook não encontrado');
    });
    route('DELETE', new RegExp(`^/webhook${kind}$`), `webhook${kind}.write`, () => {
      const had = kind === 'rec' ? s.recWebhook : s.cobrWebhook;
      if (kind === 'rec') s.recWebhook = null;
      else s.cobrWebhook = null;
      return had ? { status: 204 } : problem('WebhookNaoEncontrado', 404, 'Webhook não encontrado');
    });
  }
}

/** POST /rec: an authorisation, CRIADA, with its locrec when given one (journey 3: with a cob's txid). */
function createRec(s: PspState, body: any): Answer {
  const { cobs, recs, locrecs } = s;
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
let loc: LocRec | undefined;
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
return { status: 201, body: recView(s, r) };
}

/** PUT /cobr/{txid}: a recurring charge of an APROVADA authorisation, ATIVA at once with its first attempt AGENDADA. */
function putCobr(s: PspState, txid: string, body: any): Answer {
  const { cobs, recs, cobrs } = s;
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
  if (existing.body && JSON.stringify(existing.body) === JSON.stringify(body)) return { status: 201, body: cobrView(s, existing) };
  v.push({ razao: 'o campo cobr.txid encontra-se em uso', propriedade: 'cobr.txid', valor: txid });
}
if (!v.length && rec && [...cobrs.values()].some((c) => c.idRec === rec.idRec && c.status !== 'REJEITADA' && c.status !== 'CANCELADA' && sameCycle(rec.body.calendario.periodicidade, c.body.calendario.dataDeVencimento, due))) {
  v.push({ razao: 'existe uma CobR com status diferente de REJEITADA e CANCELADA referente ao mesmo idRec com dataDeVencimento no mesmo ciclo', propriedade: 'cobr.calendario.dataDeVencimento' });
}
if (v.length) return problem('CobROperacaoInvalida', 400, 'Cobrança inválida', 'A requisição que busca criar uma cobrança recorrente não respeita o schema ou está semanticamente errada.', v);
const c: CobRRecord = { txid, idRec: body.idRec, body, status: 'CRIADA', criacao: new Date(), tentativas: [], pix: [], atualizacao: [] };
stamp(c.atualizacao, 'CRIADA');
const answer = cobrView(s, c);
// The payer's bank accepts the schedule at once here: ATIVA, the first attempt AGENDADA on the due date.
c.status = 'ATIVA';
stamp(c.atualizacao, 'ATIVA');
const t: Tentativa = { dataLiquidacao: due, tipo: 'AGND', status: 'AGENDADA', endToEndId: newE2eid(new Date()), atualizacao: [] };
stamp(t.atualizacao, 'SOLICITADA');
stamp(t.atualizacao, 'AGENDADA');
c.tentativas.push(t);
cobrs.set(txid, c);
return { status: 201, body: answer };
}

/** An authorisation that ends takes its scheduled debits with it. */
export function cancelCobrsOf(s: PspState, idRec: string, solicitante: string): void {
  for (const c of s.cobrs.values()) {
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
