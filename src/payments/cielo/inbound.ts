// Cielo's Notification Post ({ PaymentId, ChangeType, RecurrentPaymentId? }) to
// /api/psp/cielo/notifications. It must carry the header registered with Cielo Support
// (X-Notification-Secret = CIELO_NOTIFICATION_SECRET, compared in constant time), else 401. Even then
// nothing in it is believed: the sale is read from Cielo (GET /1/sales/{PaymentId}), our transaction
// found from its MerchantOrderId and checked (this connector's, this PaymentId), and only the state
// Cielo reports is applied through the core. Notifications of what is already applied, repeated or
// late ones, change nothing; Cielo unreachable: 503 (Cielo sends it again).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Transaction } from '../../db/types.ts';
import { AppError } from '../../http/errors.ts';
import type { ConnectorCore, ProviderEvent } from '../connector.ts';
import { CieloError } from './client.ts';
import { centsOf, CIELO_PROVIDER, declineOf, PAYMENT_ID, STATUS, transactionIdOf, type CieloPayment } from './mapping.ts';
import { madeRefunds } from './refunds.ts';
import { saleOf, type SaleParts } from './sale.ts';
import type { Db } from '../../db/index.ts';

export interface CieloContext {
  parts: SaleParts & { db: Db };
  core: ConnectorCore;
  secret: string;
}

export type Headers = Record<string, string | string[] | undefined>;

/** Whether the header carries the secret (hashes compared, so neither length nor content leaks by timing). */
export function secretMatches(given: string | string[] | undefined, secret: string): boolean {
  const value = Array.isArray(given) ? given[0] : given;
  if (typeof value !== 'string' || !secret) return false;
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(value), h(secret));
}

export async function receiveNotification(ctx: CieloContext, body: unknown, headers: Headers): Promise<{ applied: boolean }> {
  if (!secretMatches(headers['x-notification-secret'], ctx.secret)) throw new AppError(401, 'This notification lacks the X-Notification-Secret header registered with Cielo, or carries another value');
  const paymentId = String((body as { PaymentId?: unknown } | null)?.PaymentId ?? '');
  if (!PAYMENT_ID.test(paymentId)) return { applied: false };
  try {
    return await confirm(ctx, paymentId.toLowerCase());
  } catch (err) {
    if (err instanceof CieloError && err.kind === 'unavailable') throw new AppError(503, 'Cielo cannot be reached to confirm this notification; send it again later');
    throw err;
  }
}

async function confirm(ctx: CieloContext, paymentId: string): Promise<{ applied: boolean }> {
  const { core } = ctx;
  const sale = await saleOf(ctx.parts, paymentId);
  const transactionId = transactionIdOf(sale?.MerchantOrderId);
  const tx = transactionId ? await core.db.selectFrom('transactions').selectAll().where('id', '=', transactionId).executeTakeFirst() : undefined;
  if (!sale?.Payment || !tx || tx.provider !== CIELO_PROVIDER || tx.payment_method !== 'CARD' || !tx.livemode || (tx.provider_ref !== null && tx.provider_ref !== paymentId)) {
    core.log.warn({ cielo: { paymentId, known: !!sale, ours: !!tx } }, 'cielo: a notified sale is not one of our card payments (unknown, another connector\'s, or another sale of the order); ignored');
    return { applied: false };
  }
  const approved = sale.Payment.Status === STATUS.Authorized || sale.Payment.Status === STATUS.PaymentConfirmed;
  if (approved && (tx.status === 'FAILED' || tx.status === 'EXPIRED' || tx.status === 'CANCELLED')) {
    core.log.error({ transactionId: tx.id, cielo: { paymentId, status: sale.Payment.Status } }, `cielo: a sale is approved at Cielo for a ${tx.status} transaction; void it at Cielo by hand`);
  }
  const events = eventsFor(tx, sale.Payment, paymentId);
  if (events.length) await core.applyEvents(tx, events);
  // A void Cielo made whose answer never reached us (a refund left PENDING) is recorded now.
  const settledRef = tx.provider_ref ?? (events[0]?.outcome === 'PAID' ? paymentId : null);
  if (settledRef) {
    try {
      for (const r of await madeRefunds(ctx.parts, tx.id, settledRef)) await core.recordRefund(r.refundId, tx.id, r.result);
    } catch (err) {
      // Cielo unreachable: 503, it posts again. Refunds the amounts cannot tell apart were logged for a person.
      if (err instanceof CieloError) throw err;
    }
  }
  return { applied: events.length > 0 };
}

/**
 * What Cielo's state means for our transaction, only where it moves it forward: a PENDING charge
 * confirmed (PAID) or denied (FAILED); an authorisation captured in full at Cielo (PAID). An
 * authorised PENDING charge is left to the janitor (findCharge); anything else changes nothing.
 */
function eventsFor(tx: Transaction, p: CieloPayment, paymentId: string): ProviderEvent[] {
  if (tx.status === 'PENDING') {
    if (p.Status === STATUS.PaymentConfirmed) return [{ transactionId: tx.id, outcome: 'PAID', reference: paymentId, amountCents: centsOf(p.Amount) ?? undefined }];
    if (p.Status === STATUS.Denied || p.Status === STATUS.Aborted) return [{ transactionId: tx.id, outcome: 'FAILED', reason: declineOf(p).reason }];
  }
  if (tx.status === 'AUTHORIZED' && p.Status === STATUS.PaymentConfirmed && centsOf(p.CapturedAmount) === tx.charged_cents) return [{ transactionId: tx.id, outcome: 'PAID' }];
  return [];
}
