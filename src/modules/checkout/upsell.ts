// One-click upsell and downsell after a hosted checkout's payment. The offer is made with the
// checkout (checkoutLink: the card kept by its connector for the click, when the payment is by
// card), shown once the payment is PAID, and accepted or declined once: accepting claims the offer
// (one UPDATE: a double click or a refresh finds it taken and gets the same transaction back) and
// makes the offer's own transaction, linked to the first (parentTransactionId): the same card charged
// by its token, or a new PIX. Declining an upsell offers its downsell.
import type { Db, Executor } from '../../db/index.ts';
import { inTx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Transaction, TransactionItem, UpsellOffer } from '../../db/types.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { loadOffers, offerPrice, offerTitle, type OfferRow } from '../checkouts/offers.ts';
import { chargeStoredCard, createTransaction, type CreateInput, type TransactionDeps } from '../transactions/service.ts';

/** A claim whose creator never recorded its transaction (it crashed before) may be taken again after this. */
const STALE_CLAIM_MS = 2 * 60_000;

export interface KeptCard {
  token: string;
  brand: string;
  last4: string;
  connector: string;
}

/** The upsell of a checkout's payment, offered once it is paid (called when the payment is created). */
export async function makeOffer(db: Executor, tx: Transaction, upsell: OfferRow, card: KeptCard | null): Promise<void> {
  await db
    .insertInto('upsell_offers')
    .values({ ...offerValues(tx, upsell, 'UPSELL', null, card), id: uuidv7() })
    .onConflict((oc) => oc.columns(['parent_transaction_id', 'kind']).doNothing())
    .execute();
}

function offerValues(tx: Pick<Transaction, 'id' | 'user_id' | 'livemode'>, o: OfferRow, kind: UpsellOffer['kind'], expiresAt: Date | null, card: KeptCard | null) {
  return {
    parent_transaction_id: tx.id,
    user_id: tx.user_id,
    livemode: tx.livemode,
    kind,
    product_id: o.product_id,
    title: offerTitle(o),
    description: o.description,
    price_cents: offerPrice(o),
    list_price_cents: o.product_price,
    expires_at: expiresAt,
    card_token: card?.token ?? null,
    card_brand: card?.brand ?? null,
    card_last4: card?.last4 ?? null,
    card_connector: card?.connector ?? null,
    created_at: new Date(),
  };
}

/** When an offer stops: a downsell at its expires_at, an upsell a while after its payment was paid (null: not paid yet). */
export function offerExpiry(o: Pick<UpsellOffer, 'expires_at'>, paidAt: Date | null, minutes: number): Date | null {
  return o.expires_at ?? (paidAt ? new Date(paidAt.getTime() + minutes * 60_000) : null);
}

export type PageOffer = UpsellOffer & { expiresAt: Date | null };

/** The offer a payment's page shows: the open one (the downsell once the upsell was declined), or null. */
export async function openOffer(db: Executor, parent: Pick<Transaction, 'id' | 'paid_at'>, minutes: number, now = new Date()): Promise<PageOffer | null> {
  const rows = await db.selectFrom('upsell_offers').selectAll().where('parent_transaction_id', '=', parent.id).where('status', '=', 'OPEN').execute();
  const row = rows.find((o) => o.kind === 'DOWNSELL') ?? rows[0];
  if (!row) return null;
  const expiresAt = offerExpiry(row, parent.paid_at, minutes);
  if (expiresAt && expiresAt.getTime() <= now.getTime()) return null;
  return { ...row, expiresAt };
}

const closed = (why: string) => new AppError(409, why);

/** The offer with its payment, for the public routes: 404 when unknown. */
async function offerWithParent(db: Executor, id: string) {
  const row = await db
    .selectFrom('upsell_offers as o')
    .innerJoin('transactions as t', 't.id', 'o.parent_transaction_id')
    .selectAll('o')
    .select(['t.status as parent_status', 't.paid_at as parent_paid_at', 't.payment_link_id as parent_link_id'])
    .where('o.id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Offer');
  return row;
}

/**
 * Accepts an offer: its transaction (the card charged, or a new PIX), made once. A second accept
 * gets the same transaction; a declined card opens the offer again (the shopper may decline it).
 */
export async function acceptOffer(deps: TransactionDeps, id: string, minutes: number, now = new Date()): Promise<Transaction> {
  const offer = await offerWithParent(deps.db, id);
  if (offer.parent_status !== 'PAID') throw closed('This offer opens once the first payment is confirmed');
  const expires = offerExpiry(offer, offer.parent_paid_at, minutes);
  const open = !!expires && expires.getTime() > now.getTime();
  const claimed = await deps.db
    .updateTable('upsell_offers')
    .set({ status: 'ACCEPTED', decided_at: now })
    .where('id', '=', id)
    .where((eb) => {
      const stale = eb.and([eb('status', '=', 'ACCEPTED'), eb('transaction_id', 'is', null), eb('decided_at', '<', new Date(now.getTime() - STALE_CLAIM_MS))]);
      return open ? eb.or([eb('status', '=', 'OPEN'), stale]) : stale;
    })
    .returningAll()
    .executeTakeFirst();
  if (!claimed) return alreadyDecided(deps.db, id);
  const parent = await deps.db.selectFrom('transactions').selectAll().where('id', '=', claimed.parent_transaction_id).executeTakeFirstOrThrow();
  // A creator that crashed after writing its transaction but before noting it: that one is the offer's.
  const orphan = await deps.db.selectFrom('transactions').selectAll().where('parent_transaction_id', '=', parent.id).where('status', '!=', 'FAILED').executeTakeFirst();
  if (orphan) return noteTransaction(deps.db, id, orphan);
  const tx = await chargeOffer(deps, claimed, parent);
  if (tx.status === 'FAILED') await deps.db.updateTable('upsell_offers').set({ status: 'OPEN', transaction_id: null, decided_at: null }).where('id', '=', id).execute();
  else await deps.db.updateTable('upsell_offers').set({ card_token: null }).where('id', '=', id).execute();
  return tx;
}

