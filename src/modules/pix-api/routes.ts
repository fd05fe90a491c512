// The PSP's notifications: POST {BASE_URL}/api/psp/pix, and .../pix/pix because the standard's
// callback is `{webhookUrl}/pix` (some PSPs append it, some do not); with Pix Automático,
// {BASE_URL}/api/psp/rec (authorisations) and /api/psp/cobr (recurring charges), likewise. No credentials: nothing in a
// notification is believed (service.ts confirms each Pix with the PSP). 503 when the PSP cannot be
// asked, so that it sends the notification again.
import { Type } from '@sinclair/typebox';
import type { App } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { enforce } from '../../http/ratelimit.ts';
import { PixApiError } from '../../payments/pix-api/client.ts';
import { receiveCobrNotification, receiveNotification, receiveRecNotification } from './service.ts';

const Item = Type.Object({ endToEndId: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: true });
// An object without `pix` is accepted too: some PSPs post a test event when the webhook is
// registered and refuse the registration unless it is answered 200.
const Notification = Type.Union([Type.Object({ pix: Type.Optional(Type.Array(Item, { maxItems: 1000 })) }, { additionalProperties: true }), Type.Array(Item, { maxItems: 1000 })]);

const RecItem = Type.Object({ idRec: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: true });
const RecNotification = Type.Union([Type.Object({ recs: Type.Optional(Type.Array(RecItem, { maxItems: 1000 })) }, { additionalProperties: true }), Type.Array(RecItem, { maxItems: 1000 })]);
const CobrItem = Type.Object({ txid: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: true });
const CobrNotification = Type.Union([Type.Object({ cobsr: Type.Optional(Type.Array(CobrItem, { maxItems: 1000 })) }, { additionalProperties: true }), Type.Array(CobrItem, { maxItems: 1000 })]);

/**
 * Notifications per minute from one address. A PSP sends bursts, but each notification costs
 * lookups at the PSP (up to 100): a stranger flooding the routes must not spend the PSP quota. A
 * PSP answered 429 sends again later, and the reconciliation jobs recover anything meanwhile.
 */
export const PSP_NOTIFICATIONS_PER_MINUTE = 600;

/** Runs a notification's handling; a PSP that cannot be asked to confirm it answers 503 (the PSP sends it again). */
async function confirming(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (err) {
    if (err instanceof PixApiError && err.kind === 'unavailable') throw new AppError(503, 'The PSP cannot be reached to confirm this notification; send it again later');
    throw err;
  }
  return { message: 'OK' };
}

export default async function pixApiRoutes(app: App) {
  const deps = app.deps.pixApi;
  if (!deps) return;
  const limiter = app.deps.limiter;
  const preHandler = async (req: { ip: string }) => {
    await enforce(limiter, `psp-notify:ip:${req.ip}`, 60_000, PSP_NOTIFICATIONS_PER_MINUTE, 'Too many notifications from this address; send them again later');
  };
  app.addHook('onClose', async () => deps.provider.close());
  if (deps.provider.pixAutomatico) {
    for (const url of ['/api/psp/rec', '/api/psp/rec/rec']) {
      app.post(
        url,
        {
          schema: {
            tags: ['PSP notifications'],
            operationId: url === '/api/psp/rec' ? 'receivePspRecNotification' : 'receivePspRecNotificationRec',
            summary: 'API Pix notification of Pix Automático authorisations (webhookrec)',
            description: '`{ "recs": [ { "idRec": ... } ] }` or a bare array. Each authorisation of ours is looked up with the PSP (GET /rec/{idRec}); its state there drives the subscription. Unknown ids are ignored.',
            body: RecNotification,
            response: { 200: Type.Object({ message: Type.String() }), 429: Type.Ref('Error'), 503: Type.Ref('Error') },
          },
          preHandler,
        },
        (req) => confirming(() => receiveRecNotification(deps, req.body)),
      );
    }
    for (const url of ['/api/psp/cobr', '/api/psp/cobr/cobr']) {
      app.post(
        url,
        {
          schema: {
            tags: ['PSP notifications'],
            operationId: url === '/api/psp/cobr' ? 'receivePspCobrNotification' : 'receivePspCobrNotificationCobr',
            summary: 'API Pix notification of Pix Automático recurring charges (webhookcobr)',
            description: '`{ "cobsr": [ { "txid": ... } ] }` or a bare array. Each charge of ours is looked up with the PSP (GET /cobr/{txid}, and GET /pix/{e2eid} for its payments) before a transaction becomes PAID or FAILED. Unknown txids are ignored.',
            body: CobrNotification,
            response: { 200: Type.Object({ message: Type.String() }), 429: Type.Ref('Error'), 503: Type.Ref('Error') },
          },
          preHandler,
        },
        (req) => confirming(() => receiveCobrNotification(deps, req.body)),
      );
    }
  }
  for (const url of ['/api/psp/pix', '/api/psp/pix/pix']) {
    app.post(
      url,
      {
        schema: {
          tags: ['PSP notifications'],
          operationId: url === '/api/psp/pix' ? 'receivePspPixNotification' : 'receivePspPixNotificationPix',
          summary: 'API Pix notification from the PSP (Pix received, devolução finished)',
          description: '`{ "pix": [ { "endToEndId": ... } ] }` or a bare array. Each Pix is confirmed with the PSP (GET /pix/{e2eid}) before a transaction becomes PAID; unknown ones are ignored.',
          body: Notification,
          response: { 200: Type.Object({ message: Type.String() }), 429: Type.Ref('Error'), 503: Type.Ref('Error') },
        },
        preHandler,
      },
      (req) => confirming(() => receiveNotification(deps, req.body)),
    );
  }
}
