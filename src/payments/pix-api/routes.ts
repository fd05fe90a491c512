// The PSP's notifications, as routes the registry mounts under /api/psp/bcb-api/: .../pix (and
// .../pix/pix, because the standard's callback is `{webhookUrl}/pix` and some PSPs append it, some
// do not); with Pix Automático, .../rec (authorisations) and .../cobr (recurring charges), likewise.
// /api/psp/pix, /rec and /cobr stay as aliases: PSPs registered before the connector paths keep
// working. No credentials: nothing in a notification is believed (inbound.ts confirms each one).
import { Type } from '@sinclair/typebox';
import { AppError } from '../../http/errors.ts';
import type { InboundRoute } from '../connector.ts';
import { PixApiError } from './client.ts';
import { receiveCobrNotification, receiveNotification, receiveRecNotification } from './inbound.ts';
import type { PixApiContext } from './settle.ts';

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
 * PSP answered 429 sends again later, and the reconciliation sweeps recover anything meanwhile.
 */
export const PSP_NOTIFICATIONS_PER_MINUTE = 600;

/** Runs a notification's handling; a PSP that cannot be asked to confirm it answers 503 (the PSP sends it again). */
async function confirming(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (err instanceof PixApiError && err.kind === 'unavailable') throw new AppError(503, 'The PSP cannot be reached to confirm this notification; send it again later');
    throw err;
  }
}

export function pixApiRoutes(deps: PixApiContext): InboundRoute[] {
  const common = { perMinute: PSP_NOTIFICATIONS_PER_MINUTE };
  const pix: InboundRoute = {
    ...common,
    paths: ['/pix', '/pix/pix'],
    aliases: ['/api/psp/pix', '/api/psp/pix/pix'],
    operationId: 'receivePspPixNotification',
    summary: 'API Pix notification from the PSP (Pix received, devolução finished)',
    description: '`{ "pix": [ { "endToEndId": ... } ] }` or a bare array. Each Pix is confirmed with the PSP (GET /pix/{e2eid}) before a transaction becomes PAID; unknown ones are ignored.',
    body: Notification,
    handle: (body) => confirming(() => receiveNotification(deps, body)),
  };
  if (!deps.psp.account) return [pix];
  const rec: InboundRoute = {
    ...common,
    paths: ['/rec', '/rec/rec'],
    aliases: ['/api/psp/rec', '/api/psp/rec/rec'],
    operationId: 'receivePspRecNotification',
    summary: 'API Pix notification of Pix Automático authorisations (webhookrec)',
    description: '`{ "recs": [ { "idRec": ... } ] }` or a bare array. Each authorisation of ours is looked up with the PSP (GET /rec/{idRec}); its state there drives the subscription. Unknown ids are ignored.',
    body: RecNotification,
    handle: (body) => confirming(() => receiveRecNotification(deps, body)),
  };
  const cobr: InboundRoute = {
    ...common,
    paths: ['/cobr', '/cobr/cobr'],
    aliases: ['/api/psp/cobr', '/api/psp/cobr/cobr'],
    operationId: 'receivePspCobrNotification',
    summary: 'API Pix notification of Pix Automático recurring charges (webhookcobr)',
    description: '`{ "cobsr": [ { "txid": ... } ] }` or a bare array. Each charge of ours is looked up with the PSP (GET /cobr/{txid}, and GET /pix/{e2eid} for its payments) before a transaction becomes PAID or FAILED. Unknown txids are ignored.',
    body: CobrNotification,
    handle: (body) => confirming(() => receiveCobrNotification(deps, body)),
  };
  return [rec, cobr, pix];
}
