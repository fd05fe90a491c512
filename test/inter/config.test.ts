// BOLETO_PROVIDER=inter and its settings: required together, checked at start (https URLs, PEM files,
// an account of digits), the token URL Inter's by default, the secret never quoted in a message.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { makeCertificate } from '../webhook-receiver.ts';

const cert = makeCertificate();
after(() => rmSync(cert.dir, { recursive: true, force: true }));

const SECRET = 'inter-client-secret-0123456789';
const FULL = {
  JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
  BOLETO_PROVIDER: 'inter',
  INTER_API_URL: 'https://cdpj.partners.bancointer.com.br/',
  INTER_CLIENT_ID: 'client-id',
  INTER_CLIENT_SECRET: SECRET,
  INTER_CERT_FILE: cert.certFile,
  INTER_KEY_FILE: cert.keyFile,
};

function refused(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    assert.ok(!err.message.includes(SECRET), 'the secret quoted in a message');
    return err.message;
  }
  assert.fail('expected a ConfigError');
}

test('BOLETO_PROVIDER=inter with its settings: Inter token URL by default, the account optional', () => {
  const c = loadConfig(FULL).inter!;
  assert.equal(c.url, 'https://cdpj.partners.bancointer.com.br');
  assert.equal(c.tokenUrl, 'https://cdpj.partners.bancointer.com.br/oauth/v2/token');
  assert.equal(c.account, null);
  assert.equal(loadConfig({ ...FULL, INTER_ACCOUNT: '12345678' }).inter?.account, '12345678');
  assert.equal(loadConfig({ ...FULL, INTER_ACCOUNT: '0001234567-8' }).inter?.account, '12345678');
  assert.deepEqual(loadConfig(FULL).connectors.BOLETO, ['inter']);
});

test('what is missing or wrong stops the start, named', () => {
  const { INTER_CLIENT_SECRET: _s, INTER_CERT_FILE: _c, ...missing } = FULL;
  assert.match(refused(missing), /BOLETO_PROVIDER=inter needs INTER_CLIENT_SECRET, INTER_CERT_FILE/);
  assert.match(refused({ ...FULL, INTER_API_URL: 'http://cdpj.partners.bancointer.com.br' }), /INTER_API_URL/);
  assert.match(refused({ ...FULL, INTER_ACCOUNT: '12a3' }), /INTER_ACCOUNT/);
  assert.match(refused({ ...FULL, INTER_KEY_FILE: cert.certFile }), /INTER_KEY_FILE/);
  assert.match(refused({ ...FULL, BOLETO_RECONCILE_MINUTES: '0' }), /BOLETO_RECONCILE_MINUTES/);
});
