// The fake Cielo Chargeback API itself: mTLS and a token before anything, the query's and the
// answers' rules with the manual's codes, and a refusal's document checked (one, named after the
// case, a format Cielo takes).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { cardEnding } from './cards.ts';
import { httpsCall, type Res } from './https-call.ts';
import { startFakeCielo, type FakeCielo } from './server.ts';

let cielo: FakeCielo;
before(async () => {
  cielo = await startFakeCielo();
});
after(() => cielo.close());

function send(url: string, method: string, headers: Record<string, string>, payload?: Buffer, mtls = true): Promise<Res> {
  const cb = cielo.chargebacks;
  const tls = mtls ? { cert: readFileSync(cb.clientCertFile), key: readFileSync(cb.clientKeyFile) } : {};
  return httpsCall(url, { method, headers, payload, caFile: cielo.caFile, ...tls });
}

const form = (f: Record<string, string>) => Buffer.from(new URLSearchParams(f).toString());
async function token(): Promise<string> {
  const { clientId, clientSecret, tokenUrl } = cielo.chargebacks;
  const res = await send(tokenUrl, 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, form({ client_id: clientId, client_secret: clientSecret, grant_type: 'client_credentials' }));
  assert.equal(res.status, 200);
  return res.body.access_token;
}
async function api(method: string, path: string, body?: unknown, type = 'application/json'): Promise<Res> {
  const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  return send(`${cielo.chargebacks.url}/chargeback/v1${path}`, method, { authorization: `Bearer ${await token()}`, 'content-type': type }, payload);
}
function multipart(fields: Record<string, string>, file?: { name: string; data: Buffer }) {
  const parts: Buffer[] = [];
  const b = 'xBOUNDARYx';
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) parts.push(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/pdf\r\n\r\n`), file.data, Buffer.from('\r\n'));
  parts.push(Buffer.from(`--${b}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${b}` };
}

/** A sale at the fake and a case opened on it. */
async function openCase() {
  const sale = { MerchantOrderId: randomUUID().replace(/-/g, ''), Payment: { Type: 'CreditCard', Amount: 15700, Installments: 1, Capture: true, CreditCard: { CardNumber: cardEnding('1'), Holder: 'ANA', ExpirationDate: '12/2030', SecurityCode: '123', Brand: 'Visa' } } };
  const made = await send(`${cielo.apiUrl}/1/sales/`, 'POST', { 'content-type': 'application/json', MerchantId: cielo.merchantId, MerchantKey: cielo.merchantKey, RequestId: randomUUID() }, Buffer.from(JSON.stringify(sale)), false);
  assert.equal(made.status, 201);
  return cielo.chargebacks.open(made.body.Payment.PaymentId);
}

test('no client certificate: the TLS handshake is refused; a wrong client secret or no token: 401', async () => {
  await assert.rejects(send(cielo.chargebacks.tokenUrl, 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, form({ grant_type: 'client_credentials' }), false));
  const wrong = await send(cielo.chargebacks.tokenUrl, 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, form({ client_id: cielo.chargebacks.clientId, client_secret: 'x', grant_type: 'client_credentials' }));
  assert.equal(wrong.status, 401);
  const bare = await send(`${cielo.chargebacks.url}/chargeback/v1/PENDING?page=0&pageSize=10`, 'POST', { 'content-type': 'application/json' }, Buffer.from('{}'));
  assert.equal(bare.status, 401);
});

test('the query: an establishment or the head office required (909), DONE needs its period (920), pageSize at most 200 (138); found by idCase', async () => {
  const c = await openCase();
  assert.equal((await api('POST', '/PENDING?page=0&pageSize=10', {})).body.code, '909');
  const main = { mainCustomer: cielo.chargebacks.mainCustomer, hierarchyType: 4, idCase: String(c.idCase) };
  assert.equal((await api('POST', '/DONE?page=0&pageSize=10', main)).body.code, '920');
  assert.equal((await api('POST', '/PENDING?page=0&pageSize=201', main)).body.code, '138');
  const found = await api('POST', '/PENDING?page=0&pageSize=10', main);
  assert.equal(found.status, 200);
  assert.deepEqual(found.body.content.map((x: any) => [x.idCase, x.idChargeback, x.transactionAmount]), [[c.idCase, c.idChargeback, 157]]);
});

test('a refusal: reason up to 100 (905), one document (904) named after the case (929) in a format Cielo takes (903); then 102, and 931 after', async () => {
  const c = await openCase();
  const fields = { establishmentNumber: String(c.establishmentNumber), idChargeback: String(c.idChargeback), reasonToRefuse: 'Entregue ao titular.', userName: 'a@b.example' };
  const pdf = Buffer.from('%PDF-1.4\n%%EOF\n');
  const refuse = async (f: Record<string, string>, file?: { name: string; data: Buffer }) => {
    const m = multipart(f, file);
    return (await api('PUT', '/refuse', m.body, m.type)).body.code;
  };
  assert.equal(await refuse({ ...fields, reasonToRefuse: 'x'.repeat(101) }, { name: `${c.idCase}.pdf`, data: pdf }), '905');
  assert.equal(await refuse(fields), '904');
  assert.equal(await refuse(fields, { name: 'evidence.pdf', data: pdf }), '929');
  assert.equal(await refuse(fields, { name: `${c.idCase}.pdf`, data: Buffer.from('\x89PNG\r\n') }), '903');
  assert.equal(await refuse(fields, { name: `${c.idCase}.png`, data: pdf }), '903');
  assert.equal(c.status, 'PENDING', 'nothing taken so far');
  assert.equal(await refuse(fields, { name: `${c.idCase}.pdf`, data: pdf }), '102');
  assert.deepEqual([c.status, c.actionTakenCode, c.lifecycle.at(-1)?.action], ['DONE', 'RECUSADO', 'Em análise com a Cielo']);
  assert.equal(await refuse(fields, { name: `${c.idCase}.pdf`, data: pdf }), '931');
  const accepted = await api('PUT', '/accept', { updateChargeback: [{ establishmentNumber: fields.establishmentNumber, idChargeback: fields.idChargeback }], userName: 'a@b.example' });
  assert.deepEqual([accepted.status, accepted.body[0].code], [200, '931']);
});
