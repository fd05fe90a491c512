// The API Pix client against the fake PSP: mTLS, the token (cached, refreshed once on 401, renewed
// before expiry), retries with backoff for 5xx and timeouts, the circuit breaker, and the PSP's
// problems turned into Cofre errors that reveal nothing of the PSP.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, beforeEach, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { AppError } from '../../src/http/errors.ts';
import { PixApiClient, PixApiError } from '../../src/payments/pix-api/client.ts';
import { PixApiConnector } from '../../src/payments/pix-api/connector.ts';
import { serves } from '../../src/payments/registry.ts';
import { transactionIdOf, txidFor } from '../../src/payments/pix-api/mapping.ts';
import { startFakePsp, type FakePsp } from '../fake-psp/server.ts';
import { makeCertificate } from '../webhook-receiver.ts';
import { pspEnv } from './kit.ts';

let psp: FakePsp;
const clients: Array<{ close(): void }> = [];
before(async () => {
  psp = await startFakePsp({ keys: ['pix@loja.example'], tokenTtlSeconds: 2 });
});
after(async () => {
  for (const c of clients) c.close();
  await psp.close();
});
beforeEach(() => {
  psp.requests.length = 0;
});

const config = () => loadConfig({ JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789', ...pspEnv(psp) }).pixApi!;
function client(opts: ConstructorParameters<typeof PixApiClient>[1] = {}) {
  const c = new PixApiClient(config(), { backoffMs: 5, ...opts });
  clients.push(c);
  return c;
}
const logged: Array<{ obj: object; msg: string }> = [];
const log = { info: () => {}, warn: (obj: object, msg: string) => void logged.push({ obj, msg }), error: (obj: object, msg: string) => void logged.push({ obj, msg }) };
function provider(opts: ConstructorParameters<typeof PixApiClient>[1] = {}) {
  const p = new PixApiConnector(config(), 'pix@loja.example', log, { backoffMs: 5, ...opts });
  clients.push(p);
  return p;
}
const pixRequest = (id: string) => ({ transactionId: id, amountCents: 1000, expiresAt: new Date(Date.now() + 3600_000), payer: { name: 'Maria', email: 'm@example.com', document: '52998224725' }, description: 'Curso' });

test('txid: 32 alphanumerics derived from the transaction id, and back', () => {
  const id = '01935f4e-8a2b-7c3d-9e4f-a5b6c7d8e9f0';
  assert.match(txidFor(id), /^[a-z0-9]{26,35}$/);
  assert.equal(transactionIdOf(txidFor(id)), id);
  assert.equal(transactionIdOf('abc'), null);
  assert.equal(transactionIdOf(undefined), null);
});

test('with a client certificate the PSP does not trust, nothing is reached', async () => {
  const other = makeCertificate();
  try {
    const c = new PixApiClient({ ...config(), cert: readFileSync(other.certFile, 'utf8'), key: readFileSync(other.keyFile, 'utf8') }, { retries: 0 });
    clients.push(c);
    const before = psp.requests.length;
    await assert.rejects(c.call('GET', '/cob/' + 'a'.repeat(32)), (err: unknown) => err instanceof PixApiError && err.kind === 'unavailable');
    assert.equal(psp.requests.length, before);
  } finally {
    rmSync(other.dir, { recursive: true, force: true });
  }
});

test('the token is asked with client credentials and the scopes, cached, and renewed shortly before it expires', async () => {
  const c = client();
  const issued = psp.tokensIssued;
  await assert.rejects(c.call('GET', '/cob/' + 'a'.repeat(32)), (e: unknown) => e instanceof PixApiError && e.kind === 'not_found');
  await assert.rejects(c.call('GET', '/cob/' + 'a'.repeat(32)), (e: unknown) => e instanceof PixApiError && e.kind === 'not_found');
  assert.equal(psp.tokensIssued, issued + 1);
  // A 2 s token is used for half its life at most.
  await new Promise((r) => setTimeout(r, 1100));
  await assert.rejects(c.call('GET', '/cob/' + 'a'.repeat(32)));
  assert.equal(psp.tokensIssued, issued + 2);
});

test('a 401 for a cached token fetches a new one once and the call succeeds', async () => {
  const p = provider();
  await p.createPix(pixRequest('01935f4e-8a2b-7c3d-9e4f-000000000001'));
  const issued = psp.tokensIssued;
  psp.unauthorizedOnce();
  const state = await p.chargeState('01935f4e-8a2b-7c3d-9e4f-000000000001');
  assert.equal(state.status, 'ATIVA');
  assert.equal(psp.tokensIssued, issued + 1);
});

test('a 401 again after the new token: a 502 that blames the gateway\'s credentials, not the payer\'s data', async () => {
  const p = provider();
  psp.unauthorizedOnce();
  psp.unauthorizedOnce();
  await assert.rejects(p.createPix(pixRequest('01935f4e-8a2b-7c3d-9e4f-000000000003')), (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.status, 502);
    assert.match(err.message, /credentials/);
    assert.doesNotMatch(err.message, /payer/);
    return true;
  });
});

test('scopes: a contract without cob.write answers a Cofre 502 that names nothing of the PSP', async () => {
  psp.grantable.delete('cob.write');
  try {
    const p = provider();
    await assert.rejects(p.createPix(pixRequest('01935f4e-8a2b-7c3d-9e4f-000000000002')), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.status, 502);
      assert.doesNotMatch(err.message, /scope|invalid_scope|cob\.write|pix\.bcb/);
      return true;
    });
  } finally {
    psp.grantable.add('cob.write');
  }
});

