// The efi connector's edges over the core: the webhook of the paying key, registered once the server
// listens and retried by a sweep until Efí takes it (Efí sends no Pix from a key without one), and
// the notification route the registry mounts at /api/psp/efi/webhook. A payout whose notification
// is lost is settled by the core's janitor through findPayout.
import { Type } from '@sinclair/typebox';
import type { ConnectorCore, ConnectorEdges } from '../connector.ts';
import { EFI_PROVIDER, logOf } from './mapping.ts';
import { receiveNotification, type EfiContext, type EfiPort } from './inbound.ts';

// Loose on purpose: the secret is checked first (401); Efí's test call at registration carries no `pix`.
const Item = Type.Object({ gnExtras: Type.Optional(Type.Object({ idEnvio: Type.Optional(Type.Unknown()) }, { additionalProperties: true })) }, { additionalProperties: true });
const Notification = Type.Union([Type.Object({ pix: Type.Optional(Type.Array(Item, { maxItems: 1000 })) }, { additionalProperties: true }), Type.Array(Item, { maxItems: 1000 })]);

/** Each notified payout costs a lookup at Efí: a stranger flooding the route must not spend its quota. */
const NOTIFICATIONS_PER_MINUTE = 600;

/**
 * `{BASE_URL}/api/psp/efi/webhook?hmac=<secret>&ignorar=`: Efí posts to the registered URL with
 * `/pix` appended, which `ignorar=` absorbs so that the hmac arrives as registered (Efí's example).
 */
export const webhookUrlOf = (baseUrl: string, secret: string) => `${baseUrl}/api/psp/${EFI_PROVIDER}/webhook?hmac=${secret}&ignorar=`;

export function efiEdges(efi: EfiPort, core: ConnectorCore, secret: string): ConnectorEdges & { context: EfiContext } {
  efi.webhook = { url: webhookUrlOf(core.baseUrl, secret), registered: false };
  const context: EfiContext = { efi, core, secret };
  const register = async () => {
    try {
      await efi.ensureWebhook();
    } catch (err) {
      core.log.error({ efi: logOf(err) }, 'efi: the webhook could not be registered with Efí; retried by the jobs (payouts wait for it)');
    }
  };
  return {
    context,
    routes: [
      {
        paths: ['/webhook', '/webhook/pix'],
        operationId: 'receiveEfiNotification',
        summary: "Efí's notification of the paying key (a Pix sent, or received)",
        description:
          '`{ "pix": [ { "endToEndId": ..., "status": ..., "gnExtras": { "idEnvio": ... } } ] }` with `?hmac=` = EFI_WEBHOOK_SECRET (else 401). Each sent Pix is looked up at Efí (GET /v2/gn/pix/enviados/id-envio/{idEnvio}) and only its state there is applied; items without an idEnvio and idEnvios Efí does not know change nothing.',
        body: Notification,
        perMinute: NOTIFICATIONS_PER_MINUTE,
        handle: async (body, _headers, query) => {
          await receiveNotification(context, body, query);
        },
      },
    ],
    start: register,
    sweeps: [
      {
        name: 'webhook',
        batch: Infinity,
        run: async () => {
          await register();
          return 0;
        },
      },
    ],
  };
}
