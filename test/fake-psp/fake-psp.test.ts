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
