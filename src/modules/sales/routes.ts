// A sale through the API: POST /api/v1/transactions, with the origin's spellings, a payment link
// and a coupon handled here (api.ts) before the payment core creates the transaction.
import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { Config } from '../../config.ts';
import type { TransactionDeps } from '../transactions/types.ts';
import type { Transaction } from '../../db/types.ts';
import { holdKey, runIdempotent, sendJsonText } from '../../http/idempotency.ts';
import { errors, IdempotencyHeader } from '../../http/schemas.ts';
import { TransactionResponse } from '../transactions/schemas.ts';
import { transactionView } from '../transactions/view.ts';
import { ApiCreateTransactionBody, createApiTransaction, createApiTransactionWith } from './api.ts';

/** The options of salesRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface SalesRouteDeps {
  db: Db;
  config: Config;
  transactions: TransactionDeps;
}

export default async function salesRoutes(app: HttpApp, deps: SalesRouteDeps) {
  const { db, config, transactions } = deps;
  const tags = ['Transactions'];
  const view = (tx: Parameters<typeof transactionView>[0]) => transactionView(tx, config);

  app.post(
    '/api/v1/transactions',
    {
      // The creation statement stores the Idempotency-Key itself (with a card, the PENDING answer,
      // held until the charge's answer replaces it). A coupon reserves a use before creating, and a
      // saved card is charged by its own path: their keys are claimed first.
      config: { auth: { key: 'transactions:write' }, idempotency: { inline: (body: { couponCode?: unknown; cardId?: unknown }) => body.couponCode === undefined && body.cardId === undefined } },
      schema: {
        tags,
        operationId: 'createTransaction',
        summary: 'Create a payment (PIX, card or boleto)',
        description:
          'Creates a PENDING transaction. PIX returns a BR Code and QR image; BOLETO a barcode and digitable line; CARD with `card` (or `cardId`, a saved card: a one-click purchase) is charged at once (PAID or FAILED), without either returns a `paymentUrl` for the hosted page.',
        headers: IdempotencyHeader,
        body: ApiCreateTransactionBody,
        response: { 201: TransactionResponse, ...errors(400, 401, 403, 409, 502, 503) },
      },
    },
    async (req, reply) => {
      const created = (tx: Transaction) => reply.code(201).serialize({ message: 'Transaction created', transaction: view(tx) }) as string;
      return runIdempotent(db, req, reply, {
        status: 201,
        // The creation statement stores the key with the response, rendered here from the row.
        inline: (key) => createApiTransactionWith(transactions, req.auth, req.body, { key, status: 201, render: created }),
        // A card is charged only once its transaction and the key's provisional answer are stored.
        claimed: async () => {
          // With a couponCode (origin compatibility): applied as the checkout applies it (compat.ts).
          const tx = await createApiTransaction(transactions, req.auth, req.body, { recorded: (pending) => (pending.card_last4 ? holdKey(db, req, 201, created(pending)) : Promise.resolve()) });
          return sendJsonText(reply, 201, created(tx));
        },
      });
    },
  );
}
