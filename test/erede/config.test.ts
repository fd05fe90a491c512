// CARD_PROVIDER=erede and its settings, checked at start: required together, HTTPS only, the PV
// without leading zeros, the soft descriptor within e.Rede's 18 characters, the CA file a PEM
// certificate; the secret never quoted. And the card breaker's settings.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { makeCertificate } from '../webhook-receiver.ts';

const cert = makeCertificate();
after(() => rmSync(cert.dir, { recursive: true, force: true }));

const FULL = {
  JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
  CARD_PROVIDER: 'erede',
  EREDE_API_URL: 'https://api.userede.com.br/erede/',
  EREDE_TOKEN_URL: 'https://api.userede.com.br/redelabs/oauth2/token',
  EREDE_CLIENT_ID: '12345678',
  EREDE_CLIENT_SECRET: 'very-secret-integration-key',
};

function refused(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    assert.ok(!err.message.includes('very-secret-integration-key'), 'the secret is never quoted');
    return err.message;
  }
  assert.fail('expected a ConfigError');
}

test('a complete e.Rede configuration: read, the URL without its trailing slash, the CA file read, the default timeout', () => {
  const c = loadConfig({ ...FULL, EREDE_SOFT_DESCRIPTOR: 'LOJA TESTE', EREDE_CA_FILE: cert.certFile });
  assert.deepEqual(c.connectors.CARD, ['erede']);
  assert.equal(c.erede?.url, 'https://api.userede.com.br/erede');
  assert.equal(c.erede?.clientId, '12345678');
  assert.equal(c.erede?.softDescriptor, 'LOJA TESTE');
  assert.match(c.erede?.ca ?? '', /BEGIN CERTIFICATE/);
  assert.equal(c.erede?.timeoutMs, 15_000);
  assert.equal(loadConfig({ JWT_SECRET: FULL.JWT_SECRET }).erede, null, 'not configured without CARD_PROVIDER or EREDE_API_URL');
});

test('CARD_PROVIDER=erede without its settings names what is missing', () => {
  assert.match(refused({ JWT_SECRET: FULL.JWT_SECRET, CARD_PROVIDER: 'erede' }), /CARD_PROVIDER=erede needs EREDE_API_URL, EREDE_TOKEN_URL, EREDE_CLIENT_ID, EREDE_CLIENT_SECRET/);
});

test('bad values are refused at start', () => {
  assert.match(refused({ ...FULL, EREDE_API_URL: 'http://api.userede.com.br/erede' }), /EREDE_API_URL must be a https URL/);
  assert.match(refused({ ...FULL, EREDE_CLIENT_ID: '012345678' }), /EREDE_CLIENT_ID must be the PV/);
  assert.match(refused({ ...FULL, EREDE_SOFT_DESCRIPTOR: 'A SOFT DESCRIPTOR TOO LONG' }), /EREDE_SOFT_DESCRIPTOR must be at most 18/);
  assert.match(refused({ ...FULL, EREDE_SOFT_DESCRIPTOR: 'LOJA*' }), /EREDE_SOFT_DESCRIPTOR/);
  assert.match(refused({ ...FULL, EREDE_CA_FILE: cert.keyFile }), /EREDE_CA_FILE must be a PEM certificate/);
  assert.match(refused({ ...FULL, EREDE_TIMEOUT_MS: '20000' }), /JANITOR_GRACE_SECONDS \(60\) must exceed three e.Rede calls/);
  assert.match(refused({ ...FULL, CARD_PROVIDER: 'erede,rede' }), /CARD_PROVIDER "rede" is not a known CARD provider/);
});

test('the card breaker: CARD_BREAKER_FAILURES and CARD_BREAKER_COOLDOWN_SECONDS, with defaults', () => {
  assert.deepEqual(loadConfig({ JWT_SECRET: FULL.JWT_SECRET }).cardBreaker, { failures: 5, cooldownMs: 30_000 });
  assert.deepEqual(loadConfig({ JWT_SECRET: FULL.JWT_SECRET, CARD_BREAKER_FAILURES: '3', CARD_BREAKER_COOLDOWN_SECONDS: '10' }).cardBreaker, { failures: 3, cooldownMs: 10_000 });
  assert.match(refused({ JWT_SECRET: FULL.JWT_SECRET, CARD_BREAKER_FAILURES: '0' }), /CARD_BREAKER_FAILURES must be between 1 and 1000/);
});
