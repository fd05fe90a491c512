// Subscribing a client to a plan (merchant API and public checkout): the request checked, the
// coupon and the affiliate attributed, the card kept with the provider, the subscription written
// with its seat, and its first charge issued after that commit.
import type { Static } from '@sinclair/typebox';
import { inTx, type Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Client, Subscription, SubscriptionCycle, SubscriptionMethod, SubscriptionPlan, Transaction } from '../../db/types.ts';
import { AppError, badRequest, validation } from '../../http/errors.ts';
import { requiredText, sanitizeJson } from '../../http/sanitize.ts';
import type { Answer } from '../../http/idempotency.ts';
import type { Scope } from '../../http/scope.ts';
import { validateCard, type CardInput } from '../../payments/card.ts';
import { DAY_MS } from '../../payments/calendar.ts';
import type { CardHolder, CardToken } from '../../payments/connector.ts';
import { attributedLink, type Click } from '../affiliates/attribution.ts';
import { savedCardToken } from '../cards/service.ts';
import { normalizeDocument, normalizeEmail, refuseErased, upsertClientSql } from '../clients/service.ts';
import { evaluateCoupon, INVALID_COUPON_MESSAGE, reserveSubscriptionCoupon } from '../coupons/service.ts';
import { normalizeAddress } from '../transactions/draft.ts';
import { MAX_METADATA_BYTES, type Address } from '../transactions/schemas.ts';
import { noStoredCards, type CardGuard } from '../transactions/service.ts';
import { cadenceLabel, period } from './calendar.ts';
import { claimSeat, insertPeriodCycle, mail, planOf, recordEvent, reschedule, type EngineDeps } from './cycles.ts';
import { abandonSubscribe, issueCharge } from './issuing.ts';
import { normalizeMethod } from './plans.ts';

export interface SubscribeInput {
  clientId?: string;
  client?: { name: string; email: string; document: string; phone?: string };
  paymentMethod: string;
  card?: CardInput;
  /** Instead of `card`: a saved card of the subscribing client (modules/cards). */
  cardId?: string;
  couponCode?: string;
  metadata?: Record<string, unknown>;
  /** BOLETO: the payer's address, which every cycle's boleto carries (required where the bank registers boletos). */
  clientAddress?: Static<typeof Address>;
  /** The buyer's affiliate clicks (the cofre_aff cookie and an affiliateCode as a click now). */
  affiliateClicks?: Click[];
}

/** Keeps a card with the environment's provider (validated first; 503 when the provider keeps no cards). */
export async function tokenize(deps: Pick<EngineDeps, 'transactions'>, livemode: boolean, card: CardInput, holder: CardHolder, now: Date): Promise<CardToken> {
  const checked = validateCard(card, now);
  if (!checked.ok) throw validation(`card.${checked.field}`, checked.reason);
  const connector = deps.transactions.connectors.forNew(livemode, 'CARD');
  if (!connector.tokenizeCard) throw noStoredCards(connector);
  return connector.tokenizeCard(card, holder);
}

/** A plan of this merchant and environment that takes subscribers, or a 400 saying why not. */
function checkPlanOpen(plan: SubscriptionPlan) {
  if (plan.status !== 'ACTIVE') throw badRequest('PLAN_UNAVAILABLE', 'This plan is not taking new subscribers', [{ field: 'planId', message: 'the plan is inactive' }]);
}

const couponRefused = () => badRequest('INVALID_COUPON', INVALID_COUPON_MESSAGE, [{ field: 'couponCode', message: 'does not apply to this plan' }]);

/** The subscriber: a client of the merchant (`id`), or a new one (written with the subscription). */
type Subscriber = { id?: string; name: string; email: string; document: string; phone: string | null };

/** What the subscription is made of, checked before anything is written. */
interface Order {
  method: SubscriptionMethod;
  client: Subscriber;
  metadata: Record<string, unknown>;
  /** The payer's address (BOLETO), normalised as a transaction's. */
  address: Record<string, string> | null;
  couponId: string | null;
  discountCents: number;
  affiliateLinkId: string | null;
  card: CardToken | null;
  trialEnd: Date | null;
}

