// The cielo connector's edges over the core: the Notification Post route, mounted by the registry at
// /api/psp/cielo/notifications. No sweeps: a charge or refund whose answer was lost is settled by
// the core's janitor through findCharge / findRefund.
import { Type } from '@sinclair/typebox';
import type { ConnectorCore, ConnectorEdges } from '../connector.ts';
import { receiveNotification, type CieloContext } from './inbound.ts';
import type { CieloConfig } from '../../config.ts';

// Loose on purpose: the secret is checked first (401), then PaymentId (a GUID) in the handler.
const Notification = Type.Object(
  {
    PaymentId: Type.Optional(Type.String({ maxLength: 64 })),
    ChangeType: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 99 }), Type.String({ maxLength: 2 })])),
    RecurrentPaymentId: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  },
  { additionalProperties: true },
);

/** Each notification costs a call to Cielo: a stranger flooding the route must not spend its quota. */
const NOTIFICATIONS_PER_MINUTE = 600;

export function cieloEdges(cielo: { parts: CieloContext['parts']; config: Pick<CieloConfig, 'notificationSecret'> }, core: ConnectorCore): ConnectorEdges & { context: CieloContext } {
  const context: CieloContext = { parts: { ...cielo.parts, log: core.log }, core, secret: cielo.config.notificationSecret };
  return {
    context,
    routes: [
      {
        paths: ['/notifications'],
        operationId: 'receiveCieloNotification',
        summary: "Cielo's Notification Post (a card sale's status changed)",
        description:
          '`{ "PaymentId": ..., "ChangeType": ..., "RecurrentPaymentId": ... }` with the header `X-Notification-Secret` registered with Cielo Support (else 401). The sale is read from Cielo (GET /1/sales/{PaymentId}) before anything changes; unknown sales are ignored.',
        body: Notification,
        perMinute: NOTIFICATIONS_PER_MINUTE,
        handle: async (body, headers) => {
          await receiveNotification(context, body, headers);
        },
      },
    ],
    sweeps: [],
  };
}