/** How long a second click waits for the first one's transaction to be written (it is written before the card is charged). */
const WAIT_FOR_FIRST_MS = 5000;

/** The answer to a click after the first: the first click's transaction, as soon as it is written. */
async function alreadyDecided(db: Db, id: string): Promise<Transaction> {
  for (const started = Date.now(); ; await new Promise((r) => setTimeout(r, 50))) {
    const row = await db.selectFrom('upsell_offers').select(['status', 'transaction_id']).where('id', '=', id).executeTakeFirstOrThrow();
    if (row.status === 'DECLINED') throw closed('This offer was declined');
    if (row.status === 'OPEN') throw closed('This offer has expired');
    if (row.transaction_id) return db.selectFrom('transactions').selectAll().where('id', '=', row.transaction_id).executeTakeFirstOrThrow();
    if (Date.now() - started > WAIT_FOR_FIRST_MS) throw closed('This offer is being processed: try again in a moment');
  }
}

async function noteTransaction(db: Db, id: string, tx: Transaction): Promise<Transaction> {
  await db.updateTable('upsell_offers').set({ transaction_id: tx.id }).where('id', '=', id).execute();
  return tx;
}

/** The offer's own transaction, for the first payment's customer: its card by the kept token, or a PIX. */
function chargeOffer(deps: TransactionDeps, offer: UpsellOffer, parent: Transaction): Promise<Transaction> {
  const scope: Scope = { userId: parent.user_id, livemode: parent.livemode };
  const item: TransactionItem = { kind: 'MAIN', productId: offer.product_id, name: offer.title, quantity: 1, unitPriceCents: offer.list_price_cents, discountCents: offer.list_price_cents - offer.price_cents };
  const input: CreateInput = {
    product: offer.title,
    amountCents: offer.price_cents,
    clientName: parent.client_name,
    clientEmail: parent.client_email,
    clientDocument: parent.client_document,
    ...(parent.client_phone ? { clientPhone: parent.client_phone } : {}),
    paymentMethod: offer.card_token ? 'CARD' : 'PIX',
    trackingParams: parent.tracking_params,
  };
  const extras = { parentTransactionId: parent.id, items: [item], affiliateLinkId: parent.affiliate_link_id };
  const recorded = async (tx: Transaction) => void (await noteTransaction(deps.db, offer.id, tx));
  if (offer.card_token && offer.card_brand && offer.card_last4 && offer.card_connector) {
    const storedCard = { brand: offer.card_brand, last4: offer.card_last4, connector: offer.card_connector };
    return chargeStoredCard(deps, scope, input, { ...extras, storedCard }, offer.card_token, 'ONE_CLICK', { recorded });
  }
  return createTransaction(deps, scope, input, extras, { recorded });
}

/** Declines an offer; an upsell's downsell (its checkout's, now) is offered next. Returns the next offer's id, or null. */
export async function declineOffer(db: Db, id: string, minutes: number, now = new Date()): Promise<string | null> {
  const offer = await offerWithParent(db, id);
  return inTx(db, async (trx) => {
    const row = await trx.selectFrom('upsell_offers').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
    if (row.status === 'ACCEPTED') throw closed('This offer was accepted');
    if (row.status === 'DECLINED') return (await trx.selectFrom('upsell_offers').select('id').where('parent_transaction_id', '=', row.parent_transaction_id).where('kind', '=', 'DOWNSELL').executeTakeFirst())?.id ?? null;
    await trx.updateTable('upsell_offers').set({ status: 'DECLINED', decided_at: now, card_token: null }).where('id', '=', id).execute();
    if (row.kind !== 'UPSELL' || !offer.parent_link_id) return null;
    const checkout = await trx.selectFrom('checkouts').select('id').where('payment_link_id', '=', offer.parent_link_id).executeTakeFirst();
    const [downsell] = checkout ? (await loadOffers(trx, row.user_id, [checkout.id], ['DOWNSELL'])).filter((o) => offerPrice(o) >= 1) : [];
    if (!downsell) return null;
    const card = row.card_token ? { token: row.card_token, brand: row.card_brand ?? '', last4: row.card_last4 ?? '', connector: row.card_connector ?? '' } : null;
    const next = { ...offerValues({ id: row.parent_transaction_id, user_id: row.user_id, livemode: row.livemode }, downsell, 'DOWNSELL', new Date(now.getTime() + minutes * 60_000), card), id: uuidv7() };
    await trx.insertInto('upsell_offers').values(next).onConflict((oc) => oc.columns(['parent_transaction_id', 'kind']).doNothing()).execute();
    return next.id;
  });
}

/**
 * Drops the card tokens of offers nobody decided: an upsell's clock starts at its payment (cards are
 * paid at once), so a day later every such offer has expired. Returns how many were dropped.
 */
export async function dropStaleTokens(db: Db, now: Date): Promise<number> {
  const res = await db
    .updateTable('upsell_offers')
    .set({ card_token: null })
    .where('card_token', 'is not', null)
    .where('created_at', '<', new Date(now.getTime() - 24 * 3_600_000))
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