test('5xx and timeouts are retried with backoff; a retried PUT creates one charge', async () => {
  const p = provider({ timeoutMs: 300 });
  psp.failNext(2, 503);
  const id = '01935f4e-8a2b-7c3d-9e4f-000000000003';
  const charge = await p.createPix(pixRequest(id));
  assert.equal(charge.txid, txidFor(id));
  assert.equal(psp.calls('PUT', '/cob/').length, 3);
  psp.delayNext(1, 600);
  await p.createPix(pixRequest(id));
  assert.equal([...psp.cobs.keys()].filter((t) => t === txidFor(id)).length, 1);
  assert.equal(psp.cobs.get(txidFor(id))!.revisao, 0);
});

test('the PSP\'s RFC 7807 problem goes to the logs (type, violated properties), the merchant gets a Cofre error', async () => {
  const p = new PixApiConnector(config(), 'not-our-key@example.com', log, { backoffMs: 5 });
  clients.push(p);
  logged.length = 0;
  await assert.rejects(p.createPix(pixRequest('01935f4e-8a2b-7c3d-9e4f-000000000004')), (err: unknown) => err instanceof AppError && err.status === 502 && !/chave|CobOperacaoInvalida/.test(err.message));
  const entry = logged.find((l) => l.msg.startsWith('pix-api'))!;
  const pixApi = (entry.obj as { pixApi: { type: string; violations: string[] } }).pixApi;
  assert.equal(pixApi.type, 'CobOperacaoInvalida');
  assert.deepEqual(pixApi.violations, ['cob.chave']);
  assert.doesNotMatch(JSON.stringify(entry), /not-our-key/);
});

test('circuit breaker: after repeated failures calls answer 503 at once without reaching the PSP, then one trial closes it', async () => {
  const p = provider({ retries: 0, breakerThreshold: 3, breakerCooldownMs: 300, timeoutMs: 5000 });
  psp.failNext(3, 503);
  for (let i = 0; i < 3; i++) await assert.rejects(p.createPix(pixRequest('01935f4e-8a2b-7c3d-9e4f-000000000005')), (e: unknown) => e instanceof AppError && e.status === 503);
  const before = psp.requests.length;
  const started = Date.now();
  await assert.rejects(p.createPix(pixRequest('01935f4e-8a2b-7c3d-9e4f-000000000005')), (e: unknown) => e instanceof AppError && e.status === 503 && /unavailable/.test(e.message));
  // At once: no request, no waiting on the 5 s timeout (the bound leaves room for a loaded machine).
  assert.ok(Date.now() - started < 1000, `answered after ${Date.now() - started} ms`);
  assert.equal(psp.requests.length, before, 'no request while the circuit is open');
  assert.equal(p.client.breaker.state, 'open');
  await new Promise((r) => setTimeout(r, 350));
  assert.equal(p.client.breaker.state, 'half-open');
  await p.createPix(pixRequest('01935f4e-8a2b-7c3d-9e4f-000000000005'));
  assert.equal(p.client.breaker.state, 'closed');
});

test('a 4xx problem does not open the circuit (the PSP is up)', async () => {
  const p = provider({ retries: 0, breakerThreshold: 2 });
  for (let i = 0; i < 3; i++) await assert.rejects(p.client.call('GET', '/pix/' + 'E'.repeat(32)), (e: unknown) => e instanceof PixApiError && e.kind === 'not_found');
  assert.equal(p.client.breaker.state, 'closed');
});

test('the API Pix connector serves PIX (and Pix Automático with a receiving account), never card or boleto', async () => {
  const p = provider();
  assert.equal(serves(p, 'PIX'), true);
  assert.equal(serves(p, 'CARD'), false);
  assert.equal(serves(p, 'BOLETO'), false);
  assert.equal(serves(p, 'PIX_AUTOMATICO'), p.account !== null);
});
