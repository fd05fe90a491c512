// A Cofre app wired to the fake PSP (PIX_PROVIDER=bcb-api, the PSP's certificates made at test
// time), listening on a loopback port so that the PSP's notifications reach {BASE_URL}/api/psp/bcb-api/pix.
import type { App } from '../../src/deps.ts';
import type { PixApiContext } from '../../src/payments/pix-api/settle.ts';
import { freePort, startApp, type TestContext } from '../helpers.ts';
import { startFakePsp, type FakePsp } from '../fake-psp/server.ts';

export const PIX_KEY = 'pix@loja.example';

export function pspEnv(psp: FakePsp): Record<string, string> {
  return {
    PIX_PROVIDER: 'bcb-api',
    PIX_API_URL: psp.apiUrl,
    PIX_API_CLIENT_ID: psp.clientId,
    PIX_API_CLIENT_SECRET: psp.clientSecret,
    PIX_API_CERT_FILE: psp.clientCertFile,
    PIX_API_KEY_FILE: psp.clientKeyFile,
    PIX_API_CA_FILE: psp.caFile,
    PIX_KEY,
  };
}

export async function startWithPsp(env: Record<string, string> = {}): Promise<{ ctx: TestContext; psp: FakePsp; baseUrl: string; close(): Promise<void> }> {
  const psp = await startFakePsp({ keys: [PIX_KEY] });
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const ctx = await startApp({ env: { ...pspEnv(psp), BASE_URL: baseUrl, ...env } });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  return {
    ctx,
    psp,
    baseUrl,
    async close() {
      await ctx.close();
      await psp.close();
    },
  };
}

/** Waits until `check` holds (notifications are handled while the PSP's request is answered). */
export async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not met in time');
}

/** The API Pix connector's edges in this app (its notifications' and sweeps' context). */
export function pixContext(app: App): PixApiContext {
  const edges = app.deps.connectors.edges('bcb-api') as unknown as { context: PixApiContext } | undefined;
  if (!edges) throw new Error('the bcb-api connector is not configured in this app');
  return edges.context;
}