/** The request's method, card, client and metadata, checked (a 400 or 503 names what is wrong). */
async function checkRequest(deps: EngineDeps, scope: Scope, plan: SubscriptionPlan, input: SubscribeInput): Promise<Pick<Order, 'method' | 'client' | 'metadata' | 'address'>> {
  const method = normalizeMethod(input.paymentMethod);
  // 503 before anything is written when this environment has no connector for the method.
  const { connectors } = deps.transactions;
  if (method === 'PIX_AUTOMATICO' && connectors.offers(scope.livemode, 'PIX') && !connectors.offers(scope.livemode, 'PIX_AUTOMATICO')) {
    throw new AppError(503, `Pix Automático is not available with this gateway's payment provider (${connectors.forNew(scope.livemode, 'PIX').name}): subscribe with PIX instead`);
  }
  connectors.forNew(scope.livemode, method);
  if (!plan.payment_methods.includes(method)) throw validation('paymentMethod', `this plan accepts ${plan.payment_methods.join(', ')}`);
  if (method === 'CARD' && !input.card && !input.cardId) throw validation('card', 'is required for paymentMethod CARD');
  if (method !== 'CARD' && input.card) throw validation('card', 'is only for paymentMethod CARD');
  if (input.cardId && (method !== 'CARD' || input.card)) throw validation('cardId', 'is only for paymentMethod CARD, instead of card');
  const address = payerAddress(deps, scope, method, input);
  if (!input.clientId && !input.client) throw validation('client', 'send clientId or client');
  if (input.clientId && input.client) throw validation('client', 'send clientId or client, not both');

  let client: Subscriber;
  if (input.clientId) {
    const found = await deps.db.selectFrom('clients').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', input.clientId).where('deleted_at', 'is', null).executeTakeFirst();
    if (!found) throw validation('clientId', 'is not a client of this merchant and environment');
    refuseErased(found);
    client = { id: found.id, name: found.name, email: found.email, document: found.document, phone: found.phone };
  } else {
    const c = input.client!;
    client = { name: requiredText(c.name, 'client.name'), email: normalizeEmail(c.email), document: normalizeDocument(c.document, 'client.document'), phone: c.phone ?? null };
  }
  const metadata = sanitizeJson(input.metadata ?? {}) as Record<string, unknown>;
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) throw validation('metadata', `must be at most ${MAX_METADATA_BYTES} bytes as JSON`);
  return { method, client, metadata, address };
}

/**
 * The payer's address of a boleto subscription: checked here, before anything is written, as the
 * transaction's clientAddress would be (prepare.ts), since every cycle's boleto is made with it and a
 * renewal refused for want of it would fail months later, with nobody there to give it.
 */
function payerAddress(deps: EngineDeps, scope: Scope, method: SubscriptionMethod, input: SubscribeInput): Record<string, string> | null {
  if (input.clientAddress && method !== 'BOLETO') throw validation('clientAddress', 'is only for paymentMethod BOLETO');
  const address = input.clientAddress ? normalizeAddress(input.clientAddress, 'clientAddress') : null;
  if (method === 'BOLETO' && !address && deps.transactions.connectors.needsPayerAddress(scope.livemode)) {
    throw validation('clientAddress', "is required for boleto subscriptions with this environment's bank: each cycle's boleto is registered with the payer's address");
  }
  return address;
}

/** The coupon (its discount) and the affiliate link the subscription is sold with. */
async function attribution(deps: EngineDeps, scope: Scope, plan: SubscriptionPlan, input: SubscribeInput, client: Subscriber, now: Date): Promise<Pick<Order, 'couponId' | 'discountCents' | 'affiliateLinkId'>> {
  let couponId: string | null = null;
  let couponAffiliate: string | null = null;
  let discountCents = 0;
  if (input.couponCode) {
    const ev = await evaluateCoupon(deps.db, scope, { code: input.couponCode, amountCents: plan.amount_cents, productIds: [] }, { document: client.document, email: client.email }, now);
    if (!ev.ok) throw couponRefused();
    couponId = ev.coupon.id;
    discountCents = ev.discountCents;
    couponAffiliate = ev.coupon.affiliate_link_id;
  }
  // A plan that sells a product with an affiliate program: the subscription is attributed like a
  // payment-link checkout (an affiliate coupon first, then the clicks), and its charges carry it.
  const affiliateLinkId = plan.product_id ? await attributedLink(deps.db, scope, [plan.product_id], input.affiliateClicks ?? [], now, couponAffiliate) : null;
  return { couponId, discountCents, affiliateLinkId };
}

/**
 * Subscribes a client to a plan. With a trial, the subscription is TRIALING and nothing is charged
 * (a card is kept); without one it is INCOMPLETE until its first charge is paid (a card is charged
 * at once; a PIX or boleto is issued and e-mailed).
 */
