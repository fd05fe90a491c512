// The client secret, the private key, the webhook secret and Efí's access tokens stay out of the
// logs, whatever happens: sends of every outcome, refusals, lost answers, forged notifications, a
// registration Efí refuses, credentials Efí refuses. The gateway's own logger is used (its
// redaction included), and the connector is shown to have logged, so the check means something.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { EfiConnector } from '../../src/payments/efi/connector.ts';
import type { ConnectorCore } from '../../src/payments/connector.ts';
import { efiEnv, EFI_TEST_WEBHOOK_SECRET } from '../fake-efi/env.ts';
import { payout, startKit, type Kit } from './kit.ts';

let k: Kit;
before(async () => {
  k = await startKit();
});
after(async () => {
  await k.close();
});

test('no secret, key or token in any log line', async () => {
  // A registration Efí refuses (the URL answers 401 to its call), then the right one.
  const edges = k.edges;
  k.efi.behaviour.pingOnRegister = true;
  const hook = k.connector.webhook!;
  const right = hook.url;
  hook.url = right.replace(EFI_TEST_WEBHOOK_SECRET, 'wrong-secret-0123456789');
  await edges.start!();
  hook.url = right;
  await edges.sweeps[0].run(new Date());
  assert.equal(hook.registered, true);

  k.efi.behaviour.failKeys.add('fail@example.com');
  k.efi.behaviour.refuseKeys.set('nobody@example.com', { nome: 'chave_nao_encontrada', mensagem: 'A chave informada não foi encontrada' });
  k.efi.behaviour.refuseKeys.set('blocked@example.com', { nome: 'documento_bloqueado', mensagem: 'O documento desta conta tem bloqueios' });
  await k.connector.sendPayout(payout('s1', 100, { key: 'ok@example.com' }));
  await k.connector.sendPayout(payout('s2', 100, { key: 'fail@example.com' }));
  await k.connector.sendPayout(payout('s3', 100, { key: 'nobody@example.com' }));
  await assert.rejects(k.connector.sendPayout(payout('s4', 100, { key: 'blocked@example.com' })));
  k.efi.dropAnswer('PUT', '/v3/gn/pix/');
  await k.connector.sendPayout(payout('s5', 100, { key: 'ok@example.com' }));
  k.efi.unauthorizedOnce();
  await k.connector.findPayout('s5');
  await k.efi.post([{ gnExtras: { idEnvio: 'forged1' } }]);
  await k.efi.post([{ gnExtras: { idEnvio: 's1' } }], { hmac: 'guess-0123456789abcdef' });
  k.efi.failNext(3, 503, '/v2/gn/pix/enviados/');
  await k.efi.notify('s1');
  await k.efi.idle();

  // Credentials Efí refuses: the registration's error is logged.
  const lines: string[] = [];
  const log = createLogger({ logLevel: 'info' }, new Writable({ write: (c, _e, cb) => void (lines.push(String(c)), cb()) }));
  const config = loadConfig({ JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789', ...efiEnv(k.efi), EFI_CLIENT_SECRET: 'Client_Secret_wrong_0123456789' }).efi!;
  const refusedConnector = new EfiConnector(config, log, { retries: 0 });
  try {
    await refusedConnector.edges({ baseUrl: k.baseUrl, log } as unknown as ConnectorCore).start!();
  } finally {
    refusedConnector.close();
  }

  const logs = [...k.logs, ...lines].join('');
  assert.ok(logs.includes('efi:'), 'the connector did log');
  assert.ok(logs.includes('webhook registered') && logs.includes('could not be registered') && logs.includes('documento_bloqueado'));
  const tokens = k.efi.requests.map((r) => String(r.headers.authorization ?? '')).filter((a) => a.startsWith('Bearer ')).map((a) => a.slice(7));
  assert.ok(tokens.length > 0);
  const key = readFileSync(k.efi.clientKeyFile, 'utf8').split('\n')[1];
  for (const [what, secret] of [
    ['the client secret', k.efi.clientSecret],
    ['the refused client secret', 'Client_Secret_wrong_0123456789'],
    ['the webhook secret', EFI_TEST_WEBHOOK_SECRET],
    ['a line of the private key', key],
    ...tokens.map((t) => ['an access token', t]),
  ]) {
    assert.ok(!logs.includes(secret), `${what} in the logs`);
  }
});
