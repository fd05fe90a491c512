// PAYOUT_PROVIDER=efi and its settings: required together, checked at start (https URLs, PEM files,
// a webhook secret that can travel in a URL), the secrets never quoted in a message; the registry
// builds the connector for the PAYOUT rail only when it is configured.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/index.ts';
import { buildRegistry } from '../../src/payments/catalogue.ts';
import { makeCertificate } from '../webhook-receiver.ts';

const cert = makeCertificate();
after(() => rmSync(cert.dir, { recursive: true, force: true }));

const CLIENT_SECRET = 'Client_Secret_0123456789abcdef';
const HOOK_SECRET = 'hook-secret-0123456789';
const FULL = {
  JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
  PAYOUT_PROVIDER: 'efi',
  EFI_API_URL: 'https://pix.api.efipay.com.br/',
  EFI_CLIENT_ID: 'Client_Id_0123',
  EFI_CLIENT_SECRET: CLIENT_SECRET,
  EFI_CERT_FILE: cert.certFile,
  EFI_KEY_FILE: cert.keyFile,
  EFI_PAYING_KEY: 'pagamentos@loja.example',
  EFI_WEBHOOK_SECRET: HOOK_SECRET,
};

function refused(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    assert.ok(!err.message.includes(CLIENT_SECRET) && !err.message.includes(HOOK_SECRET), 'a secret quoted in a message');
    return err.message;
  }
  assert.fail('expected a ConfigError');
}

test('PAYOUT_PROVIDER=efi with its settings: configured (URL without trailing slash, token URL from its origin, PEM texts read)', () => {
  const c = loadConfig(FULL);
  assert.deepEqual(c.connectors.PAYOUT, ['efi']);
  assert.equal(c.efi?.url, 'https://pix.api.efipay.com.br');
  assert.equal(c.efi?.tokenUrl, 'https://pix.api.efipay.com.br/oauth/token');
  assert.deepEqual([c.efi?.cert.includes('BEGIN CERTIFICATE'), c.efi?.key.includes('PRIVATE KEY'), c.efi?.ca], [true, true, null]);
  assert.deepEqual([c.efi?.payingKey, c.efi?.webhookSecret, c.efi?.clientSecret], ['pagamentos@loja.example', HOOK_SECRET, CLIENT_SECRET]);
  const other = loadConfig({ ...FULL, EFI_TOKEN_URL: 'https://auth.example/oauth/token', EFI_CA_FILE: cert.certFile }).efi;
  assert.deepEqual([other?.tokenUrl, other?.ca?.includes('BEGIN CERTIFICATE')], ['https://auth.example/oauth/token', true]);
});

test('without PAYOUT_PROVIDER=efi nor EFI_API_URL there is no efi connector; EFI_API_URL alone keeps it (it follows what it sent)', () => {
  const { PAYOUT_PROVIDER: _p, EFI_API_URL: _u, ...rest } = FULL;
  assert.equal(loadConfig(rest).efi, null);
  const { PAYOUT_PROVIDER: _q, ...kept } = FULL;
  const c = loadConfig(kept);
  assert.deepEqual([c.connectors.PAYOUT, c.efi?.url], [[], 'https://pix.api.efipay.com.br']);
});

test('PAYOUT_PROVIDER=efi without its settings: a start error naming every one missing, secrets never quoted', () => {
  assert.match(refused({ JWT_SECRET: FULL.JWT_SECRET, PAYOUT_PROVIDER: 'efi' }), /PAYOUT_PROVIDER=efi needs EFI_API_URL, EFI_CLIENT_ID, EFI_CLIENT_SECRET, EFI_CERT_FILE, EFI_KEY_FILE, EFI_PAYING_KEY, EFI_WEBHOOK_SECRET/);
  const { EFI_WEBHOOK_SECRET: _s, EFI_KEY_FILE: _k, ...partial } = FULL;
  assert.match(refused(partial), /PAYOUT_PROVIDER=efi needs EFI_KEY_FILE, EFI_WEBHOOK_SECRET$/m);
  const { PAYOUT_PROVIDER: _p, EFI_CLIENT_ID: _c, ...keptPartial } = FULL;
  assert.match(refused(keptPartial), /EFI_API_URL \(the efi connector\) needs EFI_CLIENT_ID/);
});

test('http URLs, files that are not PEM, a short or URL-unsafe webhook secret, a paying key over 77 characters', () => {
  assert.match(refused({ ...FULL, EFI_API_URL: 'http://pix.api.efipay.com.br' }), /EFI_API_URL must be a https URL/);
  assert.match(refused({ ...FULL, EFI_TOKEN_URL: 'http://pix.api.efipay.com.br/oauth/token' }), /EFI_TOKEN_URL must be a https URL/);
  assert.match(refused({ ...FULL, EFI_CERT_FILE: cert.keyFile }), /EFI_CERT_FILE must be a PEM certificate/);
  assert.match(refused({ ...FULL, EFI_KEY_FILE: cert.certFile }), /EFI_KEY_FILE must be a PEM private key/);
  assert.match(refused({ ...FULL, EFI_CA_FILE: '/nonexistent.pem' }), /EFI_CA_FILE cannot be read/);
  assert.match(refused({ ...FULL, EFI_WEBHOOK_SECRET: 'short' }), /EFI_WEBHOOK_SECRET must be 16 to 128 letters/);
  const unsafe = 'a-long-secret&with=symbols';
  const message = refused({ ...FULL, EFI_WEBHOOK_SECRET: unsafe });
  assert.ok(message.includes('EFI_WEBHOOK_SECRET') && !message.includes(unsafe));
  assert.match(refused({ ...FULL, EFI_PAYING_KEY: 'x'.repeat(78) }), /EFI_PAYING_KEY must be a Pix key of at most 77/);
});

test('PAYOUT_PROVIDER names only known payout connectors (efi among them)', () => {
  assert.match(refused({ ...FULL, PAYOUT_PROVIDER: 'acme' }), /PAYOUT_PROVIDER "acme" is not a known payout provider \(known: efi, sandbox\)/);
});

test('the registry builds efi for production payouts when configured, and not otherwise', () => {
  const log = { info() {}, warn() {}, error() {} };
  const db = null as unknown as Db;
  const registry = buildRegistry(loadConfig(FULL), db, log);
  try {
    const c = registry.forNew(true, 'PAYOUT');
    assert.deepEqual([c.name, c.rails], ['efi', ['PAYOUT']]);
    assert.equal(registry.forNew(false, 'PAYOUT').name, 'sandbox');
  } finally {
    registry.close();
  }
  const { PAYOUT_PROVIDER: _p, EFI_API_URL: _u, ...rest } = FULL;
  const none = buildRegistry(loadConfig(rest), db, log);
  assert.equal(none.find('efi'), undefined);
  assert.equal(none.offers(true, 'PAYOUT'), false);
});
