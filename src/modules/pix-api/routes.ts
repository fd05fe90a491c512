// The PSP's notifications: POST {BASE_URL}/api/psp/pix, and .../pix/pix because the standard's
// callback is `{webhookUrl}/pix` (some PSPs append it, some do not). No credentials: nothing in a
// notification is believed (service.ts confirms each Pix with the PSP). 503 when the PSP cannot be
// asked, so that it sends the notification again.
import { Type } from '@sinclair/typebox';
import type { App } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { PixApiError } from '../../payments/pix-api/client.ts';
import { receiveNotification } from './service.ts';

const Item = Type.Object({ endToEndId: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: true });
// An object without `pix` is accepted too: some PSPs post a test event when the webhook is
// registered and refuse the registration unless it is answered 200.
const Notification = Type.Union([Type.Object({ pix: Type.Optional(Type.Array(Item, { maxItems: 1000 })) }, { additionalProperties: true }), Type.Array(Item, { maxItems: 1000 })]);

export default async function pixApiRoutes(app: App) {
  const deps = app.deps.pixApi;
  if (!deps) return;
  app.addHook('onClose', async () => deps.provider.close());
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
          response: { 200: Type.Object({ message: Type.String() }), 503: Type.Ref('Error') },
        },
      },
      async (req) => {
        try {
          await receiveNotification(deps, req.body);
        } catch (err) {
          if (err instanceof PixApiError && err.kind === 'unavailable') throw new AppError(503, 'The PSP cannot be reached to confirm this notification; send it again later');
          throw err;
        }
        return { message: 'OK' };
      },
    );
  }
}
