// CARD_PROVIDER=cielo and its settings: required together, checked at start (https URLs, a GUID
// merchant id, a soft descriptor of at most 13 characters, a CA file that is a certificate), the
// secrets never quoted in a message.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { makeCertificate } from '../webhook-receiver.ts';
import { rmSync } from 'node:fs';

const cert = makeCertificate();
after(() => rmSync(cert.dir, { recursive: true, force: true }));

const KEY = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCD';
const NOTIFY = 'a-long-notification-secret';
const FULL = {
  JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
  CARD_PROVIDER: 'cielo',
  CIELO_API_URL: 'https://api.cieloecommerce.cielo.com.br/',
  CIELO_QUERY_URL: 'https://apiquery.cieloecommerce.cielo.com.br',
  CIELO_MERCHANT_ID: '8937bd5b-9796-494d-9fe5-f76b3e4da633',
  CIELO_MERCHANT_KEY: KEY,
  CIELO_SOFT_DESCRIPTOR: 'LOJA COFRE',
  CIELO_NOTIFICATION_SECRET: NOTIFY,
};

function refused(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    assert.ok(!err.message.includes(KEY) && !err.message.includes(NOTIFY), 'a secret quoted in a message');
    return err.message;
  }
  assert.fail('expected a ConfigError');
}

test('CARD_PROVIDER=cielo with its settings: the connector is configured (URLs without trailing slash, default time limit)', () => {
  const c = loadConfig(FULL);
  assert.deepEqual(c.connectors.CARD, ['cielo']);
  assert.equal(c.cielo?.apiUrl, 'https://api.cieloecommerce.cielo.com.br');
  assert.equal(c.cielo?.softDescriptor, 'LOJA COFRE');
  assert.equal(c.cielo?.timeoutMs, 15_000);
  assert.equal(c.cielo?.ca, null);
  assert.equal(loadConfig({ ...FULL, CIELO_CA_FILE: cert.certFile }).cielo?.ca?.includes('BEGIN CERTIFICATE'), true);
  // Ahead of the sandbox in a failover list, too.
  assert.deepEqual(loadConfig({ ...FULL, CARD_PROVIDER: 'cielo,sandbox' }).connectors.CARD, ['cielo', 'sandbox']);
});

test('without CARD_PROVIDER=cielo nor CIELO_API_URL there is no Cielo connector', () => {
  const { CARD_PROVIDER: _p, CIELO_API_URL: _u, ...rest } = FULL;
  assert.equal(loadConfig(rest).cielo, null);
});

test('missing settings are named; secrets never quoted', () => {
  assert.match(refused({ JWT_SECRET: FULL.JWT_SECRET, CARD_PROVIDER: 'cielo' }), /CARD_PROVIDER=cielo needs CIELO_API_URL, CIELO_QUERY_URL, CIELO_MERCHANT_ID, CIELO_MERCHANT_KEY, CIELO_SOFT_DESCRIPTOR, CIELO_NOTIFICATION_SECRET/);
});

test('a soft descriptor over 13 characters (or with accents) is refused at start', () => {
  assert.match(refused({ ...FULL, CIELO_SOFT_DESCRIPTOR: 'LOJA COFRE SP1' }), /CIELO_SOFT_DESCRIPTOR must be at most 13/);
  assert.match(refused({ ...FULL, CIELO_SOFT_DESCRIPTOR: 'CAFÉ' }), /CIELO_SOFT_DESCRIPTOR/);
});

