// The efi connector inside the gateway: PAYOUT_PROVIDER=efi builds it, the registry mounts its route
// at /api/psp/efi/webhook (the query string reaches the handler), start() registers the webhook with
// the gateway's URL and Efí's call to it is answered; without the hmac, 401; the hmac never reaches
// the request logs (paths only).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { freePort, startApp, type TestContext } from '../helpers.ts';
import { efiEnv, EFI_TEST_WEBHOOK_SECRET } from '../fake-efi/env.ts';
import { startFakeEfi, type FakeEfi } from '../fake-efi/server.ts';

let ctx: TestContext;
let efi: FakeEfi;
let baseUrl: string;
before(async () => {
  efi = await startFakeEfi();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  ctx = await startApp({ env: { ...efiEnv(efi), BASE_URL: baseUrl } });
  await ctx.app.listen({ port, host: '127.0.0.1' });
});
after(async () => {
  await efi.idle();
  await ctx.close();
  await efi.close();
});

test('start registers the webhook with the gateway URL; Efí reaches the mounted route; the hmac is required and never logged', async () => {
  assert.equal(ctx.app.deps.connectors.forNew(true, 'PAYOUT').name, 'efi');
  await ctx.app.deps.connectors.start();
  assert.equal(efi.webhooks.get(efi.payingKey)?.webhookUrl, `${baseUrl}/api/psp/efi/webhook?hmac=${EFI_TEST_WEBHOOK_SECRET}&ignorar=`);
  // Registration called {webhookUrl}/pix and got a 2xx (else Efí refuses it).
  assert.equal(efi.calls('PUT', '/v2/webhook/').at(-1)?.status, 200);

  assert.equal(await efi.post([{ gnExtras: { idEnvio: 'w0000000000000000000000000000001' } }]), 200, 'an idEnvio Efí does not know: looked up, ignored');
  assert.equal(efi.calls('GET', '/v2/gn/pix/enviados/id-envio/w0000000000000000000000000000001').length, 1);
  assert.equal(await efi.post([{ gnExtras: { idEnvio: 'w1' } }], { hmac: null }), 401);
  assert.equal(await efi.post([{ gnExtras: { idEnvio: 'w1' } }], { hmac: 'not-the-secret-0123456789' }), 401);
  const res = await ctx.app.inject({ method: 'POST', url: `/api/psp/efi/webhook/pix?hmac=${EFI_TEST_WEBHOOK_SECRET}`, payload: { pix: [] } });
  assert.equal(res.statusCode, 200, 'also at /webhook/pix');

  const logs = ctx.logs.join('');
  assert.ok(logs.includes('/api/psp/efi/webhook'), 'the requests were logged');
  assert.ok(!logs.includes(EFI_TEST_WEBHOOK_SECRET), 'the hmac in the logs');
  assert.ok(!logs.includes(efi.clientSecret), 'the client secret in the logs');
});
