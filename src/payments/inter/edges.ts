// The inter connector's edges over the core: the notification route (Inter's callback, confirmed by
// asking Inter before anything changes), the issuing sweep, the reconciliation (the charges paid in
// the last days, so a lost callback still pays the order), the expiry (asked to Inter first: paid
// at the last minute is PAID, not EXPIRED) and the webhook's registration.
import { Type } from '@sinclair/typebox';
import type { Transaction } from '../../db/types.ts';
import { AppError } from '../../http/errors.ts';
import type { BoletoIssuer } from '../boleto-issuing.ts';
import { DAY_MS, nextBusinessDay, spDate, startOfSpDay } from '../calendar.ts';
import type { ConnectorCore, ConnectorEdges, ConnectorLog, ProviderEvent } from '../connector.ts';
import { INTER_PROVIDER, type InterBank, type InterCharge } from './bank.ts';

export interface InterContext {
  bank: InterBank;
  core: ConnectorCore;
  log: ConnectorLog;
  issuer: BoletoIssuer;
  reconcileEveryMs: number;
  lastReconciled?: number;
  registered?: boolean;
}

/** The reconciliation lists the charges paid over this many days back. */
export const RECONCILE_DAYS = 3;
/** A boleto is asked about this long after its expiry here: a payment of the last minute reaches Inter's books first. */
export const EXPIRY_GRACE_MS = 10 * 60_000;
/** Each notified charge costs a lookup at Inter: a stranger flooding the route must not spend its quota. */
const NOTIFICATIONS_PER_MINUTE = 600;

// Loose on purpose: only codigoSolicitacao is read, and confirmed at Inter.
const Item = Type.Object({ codigoSolicitacao: Type.Optional(Type.Unknown()) }, { additionalProperties: true });
const Callback = Type.Union([Type.Array(Item, { maxItems: 1000 }), Item]);

const inter = (ctx: InterContext) => ctx.core.db.selectFrom('transactions').selectAll().where('provider', '=', INTER_PROVIDER);

/**
 * A charge Inter shows PAID applied to its transaction (once: the codigoSolicitacao is the payment's
 * reference). Refused by the core (an amount that is not the charge's, a transaction no longer
 * PENDING): logged for a person, nothing changes. Returns whether it paid a transaction now.
 */
export async function settlePaid(ctx: InterContext, charge: InterCharge): Promise<boolean> {
  const tx = await inter(ctx).where('boleto_ref', '=', charge.reference).executeTakeFirst();
  if (!tx) {
    ctx.log.warn({ inter: { codigoSolicitacao: charge.reference } }, 'inter: a paid charge is not one of our boletos (yet); the reconciliation looks again');
    return false;
  }
  if (tx.status !== 'PENDING') return false;
  // Paid by barcode, the money is credited on the next bank business day (compensação); by Pix, at once.
  const settlesAt = charge.paidWith === 'PIX' ? undefined : startOfSpDay(nextBusinessDay(spDate(charge.paidAt ?? new Date())));
  const event: ProviderEvent = { transactionId: tx.id, outcome: 'PAID', reference: charge.reference, amountCents: charge.paidCents, paidAt: charge.paidAt, paidWith: charge.paidWith, settlesAt };
  try {
    await ctx.core.applyEvents(tx, [event]);
    return true;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    ctx.log.error({ transactionId: tx.id, inter: { codigoSolicitacao: charge.reference, paidCents: charge.paidCents }, why: err.message }, 'inter: a boleto paid at Inter cannot pay its transaction; a person must return it');
    return false;
  }
}

/** Inter's callback: each codigoSolicitacao named is asked at Inter; only a PAID there pays. Inter unreachable: 503 (it sends again). */
export async function receiveCallback(ctx: InterContext, body: unknown): Promise<number> {
  const items = Array.isArray(body) ? body : [body];
  const refs = [...new Set(items.map((i) => (i as { codigoSolicitacao?: unknown } | null)?.codigoSolicitacao).filter((r): r is string => typeof r === 'string' && /^[\w-]{1,100}$/.test(r)))];
  let paid = 0;
  for (const ref of refs) {
    let charge: InterCharge | null;
    try {
      charge = await ctx.bank.charge(ref);
    } catch (err) {
      ctx.log.warn({ inter: { codigoSolicitacao: ref }, err: String(err) }, 'inter: a notified charge could not be confirmed at Inter');
      throw new AppError(503, 'Inter cannot be reached to confirm this notification; send it again later');
    }
    if (charge?.state === 'PAID' && (await settlePaid(ctx, charge))) paid += 1;
  }
  return paid;
}

