// The fake Efí itself: it refuses what Efí refuses (no client certificate, credentials, a token
// request that is not Efí's JSON, malformed sends, a paying key not the account's, a missing scope,
// a key without webhook), never sends one idEnvio twice, and its misbehaviours do what they say.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { startFakeEfi, type FakeEfi } from './server.ts';

let efi: FakeEfi;
let hook: http.Server;
let hookUrl: string;
const received: Array<{ url: string; body: unknown }> = [];
before(async () => {
  efi = await startFakeEfi({ balanceCents: 10_000 });
  hook = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') });
      res.writeHead(new URL(req.url ?? '/', 'http://x').searchParams.get('hmac')?.startsWith('ok') ? 200 : 401).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
});
after(async () => {
  await efi.close();
  await new Promise<void>((resolve) => hook.close(() => resolve()));
});

type Res = { status: number; body: any };
function request(method: string, path: string, o: { body?: unknown; raw?: string; headers?: Record<string, string>; cert?: boolean } = {}): Promise<Res> {
  const payload = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
  const tls = o.cert === false ? {} : { cert: readFileSync(efi.clientCertFile), key: readFileSync(efi.clientKeyFile) };
  return new Promise((resolve, reject) => {
    const req = https.request(`${efi.apiUrl}${path}`, { method, ca: readFileSync(efi.caFile), ...tls, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...o.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
const basic = (id = efi.clientId, secret = efi.clientSecret) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
async function token(): Promise<string> {
  const r = await request('POST', '/oauth/token', { body: { grant_type: 'client_credentials' }, headers: { authorization: basic() } });
  assert.equal(r.status, 200);
  return r.body.access_token;
}
const bearer = async () => ({ authorization: `Bearer ${await token()}` });
const good = (over: Record<string, unknown> = {}) => ({ valor: '10.00', pagador: { chave: efi.payingKey, infoPagador: 'Saque' }, favorecido: { chave: 'ana@example.com' }, ...over });

test('without the client certificate nothing is answered; wrong credentials 401; a form token request is refused; scopes as granted', async () => {
  await assert.rejects(request('POST', '/oauth/token', { cert: false, body: { grant_type: 'client_credentials' } }));
  assert.equal((await request('POST', '/oauth/token', { body: { grant_type: 'client_credentials' }, headers: { authorization: basic(efi.clientId, 'wrong') } })).status, 401);
  const form = await request('POST', '/oauth/token', { raw: 'grant_type=client_credentials', headers: { authorization: basic(), 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(form.status, 400);
  assert.equal(efi.violations.length, 1, 'kept as a broken rule');
  efi.violations.length = 0;
  const ok = await request('POST', '/oauth/token', { body: { grant_type: 'client_credentials' }, headers: { authorization: basic() } });
  assert.deepEqual([ok.body.token_type, ok.body.scope.split(' ').sort()], ['Bearer', [...efi.grantable].sort()]);
  assert.equal((await request('GET', '/v2/gn/saldo', { headers: { authorization: 'Bearer nope' } })).status, 401);
});

test('a key without webhook cannot send; the registration needs x-skip-mtls-checking, https (or loopback), and a 2xx from the URL', async () => {
  const h = await bearer();
  assert.equal((await request('PUT', '/v3/gn/pix/noHook1', { body: good(), headers: h })).status, 400);
  const put = (url: string, headers: Record<string, string> = {}) => request('PUT', `/v2/webhook/${encodeURIComponent(efi.payingKey)}`, { body: { webhookUrl: url }, headers: { ...h, ...headers } });
  const skip = { 'x-skip-mtls-checking': 'true' };
  assert.equal((await put(`${hookUrl}?hmac=ok1&ignorar=`)).body.nome, 'webhook_invalido');
  assert.equal((await put('http://example.com/hook', skip)).body.mensagem, 'A URL do webhook deve usar o protocolo HTTPS');
  assert.equal((await put(`${hookUrl}?hmac=bad&ignorar=`, skip)).body.mensagem, 'A URL informada respondeu com o código HTTP 401');
  assert.equal((await request('PUT', '/v2/webhook/outra@example.com', { body: { webhookUrl: `${hookUrl}?hmac=ok1&ignorar=` }, headers: { ...h, ...skip } })).body.nome, 'chave_invalida');
  assert.equal((await put(`${hookUrl}?hmac=ok1&ignorar=`, skip)).status, 200);
  assert.equal(received.at(-1)?.url, '/hook?hmac=ok1&ignorar=/pix', 'Efí appends /pix to the registered URL');
  efi.violations.length = 0;
});

test('malformed sends are refused (json_invalido and the rule broken) and kept as violations', async () => {
  const h = await bearer();
  const refused = async (id: string, body: unknown) => {
    const r = await request('PUT', `/v3/gn/pix/${id}`, { body, headers: h });
    assert.equal(r.status, 400, JSON.stringify(body));
    return r.body;
  };
  assert.equal((await refused('has-hyphen', good())).nome, 'json_invalido');
  assert.equal((await refused('x'.repeat(36), good())).nome, 'json_invalido');
  for (const valor of [10, '10', '10.5', '0.00', '12345678901.00']) assert.equal((await refused('bad1', good({ valor }))).erros[0].caminho, '.body.valor');
  assert.equal((await refused('bad2', good({ pagador: { chave: 'outra@example.com' } }))).nome, 'chave_invalida');
  assert.equal((await refused('bad3', good({ pagador: { chave: efi.payingKey, infoPagador: 'x'.repeat(141) } }))).nome, 'json_invalido');
  assert.equal((await refused('bad4', good({ favorecido: { chave: 'a@b.c', contaBanco: {} } }))).nome, 'json_invalido');
  const conta = { nome: 'Ana', cpf: '52998224725', codigoBanco: '60701190', agencia: '1', conta: '123', tipoConta: 'cacc' };
  for (const wrong of [{ tipoConta: 'corrente' }, { cpf: '529.982.247-25' }, { codigoBanco: '341' }, { agencia: '00011' }, { cnpj: '11222333000181' }, { extra: 'x' }]) {
    assert.equal((await refused('bad5', good({ favorecido: { contaBanco: { ...conta, ...wrong } } }))).nome, 'json_invalido', JSON.stringify(wrong));
  }
  assert.equal((await refused('bad6', { ...good(), extra: 1 })).nome, 'json_invalido');
  assert.ok(efi.violations.length >= 15);
  assert.equal(efi.sends.size, 0);
  efi.violations.length = 0;
});

test('one idEnvio never sends twice (409); the lookup by idEnvio; 404 for one never sent; a missing scope is 403', async () => {
  const h = await bearer();
  efi.behaviour.settleAfterMs = null;
  const first = await request('PUT', '/v3/gn/pix/dup1', { body: good(), headers: h });
  assert.deepEqual([first.status, first.body.status, first.body.idEnvio, first.body.valor], [201, 'EM_PROCESSAMENTO', 'dup1', '10.00']);
  assert.match(first.body.e2eId, /^E09089356\d{12}API[0-9a-f]{8}$/);
  assert.equal((await request('PUT', '/v3/gn/pix/dup1', { body: good(), headers: h })).status, 409);
  assert.deepEqual([efi.sends.get('dup1')?.debits, efi.balanceCents], [1, 9_000]);
  const found = await request('GET', '/v2/gn/pix/enviados/id-envio/dup1', { headers: h });
  assert.deepEqual([found.body.endToEndId, found.body.status, found.body.favorecido], [first.body.e2eId, 'EM_PROCESSAMENTO', { chave: 'ana@example.com' }]);
  const missing = await request('GET', '/v2/gn/pix/enviados/id-envio/never1', { headers: h });
  assert.deepEqual([missing.status, missing.body.type], [404, 'https://pix.bcb.gov.br/api/v2/error/PixEnviadoNaoEncontrado']);
  efi.grantable.delete('pix.send');
  assert.equal((await request('PUT', '/v3/gn/pix/scope1', { body: good(), headers: await bearer() })).status, 403);
  efi.grantable.add('pix.send');
});

test('funds: refused above the balance; NAO_REALIZADO gives it back; settlement is notified to {webhookUrl}/pix with gnExtras.idEnvio', async () => {
  const h = await bearer();
  assert.equal((await request('PUT', '/v3/gn/pix/big1', { body: good({ valor: '90.01' }), headers: h })).body.nome, 'saldo_insuficiente');
  efi.behaviour.failKeys.add('bounce@example.com');
  await request('PUT', '/v3/gn/pix/nao1', { body: good({ favorecido: { chave: 'bounce@example.com' } }), headers: h });
  assert.equal(efi.balanceCents, 8_000);
  await efi.settle('nao1');
  assert.equal(efi.balanceCents, 9_000);
  const note = received.at(-1)!;
  assert.equal(note.url, '/hook?hmac=ok1&ignorar=/pix');
  assert.deepEqual((note.body as { pix: Array<{ status: string; gnExtras: unknown; tipo: string }> }).pix.map((p) => [p.status, p.tipo, p.gnExtras]), [['NAO_REALIZADO', 'SOLICITACAO', { idEnvio: 'nao1' }]]);
  await efi.settle('dup1');
  assert.equal(efi.paidTo('ana@example.com'), 1000);
});

test('misbehaviours: a failure aimed at a path, a dropped answer after the work is done, a revoked token', async () => {
  const h = await bearer();
  efi.failNext(1, 500, '/v2/gn/saldo');
  assert.equal((await request('GET', '/v2/gn/pix/enviados/id-envio/dup1', { headers: h })).status, 200, 'another path is not hit');
  assert.deepEqual(await request('GET', '/v2/gn/saldo', { headers: h }), { status: 500, body: { nome: 'erro_aplicacao', mensagem: 'Ocorreu um erro na aplicação (falha simulada)' } });
  efi.dropAnswer('PUT', '/v3/gn/pix/');
  await assert.rejects(request('PUT', '/v3/gn/pix/drop1', { body: good({ valor: '1.00' }), headers: h }));
  assert.deepEqual([efi.sends.has('drop1'), efi.calls('PUT', '/v3/gn/pix/drop1').map((r) => r.status)], [true, [0]]);
  efi.unauthorizedOnce();
  assert.equal((await request('GET', '/v2/gn/saldo', { headers: h })).status, 401);
  assert.equal((await request('GET', '/v2/gn/saldo', { headers: h })).status, 401, 'that token is gone');
  assert.deepEqual(efi.violations, []);
});
