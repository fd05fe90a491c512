// A sale through the API: the commerce around a payment creation, before the payment core sees it.
// The origin gateway's spellings (docs/compatibility.md) turned into ours, the payment link it names
// checked, and a coupon applied as the checkout applies it. The core only ever gets the canonical
// input and the link already resolved.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { UUID } from '../../db/ids.ts';
import type { Db } from '../../db/index.ts';
import { canonicalMethod } from '../../http/compat.ts';
import { AppError, validation } from '../../http/errors.ts';
import { keyStored } from '../../http/idempotency.ts';
import type { Scope } from '../../http/scope.ts';
import { chargeSavedCard } from '../cards/charge.ts';
import { getClient, normalizeEmail, refuseErased } from '../clients/service.ts';
import { onlyDigitsAndLetters } from '../../payments/documents.ts';
import type { PaymentLink, Transaction } from '../../db/types.ts';
import { evaluateCoupon, invalidCoupon, reserveCouponUse, withCouponReservation } from '../coupons/service.ts';
import { assertPayable } from '../payment-links/public.ts';
import { findOwnLink, getLink } from '../payment-links/service.ts';
import type { KeyAttachment } from '../transactions/creation.ts';
import type { CheckoutExtras } from '../transactions/draft.ts';
import { resolveSplit } from '../splits/rule.ts';
import { CreateTransactionBody, type ListTransactionsQuery } from '../transactions/schemas.ts';
import { createTransaction, createTransactionWith, type CreateOptions, type TransactionDeps } from '../transactions/service.ts';

