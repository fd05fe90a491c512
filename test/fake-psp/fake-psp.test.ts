// The fake PSP itself: it must hold the standard's rules, or the provider's tests prove nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { after, before, test } from 'node:test';
import { startFakePsp, type FakePsp } from './server.ts';

let psp: FakePsp;
let agent: https.Agent;
before(async () => {
  psp = await startFakePsp();
  agent = new https.Agent({ cert: readFileSync(psp.clientCertFile), key: readFileSync(psp.clientKeyFile), ca: readFileSync(psp.caFile) });
});
after(async () => {
  agent.destroy();
  await psp.close();
});

function send(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string; agent?: https.Agent | false } = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: opts.agent === undefined ? agent : opts.agent, ...(opts.agent === false ? { ca: readFileSync(psp.caFile) } : {}) }, (res) => {
      let raw = '';
      res.on('data', (c) => (raw += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: raw ? JSON.parse(raw) : undefined }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function token(scope?: string): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }).toString();
  const res = await send(psp.tokenUrl, { method: 'POST', headers: { authorization: 'Basic ' + Buffer.from(`${psp.clientId}:${psp.clientSecret}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' }, body: form });
  assert.equal(res.status, 200);
  return res.body.access_token;
}

const api = (t: string, method: string, path: string, body?: unknown) =>
  send(psp.apiUrl + path, { method, headers: { authorization: `Bearer ${t}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });

test('a client without a certificate cannot connect; wrong client credentials get no token', async () => {
  await assert.rejects(send(psp.tokenUrl, { method: 'POST', agent: false }));
  const res = await send(psp.tokenUrl, { method: 'POST', headers: { authorization: 'Basic ' + Buffer.from(`${psp.clientId}:wrong`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
  assert.equal(res.status, 401);
});

test('scopes: a token without cob.write cannot create a charge (403 AcessoNegado)', async () => {
  const t = await token('cob.read');
  const res = await api(t, 'PUT', '/cob/' + 'a'.repeat(30), { calendario: { expiracao: 60 }, valor: { original: '1.00' }, chave: 'pix@loja.example' });
  assert.equal(res.status, 403);
  assert.equal(res.body.type, 'https://pix.bcb.gov.br/api/v2/error/AcessoNegado');
});

test('cob: txid format, value format, key ownership and devedor are checked', async () => {
  const t = await token();
  const good = { calendario: { expiracao: 3600 }, valor: { original: '10.50' }, chave: 'pix@loja.example', devedor: { cpf: '12345678909', nome: 'Fulano' } };
  assert.equal((await api(t, 'PUT', '/cob/short', good)).status, 400);
  const bad = await api(t, 'PUT', '/cob/' + 'b'.repeat(30), { ...good, valor: { original: '10.5' }, chave: 'other@key', devedor: { cpf: '123', cnpj: '12345678000195', nome: 'X' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.type, 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida');
  const props = bad.body.violacoes.map((v: { propriedade: string }) => v.propriedade);
  for (const p of ['cob.valor.original', 'cob.chave', 'cob.devedor', 'cob.devedor.cpf']) assert.ok(props.includes(p), p);
  const ok = await api(t, 'PUT', '/cob/' + 'c'.repeat(30), good);
  assert.equal(ok.status, 201);
  assert.equal(ok.body.status, 'ATIVA');
  assert.match(ok.body.pixCopiaECola, /^000201010212/);
  // The same PUT again alters nothing: one charge.
  const again = await api(t, 'PUT', '/cob/' + 'c'.repeat(30), good);
  assert.equal(again.status, 201);
  assert.equal(again.body.revisao, 0);
  assert.equal(psp.cobs.size, 1);
});

test('pay -> GET /pix/{e2eid}; devolução within the value, once per id; PATCH of a paid charge is refused', async () => {
  const t = await token();
  const txid = 'd'.repeat(30);
  await api(t, 'PUT', '/cob/' + txid, { calendario: { expiracao: 3600 }, valor: { original: '20.00' }, chave: 'pix@loja.example' });
  const paid = await psp.pay(txid, { mode: 'none' });
  const got = await api(t, 'GET', '/pix/' + paid.endToEndId);
  assert.equal(got.status, 200);
  assert.equal(got.body.valor, '20.00');
  assert.equal(got.body.txid, txid);
  assert.equal((await api(t, 'PUT', `/pix/${paid.endToEndId}/devolucao/r1`, { valor: '25.00' })).status, 400);
  const dev = await api(t, 'PUT', `/pix/${paid.endToEndId}/devolucao/r1`, { valor: '5.00' });
  assert.equal(dev.status, 201);
  assert.equal(dev.body.status, 'EM_PROCESSAMENTO');
  assert.equal((await api(t, 'PUT', `/pix/${paid.endToEndId}/devolucao/r1`, { valor: '5.00' })).status, 400);
  assert.equal((await api(t, 'PATCH', '/cob/' + txid, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' })).status, 400);
  const list = await api(t, 'GET', `/pix?inicio=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}&fim=${encodeURIComponent(new Date().toISOString())}`);
  assert.equal(list.status, 200);
  assert.ok(list.body.pix.some((p: { endToEndId: string }) => p.endToEndId === paid.endToEndId));
  assert.equal((await api(t, 'GET', '/pix?inicio=x')).status, 400);
});

test('a devolução more than 90 days after the Pix is refused', async () => {
  const t = await token();
  const txid = 'e'.repeat(30);
  await api(t, 'PUT', '/cob/' + txid, { calendario: { expiracao: 3600 }, valor: { original: '20.00' }, chave: 'pix@loja.example' });
  const old = await psp.pay(txid, { mode: 'none', horario: new Date(Date.now() - 91 * 86_400_000) });
  const res = await api(t, 'PUT', `/pix/${old.endToEndId}/devolucao/r1`, { valor: '1.00' });
  assert.equal(res.status, 400);
  assert.equal(res.body.type, 'https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida');
});

test('misbehaviour on demand: a 503, a 401 for a valid token', async () => {
  const t = await token();
  psp.failNext(1, 503);
  assert.equal((await api(t, 'GET', '/cob/' + 'c'.repeat(30))).status, 503);
  assert.equal((await api(t, 'GET', '/cob/' + 'c'.repeat(30))).status, 200);
  psp.unauthorizedOnce();
  assert.equal((await api(t, 'GET', '/cob/' + 'c'.repeat(30))).status, 401);
});

test('webhook: only the receiver\'s own key, only loopback URLs', async () => {
  const t = await token();
  assert.equal((await api(t, 'PUT', '/webhook/other@key', { webhookUrl: 'http://127.0.0.1:9/api/psp/pix' })).status, 400);
  assert.equal((await api(t, 'PUT', '/webhook/pix@loja.example', { webhookUrl: 'https://example.com/hook' })).status, 400);
  assert.equal((await api(t, 'PUT', '/webhook/pix@loja.example', { webhookUrl: 'http://127.0.0.1:9/api/psp/pix' })).status, 200);
  assert.equal((await api(t, 'GET', '/webhook/pix@loja.example')).body.webhookUrl, 'http://127.0.0.1:9/api/psp/pix');
});

// ---------------------------------------------------------------------------------------------
// Pix Automático

const day = (n: number) => new Date(Date.now() - 3 * 3600_000 + n * 86_400_000).toISOString().slice(0, 10);

/** A cob, a location and an authorisation of journey 3 on it, approved by the payer when asked. */
async function authorisation(t: string, approve: boolean, politica = 'PERMITE_3R_7D') {
  const txid = 'c'.repeat(20) + Math.random().toString(36).slice(2, 12).padEnd(10, '0');
  assert.equal((await api(t, 'PUT', `/cob/${txid}`, { calendario: { expiracao: 3600 }, valor: { original: '10.00' }, chave: 'pix@loja.example' })).status, 201);
  const loc = await api(t, 'POST', '/locrec');
  assert.equal(loc.status, 201);
  const rec = await api(t, 'POST', '/rec', {
    vinculo: { contrato: 'C1', devedor: { cpf: '12345678909', nome: 'Fulano' }, objeto: 'Assinatura' },
    calendario: { dataInicial: day(30), periodicidade: 'MENSAL' },
    politicaRetentativa: politica,
    loc: loc.body.id,
    ativacao: { dadosJornada: { txid } },
  });
  assert.equal(rec.status, 201, JSON.stringify(rec.body));
  if (approve) await psp.answerRec(rec.body.idRec, 'APROVADA');
  return { txid, idRec: rec.body.idRec as string, loc: loc.body };
}

const cobrBody = (idRec: string, due: string) => ({ idRec, calendario: { dataDeVencimento: due }, valor: { original: '10.00' }, ajusteDiaUtil: true, recebedor: { conta: '1234567', tipoConta: 'CORRENTE', agencia: '0001' } });

test('rec: the scopes, the required fields and formats, the location used once, journey 3\'s composite code', async () => {
  const readOnly = await token('rec.read');
  assert.equal((await api(readOnly, 'POST', '/rec', {})).status, 403);
  const t = await token();
  const bad = await api(t, 'POST', '/rec', { vinculo: { devedor: { cpf: '123', nome: '' } }, calendario: { dataInicial: day(-1), periodicidade: 'DIARIA' }, valor: { valorRec: '1.00', valorMinimoRecebedor: '1.00' }, politicaRetentativa: 'SEMPRE', loc: 999999 });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.type, 'https://pix.bcb.gov.br/api/v2/error/RecOperacaoInvalida');
  const props = bad.body.violacoes.map((v: { propriedade: string }) => v.propriedade);
  for (const p of ['rec.vinculo.contrato', 'rec.vinculo.devedor.cpf', 'rec.vinculo.devedor.nome', 'rec.calendario.dataInicial', 'rec.calendario.periodicidade', 'rec.valor', 'rec.politicaRetentativa', 'rec.loc']) assert.ok(props.includes(p), p);
  const { txid, idRec, loc } = await authorisation(t, false);
  assert.match(idRec, /^RR99999999\d{8}[a-zA-Z0-9]{11}$/);
  // The location is taken.
  const again = await api(t, 'POST', '/rec', { vinculo: { contrato: 'C2', devedor: { cpf: '12345678909', nome: 'F' } }, calendario: { dataInicial: day(1), periodicidade: 'MENSAL' }, politicaRetentativa: 'NAO_PERMITE', loc: loc.id });
  assert.equal(again.status, 400);
  const full = await api(t, 'GET', `/rec/${idRec}?txid=${txid}`);
  assert.equal(full.body.dadosQR.jornada, 'JORNADA_3');
  assert.ok(full.body.dadosQR.pixCopiaECola.includes(loc.location));
  assert.equal((await api(t, 'GET', `/rec/${idRec}?txid=${'d'.repeat(30)}`)).status, 400);
  assert.equal((await api(t, 'GET', '/rec/RR1234567820240115abcdefghijk')).status, 404);
});

test('cobr: only under an approved authorisation, one per cycle; retentativa: future, within 7 days, at most 3, never while one is scheduled', async () => {
  const t = await token();
  const pending = await authorisation(t, false);
  const refused = await api(t, 'PUT', `/cobr/${'e'.repeat(32)}`, cobrBody(pending.idRec, day(5)));
  assert.equal(refused.status, 400);
  assert.equal(refused.body.type, 'https://pix.bcb.gov.br/api/v2/error/CobROperacaoInvalida');
  const { idRec } = await authorisation(t, true);
  const missing = await api(t, 'PUT', `/cobr/${'f'.repeat(32)}`, { idRec, calendario: { dataDeVencimento: day(-1) }, valor: { original: '0.00' } });
  const props = missing.body.violacoes.map((v: { propriedade: string }) => v.propriedade);
  for (const p of ['cobr.calendario.dataDeVencimento', 'cobr.valor', 'cobr.ajusteDiaUtil', 'cobr.recebedor']) assert.ok(props.includes(p), p);
  const txid = 'g'.repeat(32);
  const due = day(5);
  assert.equal((await api(t, 'PUT', `/cobr/${txid}`, cobrBody(idRec, due))).status, 201);
  assert.equal((await api(t, 'PUT', `/cobr/${txid}`, cobrBody(idRec, due))).status, 201, 'the same request again finds its charge');
  const sameCycle = await api(t, 'PUT', `/cobr/${'h'.repeat(32)}`, cobrBody(idRec, due));
  assert.equal(sameCycle.status, 400, 'one charge per cycle of the authorisation');
  assert.equal((await api(t, 'POST', `/cobr/${txid}/retentativa/${day(6)}`)).status, 400, 'an attempt is still scheduled');
  await psp.failAttempt(txid, 'AM02');
  assert.equal((await api(t, 'POST', `/cobr/${txid}/retentativa/${day(0)}`)).status, 400, 'not a future date');
  assert.equal((await api(t, 'POST', `/cobr/${txid}/retentativa/${day(13)}`)).status, 400, 'beyond 7 days after the due date');
  for (let i = 1; i <= 3; i++) {
    assert.equal((await api(t, 'POST', `/cobr/${txid}/retentativa/${day(5 + i)}`)).status, 201);
    await psp.failAttempt(txid);
  }
  const fourth = await api(t, 'POST', `/cobr/${txid}/retentativa/${day(10)}`);
  assert.equal(fourth.status, 400, 'at most 3 retries');
  assert.equal((await api(t, 'GET', `/cobr/${txid}`)).body.tentativas.length, 4);
  // NAO_PERMITE: no retry at all.
  const strict = await authorisation(t, true, 'NAO_PERMITE');
  const txid2 = 'k'.repeat(32);
  assert.equal((await api(t, 'PUT', `/cobr/${txid2}`, cobrBody(strict.idRec, day(5)))).status, 201);
  await psp.failAttempt(txid2, 'AM02');
  const noRetry = await api(t, 'POST', `/cobr/${txid2}/retentativa/${day(6)}`);
  assert.equal(noRetry.status, 400);
  assert.match(noRetry.body.detail, /não permite retentativa/);
});

test('rec cancelled by the receiver (PATCH) takes its scheduled charges with it; a final state cannot be cancelled', async () => {
  const t = await token();
  const { idRec } = await authorisation(t, true);
  const txid = 'm'.repeat(32);
  await api(t, 'PUT', `/cobr/${txid}`, cobrBody(idRec, day(5)));
  assert.equal((await api(t, 'PATCH', `/rec/${idRec}`, { status: 'APROVADA' })).status, 400);
  const cancelled = await api(t, 'PATCH', `/rec/${idRec}`, { status: 'CANCELADA' });
  assert.equal(cancelled.status, 200);
  assert.equal(cancelled.body.encerramento.cancelamento.solicitante, 'USUARIO_RECEBEDOR');
  assert.equal((await api(t, 'GET', `/cobr/${txid}`)).body.status, 'CANCELADA');
  assert.equal((await api(t, 'PATCH', `/rec/${idRec}`, { status: 'CANCELADA' })).status, 400);
});