/** Every reconcileEveryMs: the charges Inter received over the last RECONCILE_DAYS, each applied if it is not yet. */
export async function reconcile(ctx: InterContext, now = new Date(), force = false): Promise<number> {
  if (!force && ctx.lastReconciled !== undefined && now.getTime() - ctx.lastReconciled < ctx.reconcileEveryMs) return 0;
  const received = await ctx.bank.listPaid(new Date(now.getTime() - RECONCILE_DAYS * DAY_MS), now);
  ctx.lastReconciled = now.getTime();
  const refs = received.map((c) => c.reference);
  const pending = new Set(refs.length ? (await inter(ctx).where('status', '=', 'PENDING').where('boleto_ref', 'in', refs).execute()).map((t) => t.boleto_ref) : []);
  let paid = 0;
  for (const charge of received) {
    if (!pending.has(charge.reference)) continue;
    ctx.log.warn({ inter: { codigoSolicitacao: charge.reference } }, 'inter: reconciliation found a paid boleto whose notification never arrived');
    if (await settlePaid(ctx, charge)) paid += 1;
  }
  return paid;
}

/**
 * PENDING boletos past their last payable day (plus a grace): asked at Inter first. Paid there:
 * PAID. Otherwise withdrawn there (baixa) and EXPIRED here; one that never reached Inter expires here.
 */
export async function expireBoletos(ctx: InterContext, now = new Date(), batch = 50): Promise<number> {
  const due = await inter(ctx).where('status', '=', 'PENDING').where('expires_at', '<', new Date(now.getTime() - EXPIRY_GRACE_MS)).orderBy('expires_at').limit(batch).execute();
  let handled = 0;
  for (const tx of due) {
    try {
      if (await expireOne(ctx, tx)) handled += 1;
    } catch (err) {
      ctx.log.warn({ transactionId: tx.id, err: String(err) }, 'inter: could not ask Inter about an expiring boleto; asked again later');
      break;
    }
  }
  return handled;
}

async function expireOne(ctx: InterContext, tx: Transaction): Promise<boolean> {
  const charge = tx.boleto_ref ? await ctx.bank.charge(tx.boleto_ref) : null;
  if (charge?.state === 'PAID') return settlePaid(ctx, charge);
  if (charge && (charge.state === 'ISSUING' || charge.state === 'ISSUED')) await ctx.bank.cancel(charge.reference);
  try {
    await ctx.core.applyEvents(tx, [{ transactionId: tx.id, outcome: 'EXPIRED' }]);
  } catch (err) {
    if (!(err instanceof AppError)) throw err; // settled meanwhile by another worker
  }
  await ctx.core.db.deleteFrom('boleto_issuing').where('transaction_id', '=', tx.id).execute();
  return true;
}

async function ensureWebhook(ctx: InterContext): Promise<void> {
  if (ctx.registered) return;
  const url = `${ctx.core.baseUrl}/api/psp/${INTER_PROVIDER}/notifications`;
  try {
    await ctx.bank.registerWebhook(url);
    ctx.registered = true;
    ctx.log.info({ webhookUrl: url }, 'inter: webhook registered');
  } catch (err) {
    ctx.log.error({ err: String(err) }, 'inter: the webhook could not be registered; retried by the jobs (the reconciliation covers payments meanwhile)');
  }
}

export function interEdges(ctx: InterContext): ConnectorEdges & { context: InterContext } {
  return {
    context: ctx,
    routes: [
      {
        paths: ['/notifications'],
        operationId: 'receiveInterNotification',
        summary: "Banco Inter's callback of a boleto's charge (Cobrança v3)",
        description:
          "An array of charges (or one) as Inter posts them. Only `codigoSolicitacao` is read: each is looked up at Inter (GET /cobranca/v3/cobrancas/{codigoSolicitacao}) and a charge Inter shows received pays its transaction, once; anything else changes nothing. Inter unreachable: 503 (Inter sends it again).",
        body: Callback,
        perMinute: NOTIFICATIONS_PER_MINUTE,
        handle: async (body) => {
          await receiveCallback(ctx, body);
        },
      },
    ],
    start: () => ensureWebhook(ctx),
    sweeps: [
      { name: 'webhook', batch: Infinity, run: async () => (await ensureWebhook(ctx), 0) },
      { name: 'issue', batch: ctx.issuer.batch, run: (now) => ctx.issuer.run(now) },
      { name: 'reconcile', batch: Infinity, run: (now) => reconcile(ctx, now) },
      { name: 'expire', batch: 50, run: (now) => expireBoletos(ctx, now, 50) },
    ],
  };
}
