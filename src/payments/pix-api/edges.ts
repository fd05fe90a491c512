// The API Pix connector's edges over the core: where the PSP notifies (registered once the server
// listens, retried by a sweep), the notification routes, and the sweeps.
import type { ConnectorCore, ConnectorEdges } from '../connector.ts';
import { PIX_API_PROVIDER } from './mapping.ts';
import { pixApiRoutes } from './routes.ts';
import { syncRefunds, type PixApiContext, type PixApiPsp } from './settle.ts';
import { ensureWebhook, expireCharges, reconcile, syncRecurring } from './sweeps.ts';

export function pixApiEdges(psp: PixApiPsp, core: ConnectorCore): ConnectorEdges & { context: PixApiContext } {
  const base = `${core.baseUrl}/api/psp/${PIX_API_PROVIDER}`;
  const context: PixApiContext = { psp, core, log: core.log, webhookUrl: `${base}/pix`, recWebhookUrl: `${base}/rec`, cobrWebhookUrl: `${base}/cobr` };
  return {
    context,
    routes: pixApiRoutes(context),
    start: async () => {
      await ensureWebhook(context);
    },
    sweeps: [
      {
        name: 'webhook',
        batch: Infinity,
        run: async () => {
          await ensureWebhook(context);
          return 0;
        },
      },
      { name: 'reconcile', batch: Infinity, run: (now) => reconcile(context, now) },
      { name: 'expire', batch: 50, run: (now) => expireCharges(context, now, 50) },
      { name: 'refunds', batch: 50, run: (now) => syncRefunds(context, now, 50) },
      { name: 'recurring', batch: Infinity, run: (now) => syncRecurring(context, now, 50) },
    ],
  };
}