/** The creation body with what only the API route adds: a coupon code, applied like the checkout applies it. */
export const ApiCreateTransactionBody = Type.Object(
  {
    ...CreateTransactionBody.properties,
    couponCode: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "A coupon of this merchant and environment: amountCents is the price before it, the transaction's amountCents the price after it (discountCents, couponId). 400 INVALID_COUPON when it cannot be used.",
      }),
    ),
    cardId: Type.Optional(
      Type.String({
        format: 'uuid',
        description: "One-click purchase: a saved card (POST /api/v1/cards) of this merchant, environment and client (the one with clientDocument) charged instead of `card` data; paymentMethod CARD, a single payment, captured at once. 400 on cardId for another client's card or an unknown one.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Origin-compatible spellings are accepted too (docs/compatibility.md): paymentMethod omitted = PIX, CREDIT_CARD = CARD; the client as `client: {name, email, document, phone}` or as `clientId` (a client of this merchant and environment) instead of clientName, clientEmail, clientDocument, clientPhone.',
  },
);

type Body = Static<typeof ApiCreateTransactionBody>;
type Input = Static<typeof CreateTransactionBody>;

const CLIENT_FIELDS = [
  ['name', 'clientName'],
  ['email', 'clientEmail'],
  ['document', 'clientDocument'],
  ['phone', 'clientPhone'],
] as const;

/**
 * preValidation of POST /api/v1/transactions: the origin's spellings become ours. A `clientId` is
 * resolved here (a read of the merchant's own client), so that validation sees the same flat fields
 * as a request that sent them; the Idempotency-Key fingerprint is taken of the request with its
 * `clientId` (fingerprintBody), so a retry still matches once that client's data changed (every
 * sale to the same document updates it).
 */
export function transactionSpellings(db: Db, req: FastifyRequest): void | Promise<void> {
  const b = req.body as Record<string, unknown> | undefined;
  if (!b || typeof b !== 'object' || Array.isArray(b)) return;
  b.paymentMethod = b.paymentMethod === undefined ? 'PIX' : canonicalMethod(b.paymentMethod);
  if (b.client !== undefined) {
    const c = b.client;
    if (!c || typeof c !== 'object' || Array.isArray(c)) throw validation('client', 'must be an object {name, email, document, phone}');
    const nested = c as Record<string, unknown>;
    for (const k of Object.keys(nested)) if (!CLIENT_FIELDS.some(([n]) => n === k)) throw validation(`client.${k}`, 'is not an allowed field');
    delete b.client;
    for (const [name, flat] of CLIENT_FIELDS) {
      if (nested[name] === undefined || nested[name] === null) continue;
      if (b[flat] !== undefined && !agree(name, b[flat], nested[name])) throw validation(`client.${name}`, `says something else than ${flat}: send one of them`);
      b[flat] = nested[name];
    }
  }
  if (b.clientId !== undefined) {
    const id = b.clientId;
    delete b.clientId;
    for (const [name, flat] of CLIENT_FIELDS) {
      if (name !== 'phone' && b[flat] !== undefined) throw validation('clientId', `names the client: send clientId or ${flat} (and the other client fields), not both`);
    }
    if (typeof id !== 'string' || !UUID.test(id)) throw validation('clientId', 'must be a client id (UUID)');
    const clientId = id.toLowerCase();
    req.fingerprintBody = { ...b, clientId };
    return clientFields(db, req, b, clientId);
  }
}

/** Whether a client field sent twice (`client.x` and the flat field) says the same, as stored (a document without punctuation, an e-mail in lowercase). */
function agree(name: (typeof CLIENT_FIELDS)[number][0], a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return a === b;
  if (name === 'document') return onlyDigitsAndLetters(a) === onlyDigitsAndLetters(b);
  if (name === 'email') return normalizeEmail(a) === normalizeEmail(b);
  return a.trim() === b.trim();
}

/** The fields of the merchant's client `id`, as if the request had sent them. */
async function clientFields(db: Db, req: FastifyRequest, b: Record<string, unknown>, id: string): Promise<void> {
  const client = await getClient(db, req.auth, id).catch(async (err) => {
    if (!(err instanceof AppError && err.status === 404)) throw err;
    // A retry of a creation whose client was archived since: its stored answer is replayed (or the
    // key refused as reused) by the idempotency hook, which needs a body that passes validation.
    const key = req.headers['idempotency-key'];
    const archived = typeof key === 'string' && (await keyStored(db, req.auth, key)) ? await getClient(db, req.auth, id, { archived: true }).catch(() => null) : null;
    if (archived) return archived;
    throw validation('clientId', 'is not a client of this merchant and environment');
  });
  // A retry of a creation made before the erasure still replays its stored answer (idempotency hook).
  const key = req.headers['idempotency-key'];
  if (client.erased_at && !(typeof key === 'string' && (await keyStored(db, req.auth, key)))) refuseErased(client);
  b.clientName = client.name;
  b.clientEmail = client.email;
  b.clientDocument = client.document;
  if (b.clientPhone === undefined && client.phone) b.clientPhone = client.phone;
}

/** preValidation of GET /api/v1/transactions: CREDIT_CARD = CARD in the method filters. */
export function listSpellings(req: FastifyRequest) {
  const q = req.query as Partial<Record<keyof Static<typeof ListTransactionsQuery>, unknown>> | undefined;
  if (!q) return;
  if (q.paymentMethod !== undefined) q.paymentMethod = canonicalMethod(q.paymentMethod);
  if (q.method !== undefined) q.method = canonicalMethod(q.method);
}

/** The creation input without `couponCode` and `cardId` (the service's own body). */
export function withoutCoupon(body: Body): Input {
  const { couponCode: _, cardId: __, ...input } = body;
  return input;
}

/** The payment core's creation, or a one-click purchase with the saved card `cardId` (cards/charge.ts). */
function creation(deps: TransactionDeps, scope: Scope, cardId: string | undefined): typeof createTransaction {
  return cardId === undefined ? createTransaction : (_deps, _scope, input, extras = {}, opts = {}) => chargeSavedCard(deps, scope, cardId, input, extras, opts);
}

/**
 * An API creation with the route's body. Without `couponCode`, createTransaction as it is. With it,
 * the coupon is applied as the checkout applies it (checkout/service.ts): evaluated (the payment
 * link's products when `paymentLinkId` names one, the client's document and e-mail for
 * perUserLimit), a use reserved for it, amountCents lowered to the price after the discount, the
 * coupon recorded on the transaction (couponId, discountCents) and the reservation linked to it once
 * recorded; a creation that fails gives the use back. Runs inside the idempotent work (a claimed
 * key), so a retry replays the first answer even once the coupon has run out.
 */
export async function createApiTransaction(deps: TransactionDeps, scope: Scope, body: Body, opts: CreateOptions = {}): Promise<Transaction> {
  const input = withoutCoupon(body);
  const link = await linkOf(deps, scope, input);
  const create = creation(deps, scope, body.cardId);
  if (body.couponCode === undefined) return create(deps, scope, input, link, opts);
  let productIds: string[] = [];
  if (input.paymentLinkId) {
    const link = await getLink(deps.db, scope, input.paymentLinkId).catch((err) => {
      if (err instanceof AppError && err.status === 404) throw validation('paymentLinkId', 'is not a payment link of this merchant and environment');
      throw err;
    });
    productIds = link.products.map((p) => p.product_id);
  }
  const customer = { document: input.clientDocument, email: input.clientEmail };
  const result = await evaluateCoupon(deps.db, scope, { code: body.couponCode, amountCents: input.amountCents, productIds }, customer);
  if (!result.ok) throw invalidCoupon();
  if (result.finalCents < 1) throw validation('couponCode', 'leaves nothing to pay: a payment must be at least 1 cent');
  const reservation = await reserveCouponUse(deps.db, scope, result.coupon.id, customer);
  if (!reservation) throw invalidCoupon();
  const extras = { ...link, couponId: result.coupon.id, discountCents: result.discountCents };
  return withCouponReservation(deps.db, scope.userId, reservation, (linkUse) =>
    create(deps, scope, { ...input, amountCents: result.finalCents }, extras, {
      ...opts,
      recorded: async (tx) => {
        await linkUse(tx);
        await opts.recorded?.(tx);
      },
    }),
  );
}

/**
 * The payment link the body names (paymentLinkId): this merchant's and environment's, and payable
 * now (inactive, expired or sold out: refused as the checkout refuses it). Nothing is reserved: the
 * guarded decrement at PAID decides (payment-links/sale.ts). And the sale's split: the body's
 * (every recipient must be allowed) or else the link's (a recipient no longer allowed is left out).
 */
async function linkOf(deps: TransactionDeps, scope: Scope, input: Input): Promise<Pick<CheckoutExtras, 'link' | 'split'>> {
  let link: PaymentLink | undefined;
  if (input.paymentLinkId) {
    link = (await findOwnLink(deps.db, scope, input.paymentLinkId)) ?? undefined;
    if (!link) throw validation('paymentLinkId', 'is not a payment link of this merchant and environment');
    assertPayable(link, 'paymentLinkId', new Date());
  }
  const split = input.split ? await resolveSplit(deps.db, scope.userId, input.split, true) : await resolveSplit(deps.db, scope.userId, link?.split, false);
  return { ...(link && { link }), ...(split && { split }) };
}

/** An API creation whose Idempotency-Key its creation statement stores (no coupon): see createTransactionWith. */
export async function createApiTransactionWith(deps: TransactionDeps, scope: Scope, body: Body, attach: KeyAttachment): Promise<string> {
  const input = withoutCoupon(body);
  return createTransactionWith(deps, scope, input, attach, await linkOf(deps, scope, input));
}
