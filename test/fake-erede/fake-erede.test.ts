// The fake e.Rede itself: it refuses what e.Rede refuses (credentials, tokens, content type, each
// field's presence, size and format with e.Rede's codes, amounts past what was authorised), so the
// connector's tests pass only on requests e.Rede would take.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { after, before, test } from 'node:test';
import { startFakeErede, type FakeErede } from './server.ts';

let fake: FakeErede;
let ca: string;
let token: string;
before(async () => {
  fake = await startFakeErede();
  ca = readFileSync(fake.caFile, 'utf8');
  token = (await req('POST', fake.tokenUrl, new URLSearchParams({ grant_type: 'client_credentials' }).toString(), { authorization: basic(fake.clientId, fake.clientSecret), 'content-type': 'application/x-www-form-urlencoded' })).body.access_token;
});
after(() => fake.close());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

function req(method: string, url: string, payload?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const r = https.request(url, { method, ca, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    });
    r.on('error', reject);
    r.end(payload);
  });
}

const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  req(method, `${fake.apiUrl}/v2/transactions${path}`, body === undefined ? undefined : JSON.stringify(body), { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers });

const YEAR = new Date().getUTCFullYear() + 2;
const sale = (extra: object = {}) => ({ capture: true, kind: 'credit', reference: `R${Date.now()}${Math.floor(Math.random() * 1000)}`.slice(0, 16), amount: 1000, cardHolderName: 'ANA SOUZA', cardNumber: '4242424242424242', expirationMonth: 12, expirationYear: YEAR, securityCode: '123', ...extra });

test('the token endpoint: Basic with the PV and the key, form-encoded client_credentials', async () => {
  assert.equal((await req('POST', fake.tokenUrl, 'grant_type=client_credentials', { authorization: basic(fake.clientId, 'wrong'), 'content-type': 'application/x-www-form-urlencoded' })).status, 401);
  assert.equal((await req('POST', fake.tokenUrl, JSON.stringify({ grant_type: 'client_credentials' }), { authorization: basic(fake.clientId, fake.clientSecret), 'content-type': 'application/json' })).status, 400);
  assert.equal((await req('POST', fake.tokenUrl, 'grant_type=password', { authorization: basic(fake.clientId, fake.clientSecret), 'content-type': 'application/x-www-form-urlencoded' })).status, 400);
  assert.equal(typeof token, 'string');
});

test('the API wants a valid bearer token and JSON', async () => {
  assert.equal((await api('POST', '', sale(), { authorization: 'Bearer nope' })).status, 401);
  const wrongType = await req('POST', `${fake.apiUrl}/v2/transactions`, JSON.stringify(sale()), { authorization: `Bearer ${token}`, 'content-type': 'text/plain' });
  assert.deepEqual([wrongType.status, wrongType.body.returnCode], [415, '169']);
});

test("each field with e.Rede's code", async () => {
  const cases: Array<[object, string]> = [
    [{ reference: undefined }, '41'],
    [{ reference: 'A'.repeat(17) }, '39'],
    [{ reference: 'abc-123' }, '40'],
    [{ amount: '1000' }, '71'],
    [{ amount: undefined }, '73'],
    [{ cardNumber: '4242' }, '36'],
    [{ cardNumber: undefined }, '38'],
    [{ expirationMonth: 13 }, '33'],
    [{ expirationYear: 202 }, '1'],
    [{ securityCode: '12345' }, '15'],
    [{ cardHolderName: 'ANA 2' }, '59'],
    [{ cardHolderName: 'A'.repeat(31) }, '55'],
    [{ installments: 1 }, '151'],
    [{ installments: 13 }, '151'],
    [{ softDescriptor: 'S'.repeat(19) }, '31'],
    [{ softDescriptor: 'LOJA*' }, '32'],
    [{ kind: 'debito' }, '76'],
  ];
  for (const [extra, code] of cases) {
    const res = await api('POST', '', sale(extra));
    assert.deepEqual([res.status, res.body.returnCode], [400, code], JSON.stringify(extra));
  }
  assert.equal(fake.sales.size, 0, 'nothing made');
});

test('one sale per reference; capture within the authorisation, once; an authorisation cancelled whole', async () => {
  const body = sale({ capture: false });
  const made = await api('POST', '', body);
  assert.deepEqual([made.status, made.body.returnCode], [201, '00']);
  assert.equal((await api('POST', '', body)).body.returnCode, '42');
  const tid = made.body.tid;
  assert.equal((await api('PUT', `/${tid}`, { amount: 1001 })).body.returnCode, '49');
  assert.equal((await api('POST', `/${tid}/refunds`, { amount: 500 })).body.returnCode, '365');
  assert.equal((await api('PUT', `/${tid}`, { amount: 800 })).body.returnCode, '00');
  assert.equal((await api('PUT', `/${tid}`, { amount: 800 })).body.returnCode, '171');
  assert.equal((await api('POST', `/${tid}/refunds`, { amount: 900 })).body.returnCode, '358');
  const byRef = await api('GET', `?reference=${body.reference}`);
  assert.equal(byRef.body.authorization.status, 'Approved');
  assert.equal(byRef.body.capture.amount, 800);
  assert.equal(byRef.body.authorization.cardNumber, undefined, 'no card number kept');
  assert.equal((await api('GET', '?reference=NOSUCHREF')).body.returnCode, '78');
});
