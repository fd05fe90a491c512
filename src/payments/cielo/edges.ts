// The cielo connector's edges over the core: the Notification Post route, mounted by the registry at
// /api/psp/cielo/notifications, and with CIELO_CHARGEBACK_* set Cielo's two chargeback webhooks at
// /api/psp/cielo/chargebacks and /api/psp/cielo/chargebacks/lifecycle. No sweeps: a charge or refund whose answer was lost is settled by
// the core's janitor through findCharge / findRefund.
import { Type } from '@sinclair/typebox';
import type { ConnectorCore, ConnectorEdges } from '../connector.ts';
import { receiveNotification, type CieloContext } from './inbound.ts';
import type { CieloConfig } from '../../config.ts';
import type { CaseParts } from './chargeback-cases.ts';
import { receiveChargebackNotice, type ChargebackContext } from './chargeback-inbound.ts';

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

// Loose too: the secret first (401), then the id (digits) in the handler; the case is read from Cielo.
const CaseNotice = Type.Object(
  {
    idCase: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ maxLength: 20 })])),
    caseId: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ maxLength: 20 })])),
  },
  { additionalProperties: true },
);

type Cielo = { parts: CieloContext['parts']; config: Pick<CieloConfig, 'notificationSecret'>; chargebacks: { parts: CaseParts } | null };

export function cieloEdges(cielo: Cielo, core: ConnectorCore): ConnectorEdges & { context: CieloContext } {
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
      ...(cielo.chargebacks ? chargebackRoutes({ parts: { ...cielo.chargebacks.parts, log: core.log }, core, secret: cielo.config.notificationSecret }) : []),
    ],
    sweeps: [],
  };
}

/** Cielo's chargeback webhooks (Chargeback API manual, "Webhooks"): a new case, a lifecycle step. */
function chargebackRoutes(ctx: ChargebackContext): ConnectorEdges['routes'] {
  const secret = 'with the header `X-Notification-Secret` = CIELO_NOTIFICATION_SECRET (else 401)';
  return [
    {
      paths: ['/chargebacks'],
      operationId: 'receiveCieloChargeback',
      summary: "Cielo's new-chargeback webhook (Chargeback API)",
      description: `A pending case as Cielo's Chargeback API shows it ({ "idCase": ..., "idChargeback": ..., ... }) ${secret}. The case is read from the Chargeback API and its sale from the E-commerce API before anything changes; unknown cases are ignored.`,
      body: CaseNotice,
      perMinute: NOTIFICATIONS_PER_MINUTE,
      handle: (body, headers) => receiveChargebackNotice(ctx, 'new', body, headers),
    },
    {
      paths: ['/chargebacks/lifecycle'],
      operationId: 'receiveCieloChargebackLifecycle',
      summary: "Cielo's chargeback lifecycle webhook (Chargeback API)",
      description: `{ "establishmentNumber": ..., "caseId": ..., "message": ..., "executionDate": ..., "ActionCicleDate": ... } ${secret}. The case's lifecycle is read from the Chargeback API (GET /chargeback/v1/lifecycle/{idCase}): "A favor do Estabelecimento" wins it, "A favor do Emissor" loses it.`,
      body: CaseNotice,
      perMinute: NOTIFICATIONS_PER_MINUTE,
      handle: (body, headers) => receiveChargebackNotice(ctx, 'lifecycle', body, headers),
    },
  ];
}
