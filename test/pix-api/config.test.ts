// PIX_PROVIDER=bcb-api and its settings: required together, files read and checked at start,
// secrets never quoted in a message.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { makeCertificate } from '../webhook-receiver.ts';

const SECRET = 'test-secret-test-secret-test-secret-0123456789';
const cert = makeCertificate();
const dir = mkdtempSync(join(tmpdir(), 'cofre-pixcfg-'));
after(() => {
  rmSync(cert.dir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

const FULL = {
  JWT_SECRET: SECRET,
  PIX_PROVIDER: 'bcb-api',
  PIX_API_URL: 'https://psp.example/api/v2/',
  PIX_API_CLIENT_ID: 'client-id',
  PIX_API_CLIENT_SECRET: 'very-secret-client-secret',
  PIX_API_CERT_FILE: cert.certFile,
  PIX_API_KEY_FILE: cert.keyFile,
  PIX_KEY: 'pix@loja.example',
};

function refused(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail(`expected a ConfigError for ${Object.keys(env).join(',')}`);
}

test('without PIX_PROVIDER there is no API Pix provider', () => {
  assert.equal(loadConfig({ JWT_SECRET: SECRET }).pixApi, null);
});

test('a full configuration: URL without trailing slash, token URL defaults to the origin /oauth/token, PEM texts read', () => {
  const c = loadConfig(FULL).pixApi!;
  assert.equal(c.url, 'https://psp.example/api/v2');
  assert.equal(c.tokenUrl, 'https://psp.example/oauth/token');
  assert.equal(c.clientId, 'client-id');
  assert.equal(c.clientSecret, 'very-secret-client-secret');
  assert.match(c.cert, /BEGIN CERTIFICATE/);
  assert.match(c.key, /PRIVATE KEY/);
  assert.equal(c.ca, null);
  const withCa = loadConfig({ ...FULL, PIX_API_TOKEN_URL: 'https://auth.psp.example/token', PIX_API_CA_FILE: cert.certFile }).pixApi!;
  assert.equal(withCa.tokenUrl, 'https://auth.psp.example/token');
  assert.match(withCa.ca!, /BEGIN CERTIFICATE/);
});

test('every missing setting is named at once', () => {
  const msg = refused({ JWT_SECRET: SECRET, PIX_PROVIDER: 'bcb-api' });
  for (const name of ['PIX_API_URL', 'PIX_API_CLIENT_ID', 'PIX_API_CLIENT_SECRET', 'PIX_API_CERT_FILE', 'PIX_API_KEY_FILE', 'PIX_KEY']) assert.match(msg, new RegExp(name));
});

test('an unknown PIX_PROVIDER, a plain-http URL, unreadable or non-PEM files are refused', () => {
  assert.match(refused({ ...FULL, PIX_PROVIDER: 'efi' }), /PIX_PROVIDER "efi" is not a known PIX provider/);
  assert.match(refused({ ...FULL, PIX_API_URL: 'http://psp.example/v2' }), /PIX_API_URL must be a https URL/);
  assert.match(refused({ ...FULL, PIX_API_TOKEN_URL: 'ftp://psp.example/token' }), /PIX_API_TOKEN_URL must be a https URL/);
  assert.match(refused({ ...FULL, PIX_API_CERT_FILE: join(dir, 'none.pem') }), /PIX_API_CERT_FILE cannot be read .*ENOENT/);
  const notPem = join(dir, 'not.pem');
  writeFileSync(notPem, 'hello');
  assert.match(refused({ ...FULL, PIX_API_KEY_FILE: notPem }), /PIX_API_KEY_FILE must be a PEM private key file/);
  assert.match(refused({ ...FULL, PIX_API_KEY_FILE: cert.certFile }), /PIX_API_KEY_FILE must be a PEM private key file/);
  assert.match(refused({ ...FULL, PIX_API_CA_FILE: cert.keyFile }), /PIX_API_CA_FILE must be a PEM certificate file/);
});

test('PIX_PROVIDER wins for PIX over PAYMENT_PROVIDER=sandbox, which keeps the other payment rails on the sandbox', () => {
  const c = loadConfig({ ...FULL, PAYMENT_PROVIDER: 'sandbox' });
  assert.deepEqual(c.connectors, { PIX: ['bcb-api'], CARD: ['sandbox'], BOLETO: ['sandbox'], PAYOUT: [] });
  assert.ok(c.pixApi);
});

test('the bcb-api connector stays configured after PIX moves to another (it serves the payments it made)', () => {
  const c = loadConfig({ ...FULL, PIX_PROVIDER: 'sandbox' });
  assert.deepEqual(c.connectors.PIX, ['sandbox']);
  assert.ok(c.pixApi, 'PIX_API_* still read');
  assert.match(refused({ ...FULL, PIX_PROVIDER: 'sandbox', PIX_API_CLIENT_ID: '' }), /PIX_API_URL \(the bcb-api connector\) needs PIX_API_CLIENT_ID/);
});

test('CARD_PROVIDER takes an ordered list of known card connectors; the other rails take one', () => {
  assert.deepEqual(loadConfig({ JWT_SECRET: SECRET, CARD_PROVIDER: 'sandbox' }).connectors.CARD, ['sandbox']);
  assert.match(refused({ JWT_SECRET: SECRET, CARD_PROVIDER: 'sandbox,adyen' }), /CARD_PROVIDER "adyen" is not a known CARD provider/);
  assert.match(refused({ JWT_SECRET: SECRET, CARD_PROVIDER: 'sandbox,sandbox' }), /names a provider twice/);
  assert.match(refused({ JWT_SECRET: SECRET, BOLETO_PROVIDER: 'sandbox,sandbox' }), /BOLETO_PROVIDER takes one provider/);
  assert.match(refused({ JWT_SECRET: SECRET, CARD_PROVIDER: 'bcb-api' }), /CARD_PROVIDER "bcb-api" is not a known CARD provider/);
});

test('the client secret and the private key never appear in a message', () => {
  const msg = refused({ ...FULL, PIX_API_URL: 'nope', PIX_API_KEY_FILE: cert.certFile });
  assert.doesNotMatch(msg, /very-secret-client-secret/);
  assert.doesNotMatch(msg, /PRIVATE KEY/);
});

test('PIX_API_RECEIVER_ACCOUNT turns Pix Automático on: TYPE:BRANCH:ACCOUNT, checked at start', () => {
  assert.equal(loadConfig(FULL).pixApi!.receiverAccount, null);
  assert.deepEqual(loadConfig({ ...FULL, PIX_API_RECEIVER_ACCOUNT: 'CORRENTE:0001:1234567' }).pixApi!.receiverAccount, { tipoConta: 'CORRENTE', agencia: '0001', conta: '1234567' });
  assert.deepEqual(loadConfig({ ...FULL, PIX_API_RECEIVER_ACCOUNT: 'PAGAMENTO::998877' }).pixApi!.receiverAccount, { tipoConta: 'PAGAMENTO', agencia: '', conta: '998877' });
  for (const bad of ['CORRENTE:00001:123', 'SALARIO:0001:123', 'CORRENTE:0001:', '1234567']) assert.match(refused({ ...FULL, PIX_API_RECEIVER_ACCOUNT: bad }), /PIX_API_RECEIVER_ACCOUNT must be TYPE:BRANCH:ACCOUNT/);
});
