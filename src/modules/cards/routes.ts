// Saved cards (one-click purchases): POST/GET/DELETE /api/v1/cards. Cards belong to clients, so they
// take the clients' permissions (customers:read, customers:write).
import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import { errors, IdempotencyHeader, IdParams, Message } from '../../http/schemas.ts';
import type { ConnectorRegistry } from '../../payments/registry.ts';
import { ListCardsQuery, SaveCardBody, SavedCardListResponse, SavedCardResponse } from './schemas.ts';
import { deleteSavedCard, getSavedCard, listSavedCards, saveCard, savedCardView } from './service.ts';

/** The options of cardRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface CardRouteDeps {
  db: Db;
  connectors: ConnectorRegistry;
}

export default async function cardRoutes(app: HttpApp, deps: CardRouteDeps) {
  const { db, connectors } = deps;
  const tags = ['Cards'];

  app.post(
    '/api/v1/cards',
    {
      config: { auth: { key: 'customers:write' } },
      schema: {
        tags,
        operationId: 'saveCard',
        summary: 'Save a card of a client (one-click purchases)',
        description: 'The card is kept by the card provider (nothing is charged); the answer shows its brand, last 4 digits and expiry. Charge it with `cardId` on POST /api/v1/transactions. 503 when the provider keeps no cards.',
        headers: IdempotencyHeader,
        body: SaveCardBody,
        response: { 201: SavedCardResponse, ...errors(400, 401, 403, 404, 409, 503) },
      },
    },
    async (req, reply) => reply.code(201).send({ message: 'Card saved', card: savedCardView(await saveCard({ db, connectors }, req.auth, req.body)) }),
  );

  app.get(
    '/api/v1/cards',
    {
      config: { auth: { key: 'customers:read' } },
      schema: { tags, operationId: 'listCards', summary: "List saved cards (page style; a client's with clientId)", querystring: ListCardsQuery, response: { 200: SavedCardListResponse, ...errors(400, 401, 403) } },
    },
    async (req) => {
      const { rows, pagination } = await listSavedCards(db, req.auth, req.query);
      return { message: 'OK', cards: rows.map(savedCardView), pagination };
    },
  );

  app.get(
    '/api/v1/cards/:id',
    {
      config: { auth: { key: 'customers:read' } },
      schema: { tags, operationId: 'getCard', summary: 'Get a saved card', params: IdParams, response: { 200: SavedCardResponse, ...errors(401, 403, 404) } },
    },
    async (req) => ({ message: 'OK', card: savedCardView(await getSavedCard(db, req.auth, req.params.id)) }),
  );

  app.delete(
    '/api/v1/cards/:id',
    {
      config: { auth: { key: 'customers:write' } },
      schema: { tags, operationId: 'deleteCard', summary: 'Delete a saved card (it can no longer be charged)', params: IdParams, response: { 200: Message, ...errors(401, 403, 404) } },
    },
    async (req) => {
      await deleteSavedCard(db, req.auth, req.params.id);
      return { message: 'Card deleted' };
    },
  );
}
