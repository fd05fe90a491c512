// Saved cards: a card a merchant's client keeps for one-click purchases. The card connector that
// takes the environment's card payments keeps the card (tokenizeCard) and gives back a token, stored
// here with the connector's name (a token is good only there); the PAN and CVV pass through memory
// on their way to it and are never written. The token never leaves Cofre: views leave it out.
import type { Static } from '@sinclair/typebox';
import { uuidv7 } from '../../db/ids.ts';
import type { Executor } from '../../db/index.ts';
import type { SavedCard } from '../../db/types.ts';
import { AppError, notFound, validation } from '../../http/errors.ts';
import { pageInfo } from '../../http/pagination.ts';
import type { Scope } from '../../http/scope.ts';
import { validateCard } from '../../payments/card.ts';
import type { CardToken, Connector } from '../../payments/connector.ts';
import type { ConnectorRegistry } from '../../payments/registry.ts';
import { getClient, refuseErased } from '../clients/service.ts';
import type { ListCardsQuery, SaveCardBody } from './schemas.ts';

export interface CardDeps {
  db: Executor;
  connectors: ConnectorRegistry;
}

/** What may be shown of a saved card: never its token. */
export function savedCardView(c: SavedCard) {
  return { id: c.id, clientId: c.client_id, brand: c.brand, last4: c.last4, expMonth: c.exp_month, expYear: c.exp_year, holderName: c.holder_name, createdAt: c.created_at };
}

/** The 503 of a card connector that keeps no cards. */
export const noSavedCards = (connector: Connector) => new AppError(503, `The payment provider (${connector.name}) does not keep cards: saved cards are not available`);

/** Keeps the card with the environment's card connector and stores its token for the merchant's client. */
export async function saveCard(deps: CardDeps, scope: Scope, body: Static<typeof SaveCardBody>): Promise<SavedCard> {
  const now = new Date();
  const checked = validateCard(body.card, now);
  if (!checked.ok) throw validation(`card.${checked.field}`, checked.reason);
  const client = await getClient(deps.db, scope, body.clientId.toLowerCase());
  refuseErased(client);
  const connector = deps.connectors.forNew(scope.livemode, 'CARD');
  if (!connector.tokenizeCard) throw noSavedCards(connector);
  const kept = await connector.tokenizeCard(body.card, { email: client.email });
  return deps.db
    .insertInto('saved_cards')
    .values({
      id: uuidv7(now.getTime()),
      user_id: scope.userId,
      livemode: scope.livemode,
      client_id: client.id,
      connector: connector.name,
      token: kept.token,
      brand: kept.brand,
      last4: kept.last4,
      exp_month: kept.expMonth,
      exp_year: kept.expYear,
      holder_name: body.card.holderName.trim(),
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

const ownCards = (db: Executor, scope: Scope) => db.selectFrom('saved_cards').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);

/** The scope's saved card `id`, or null (another merchant's, the other environment's, deleted or unknown). */
export function findSavedCard(db: Executor, scope: Scope, id: string): Promise<SavedCard | undefined> {
  return ownCards(db, scope).selectAll().where('id', '=', id.toLowerCase()).executeTakeFirst();
}

export async function getSavedCard(db: Executor, scope: Scope, id: string): Promise<SavedCard> {
  const card = await findSavedCard(db, scope, id);
  if (!card) throw notFound('Card');
  return card;
}

/** Forgets the card: its token is deleted, so it can never be charged again through Cofre. */
export async function deleteSavedCard(db: Executor, scope: Scope, id: string): Promise<void> {
  const gone = await db.deleteFrom('saved_cards').where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', id.toLowerCase()).executeTakeFirst();
  if (!gone.numDeletedRows) throw notFound('Card');
}

export async function listSavedCards(db: Executor, scope: Scope, q: Static<typeof ListCardsQuery>) {
  const base = q.clientId ? ownCards(db, scope).where('client_id', '=', q.clientId.toLowerCase()) : ownCards(db, scope);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).execute(),
  ]);
  return { rows, pagination: pageInfo(q.page, q.limit, Number(total)) };
}

/**
 * The saved card `cardId` as it pays for `client` (its id, else the client with its document: how a
 * creation names its client), or a 400 on `cardId`: unknown here (another merchant's, the other
 * environment's, deleted), or another client's card.
 */
export async function savedCardFor(db: Executor, scope: Scope, cardId: string, client: { id?: string; document: string }): Promise<SavedCard> {
  const card = await findSavedCard(db, scope, cardId);
  if (!card) throw validation('cardId', 'is not a saved card of this merchant and environment');
  const owner = await db.selectFrom('clients').select(['id', 'document', 'erased_at']).where('id', '=', card.client_id).where('deleted_at', 'is', null).executeTakeFirst();
  if (owner) refuseErased(owner, 'cardId');
  const same = client.id ? owner?.id === client.id : owner?.document === client.document;
  if (!same) throw validation('cardId', "is another client's card: a saved card pays only for its own client");
  return card;
}

/** A saved card as a kept card for a subscription: only one kept by the connector taking new card payments (renewals are charged there). */
export async function savedCardToken(deps: CardDeps, scope: Scope, cardId: string, client: { id?: string; document: string }): Promise<CardToken> {
  const card = await savedCardFor(deps.db, scope, cardId, client);
  if (card.connector !== deps.connectors.forNew(scope.livemode, 'CARD').name) throw validation('cardId', 'was saved with a card provider that no longer takes new card payments: save the card again');
  return { token: card.token, brand: card.brand, last4: card.last4, expMonth: card.exp_month, expYear: card.exp_year };
}
