// Efí's notifications of the paying key, posted to the registered URL with `/pix` appended
// ({ "pix": [ { "endToEndId", "tipo", "status", "valor", "gnExtras": { "idEnvio" } } ] } for a sent
// Pix). They must carry `?hmac=` = EFI_WEBHOOK_SECRET (Efí's suggestion when mTLS is skipped), else
// 401. Even then nothing in them is believed: each idEnvio is looked up at Efí (findPayout) and only
// the state Efí shows is applied through the core; items without an idEnvio (a Pix received on
// the key) are ignored; an idEnvio Efí does not know changes nothing. Efí unreachable: 503 (Efí
// sends it again, up to 10 times).
import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../http/errors.ts';
import type { ConnectorCore, PayoutState } from '../connector.ts';
import { PixApiError } from '../pix-api/client.ts';
import { ID_ENVIO, logOf } from './mapping.ts';

/** What the notification routes need of the connector. */
export interface EfiPort {
  findPayout(reference: string): Promise<PayoutState | null>;
  ensureWebhook(): Promise<void>;
  webhook: { url: string; registered: boolean } | null;
}

export interface EfiContext {
  efi: EfiPort;
  core: ConnectorCore;
  secret: string;
}

export type Query = Record<string, unknown> | undefined;

/**
 * Whether `?hmac=` carries the secret (hashes compared, so neither length nor content leaks by
 * timing). Efí appends `/pix` to the registered URL: a URL registered without `&ignorar=` would
 * give `hmac=<secret>/pix`, taken as well.
 */
export function hmacMatches(query: Query, secret: string): boolean {
  const given = query?.hmac;
  if (typeof given !== 'string' || !secret) return false;
  const value = given.endsWith('/pix') ? given.slice(0, -'/pix'.length) : given;
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(value), h(secret));
}

/** The idEnvio of each item that names one (gnExtras.idEnvio), once each. */
export function idEnviosOf(body: unknown): string[] {
  const b = body as { pix?: unknown } | unknown[] | null;
  const items = Array.isArray(b) ? b : Array.isArray(b?.pix) ? b.pix : [];
  const ids = items.map((i) => (i as { gnExtras?: { idEnvio?: unknown } } | null)?.gnExtras?.idEnvio).filter((id): id is string => typeof id === 'string' && ID_ENVIO.test(id));
  return [...new Set(ids)];
}

export async function receiveNotification(ctx: EfiContext, body: unknown, query: Query): Promise<{ confirmed: number }> {
  if (!hmacMatches(query, ctx.secret)) throw new AppError(401, 'This notification lacks the hmac registered with Efí in the webhook URL, or carries another value');
  let confirmed = 0;
  for (const idEnvio of idEnviosOf(body)) {
    let state: PayoutState | null;
    try {
      state = await ctx.efi.findPayout(idEnvio);
    } catch (err) {
      ctx.core.log.warn({ efi: { idEnvio, ...logOf(err) } }, 'efi: a notified payout could not be looked up at Efí; Efí sends the notification again');
      if (err instanceof PixApiError && (err.kind === 'unavailable' || err.kind === 'auth')) throw new AppError(503, 'Efí cannot be reached to confirm this notification; send it again later');
      throw err;
    }
    if (!state) {
      ctx.core.log.warn({ efi: { idEnvio } }, 'efi: a notification names an idEnvio Efí has no Pix sent under; ignored');
      continue;
    }
    await ctx.core.applyPayout(idEnvio, state);
    confirmed += 1;
  }
  return { confirmed };
}