export async function subscribe(deps: EngineDeps, plan: SubscriptionPlan, input: SubscribeInput, opts: { cardGuard?: CardGuard; answer?: Answer<Subscription> } = {}): Promise<Subscription> {
  const scope: Scope = { userId: plan.user_id, livemode: plan.livemode };
  const now = new Date();
  checkPlanOpen(plan);
  const checked = await checkRequest(deps, scope, plan, input);
  const sold = await attribution(deps, scope, plan, input, checked.client, now);
  let card: CardToken | null = null;
  if (checked.method === 'CARD') {
    const guard = scope.livemode ? opts.cardGuard : undefined;
    await guard?.before();
    card = input.cardId ? await savedCardToken({ db: deps.db, connectors: deps.transactions.connectors }, scope, input.cardId, checked.client) : await tokenize(deps, scope.livemode, input.card!, { email: checked.client.email }, now);
  }
  const trialEnd = plan.trial_days > 0 ? new Date(now.getTime() + plan.trial_days * DAY_MS) : null;
  const { sub, cycle } = await inTx(deps.db, async (trx) => {
    const made = await insertSubscription(deps, trx, scope, plan, { ...checked, ...sold, card, trialEnd }, now);
    await opts.answer?.(trx, made.sub); // the request's answer commits with the subscription (http/idempotency.ts)
    return made;
  });
  let charged: Transaction | null = null;
  if (cycle) {
    try {
      charged = await issueCharge(deps, sub, plan, cycle, now);
    } catch (err) {
      await abandonSubscribe(deps, sub.id, now, err);
      throw err;
    }
  }
  // The card attempt counts as a decline until it is known to be none (checkout/limits.ts).
  if (checked.method === 'CARD' && scope.livemode && charged?.status !== 'FAILED') await opts.cardGuard?.approved();
  return (await deps.db.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow()) as Subscription;
}

/**
 * Writes the subscription on a seat of its plan (PLAN_FULL when none is left), its client if new,
 * its coupon's use, and without a trial its first cycle with the attempt claimed (charged after
 * commit); records subscription.created and queues the welcome e-mail.
 */
async function insertSubscription(deps: EngineDeps, trx: Trx, scope: Scope, plan: SubscriptionPlan, o: Order, now: Date): Promise<{ sub: Subscription; cycle: SubscriptionCycle | null }> {
  const seat = await claimSeat(trx, plan.id, { activeOnly: true });
  if (!seat) {
    const current = await planOf(trx, plan.id);
    checkPlanOpen(current);
    throw badRequest('PLAN_FULL', 'This plan has reached its maximum number of subscribers', [{ field: 'planId', message: `at most ${current.max_subscribers} subscribers` }]);
  }
  const id = uuidv7(now.getTime());
  const { client, card, trialEnd } = o;
  let clientId = client.id;
  if (!clientId) {
    const { rows } = await upsertClientSql(scope, uuidv7(now.getTime()), now, { name: client.name, email: client.email, document: client.document, phone: client.phone }).execute(trx);
    clientId = (rows[0] as Client).id;
  }
  const first = trialEnd ? { start: now, end: trialEnd } : period(now, { interval: plan.interval, intervalCount: plan.interval_count }, 0);
  const inserted = await trx
    .insertInto('subscriptions')
    .values({
      id,
      user_id: scope.userId,
      livemode: scope.livemode,
      plan_id: plan.id,
      client_id: clientId,
      client_name: client.name,
      client_email: client.email,
      client_document: client.document,
      client_phone: client.phone,
      status: trialEnd ? 'TRIALING' : 'INCOMPLETE',
      payment_method: o.method,
      card_token: card?.token ?? null,
      card_brand: card?.brand ?? null,
      card_last4: card?.last4 ?? null,
      card_exp_month: card?.expMonth ?? null,
      card_exp_year: card?.expYear ?? null,
      anchor_at: trialEnd ?? now,
      period_index: trialEnd ? -1 : 0,
      current_period_start: first.start,
      current_period_end: first.end,
      trial_end: trialEnd,
      activated_at: trialEnd ? now : null,
      coupon_id: o.couponId,
      affiliate_link_id: o.affiliateLinkId,
      client_address: o.address ? JSON.stringify(o.address) : null,
      metadata: JSON.stringify(o.metadata),
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  // The coupon's use is held from now (a trial, an unpaid first PIX or boleto), within its limits.
  if (o.couponId && !(await reserveSubscriptionCoupon(trx, scope, o.couponId, client, id, now))) throw couponRefused();
  const cycle = trialEnd ? null : await insertPeriodCycle(trx, inserted, plan, first, now, now, o.discountCents, { claimed: true });
  await recordEvent(deps, trx, inserted, 'subscription.created');
  await mail(deps, trx, inserted, plan, now, {
    kind: 'welcome',
    amountCents: plan.amount_cents,
    intervalLabel: cadenceLabel({ interval: plan.interval, intervalCount: plan.interval_count }),
    trialEndsAt: trialEnd,
    firstChargeAt: trialEnd ? null : first.end,
  });
  return { sub: await reschedule(trx, id), cycle };
}