test('http URLs, a merchant id that is not a GUID, a short notification secret, a CA file that is no certificate', () => {
  assert.match(refused({ ...FULL, CIELO_API_URL: 'http://api.cieloecommerce.cielo.com.br' }), /CIELO_API_URL must be a https URL/);
  assert.match(refused({ ...FULL, CIELO_MERCHANT_ID: '12345' }), /CIELO_MERCHANT_ID must be the GUID/);
  assert.match(refused({ ...FULL, CIELO_NOTIFICATION_SECRET: 'short' }), /CIELO_NOTIFICATION_SECRET must be at least 16/);
  assert.match(refused({ ...FULL, CIELO_MERCHANT_KEY: `${KEY}!` }), /CIELO_MERCHANT_KEY must be/);
  assert.match(refused({ ...FULL, CIELO_CA_FILE: cert.keyFile }), /CIELO_CA_FILE must be a PEM certificate/);
  assert.match(refused({ ...FULL, CIELO_TIMEOUT_MS: '5' }), /CIELO_TIMEOUT_MS/);
});

test('CARD_PROVIDER names only known card connectors', () => {
  assert.match(refused({ ...FULL, CARD_PROVIDER: 'acme' }), /CARD_PROVIDER "acme" is not a known CARD provider \(known: [^)]*cielo/);
});

const CB_SECRET = 'chargeback-client-secret-0123';
const CHARGEBACK = {
  CIELO_CHARGEBACK_URL: 'https://api-internet.cielo.com.br/cielo-chargeback-sys-external/',
  CIELO_CHARGEBACK_TOKEN_URL: 'https://api-internet.cielo.com.br/cielo-security-sys-web/oauth/v2/MulesoftPRD/protocol/openid-connect/token',
  CIELO_CHARGEBACK_CLIENT_ID: 'client-id',
  CIELO_CHARGEBACK_CLIENT_SECRET: CB_SECRET,
  CIELO_CHARGEBACK_CERT_FILE: cert.certFile,
  CIELO_CHARGEBACK_KEY_FILE: cert.keyFile,
  CIELO_CHARGEBACK_MAIN_CUSTOMER: '1024162076',
  CIELO_CHARGEBACK_USER_NAME: 'chargebacks@loja.example',
};

test("Cielo's Chargeback API: all CIELO_CHARGEBACK_* or none, each checked at start, the client secret never quoted", () => {
  assert.equal(loadConfig(FULL).cielo?.chargeback, null, 'none set: chargebacks are answered on Cielo\'s site');
  const cb = loadConfig({ ...FULL, ...CHARGEBACK }).cielo?.chargeback;
  assert.equal(cb?.url, 'https://api-internet.cielo.com.br/cielo-chargeback-sys-external');
  assert.deepEqual([cb?.mainCustomer, cb?.userName, cb?.cert.includes('BEGIN CERTIFICATE'), cb?.key.includes('PRIVATE KEY')], ['1024162076', 'chargebacks@loja.example', true, true]);
  const bad = (over: Record<string, string>) => {
    const message = refused({ ...FULL, ...CHARGEBACK, ...over });
    assert.ok(!message.includes(CB_SECRET), 'the client secret quoted in a message');
    return message;
  };
  const { CIELO_CHARGEBACK_KEY_FILE: _k, CIELO_CHARGEBACK_USER_NAME: _u, ...partial } = CHARGEBACK;
  assert.match(refused({ ...FULL, ...partial }), /missing CIELO_CHARGEBACK_KEY_FILE, CIELO_CHARGEBACK_USER_NAME/);
  assert.match(bad({ CIELO_CHARGEBACK_URL: 'http://api-internet.cielo.com.br' }), /CIELO_CHARGEBACK_URL must be a https URL/);
  assert.match(bad({ CIELO_CHARGEBACK_MAIN_CUSTOMER: '10241620761' }), /CIELO_CHARGEBACK_MAIN_CUSTOMER must be/);
  assert.match(bad({ CIELO_CHARGEBACK_USER_NAME: 'loja' }), /CIELO_CHARGEBACK_USER_NAME must be the e-mail/);
  assert.match(bad({ CIELO_CHARGEBACK_KEY_FILE: cert.certFile }), /CIELO_CHARGEBACK_KEY_FILE must be a PEM private key/);
  assert.match(bad({ CIELO_CHARGEBACK_CERT_FILE: '/nonexistent.pem' }), /CIELO_CHARGEBACK_CERT_FILE cannot be read/);
});
