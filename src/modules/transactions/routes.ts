import { Type } from '@sinclair/typebox';
import type { App } from '../../deps.ts';
import type { Transaction } from '../../db/types.ts';
import { runIdempotent } from '../../http/idempotency.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import { ApiCreateTransactionBody, withCoupon } from './compat.ts';
import { ListTransactionsQuery, RefundBody, SimulateBody, TransactionListResponse, TransactionResponse } from './schemas.ts';
import { createTransaction, createTransactionStored, getTransaction, listTransactions, refundTransaction, simulate } from './service.ts';
import { transactionView } from './view.ts';

const IdempotencyHeader = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Retries with the same key and body replay the first response (24 h)' })),
});

export default async function transactionRoutes(app: App) {
  const { db, config } = app.deps;
  const tags = ['Transactions'];
  const view = (tx: Parameters<typeof transactionView>[0]) => transactionView(tx, config);

  app.post(
    '/api/v1/transactions',
    {
      // Without a card to charge, creation is one statement: it stores the Idempotency-Key itself.
      config: { auth: { key: 'transactions:write' }, idempotency: { inline: (body: { card?: unknown }) => !body.card } },
      schema: {
        tags,
        summary: 'Create a payment (PIX, card or boleto)',
        description:
          'Creates a PENDING transaction. PIX returns a BR Code and QR image; BOLETO a barcode and digitable line; CARD with `card` is charged at once (PAID or FAILED), without it returns a `paymentUrl` for the hosted page.',
        headers: IdempotencyHeader,
        body: ApiCreateTransactionBody,
        response: { 201: TransactionResponse, ...errors(400, 401, 403, 409, 503) },
      },
    },
    async (req, reply) => {
      const created = (tx: Transaction) => ({ message: 'Transaction created', transaction: view(tx) });
      // The coupon is applied inside the idempotent work: a retry replays the first answer.
      return runIdempotent(db, req, reply, {
        status: 201,
        inline: async (key) => {
          const { input, extras } = await withCoupon(app.deps.tx, req.auth, req.body);
          return createTransactionStored(app.deps.tx, req.auth, input, { key, status: 201, render: (tx) => reply.code(201).serialize(created(tx)) as string }, extras);
        },
        claimed: async () => {
          const { input, extras } = await withCoupon(app.deps.tx, req.auth, req.body);
          return reply.code(201).send(created(await createTransaction(app.deps.tx, req.auth, input, extras)));
        },
      });
    },
  );

  app.get(
    '/api/v1/transactions',
    {
      config: { auth: { key: 'transactions:read' } },
      schema: {
        tags,
        summary: 'List transactions (cursor style, keyset pagination)',
        querystring: ListTransactionsQuery,
        response: { 200: TransactionListResponse, ...errors(400, 401, 403) },
      },
    },
    async (req) => {
      const { rows, pagination } = await listTransactions(app.deps.tx, req.auth, req.query);
      return { message: 'OK', transactions: rows.map(view), pagination };
    },
  );

  app.get(
    '/api/v1/transactions/:id',
    {
      config: { auth: { key: 'transactions:read' } },
      schema: { tags, summary: 'Get a transaction', params: IdParams, response: { 200: TransactionResponse, ...errors(401, 403, 404) } },
    },
    async (req) => ({ message: 'OK', transaction: view(await getTransaction(db, req.auth, req.params.id)) }),
  );

  app.post(
    '/api/v1/transactions/:id/refund',
    {
      config: { auth: { key: 'transactions:write' } },
      schema: {
        tags,
        summary: 'Refund a paid transaction, fully or in part',
        description: 'Full refund -> REFUNDED; partial -> PARTIALLY_REFUNDED. Never more than was paid in total. Fees are not returned.',
        params: IdParams,
        headers: IdempotencyHeader,
        body: Type.Optional(RefundBody),
        response: { 200: TransactionResponse, ...errors(400, 401, 403, 404, 409) },
      },
      // The body is optional: a POST without one means "refund everything left", like `{}`.
      preValidation: async (req) => {
        (req as { body: unknown }).body ??= {};
      },
    },
    async (req) => ({ message: 'Refund concluded', transaction: view(await refundTransaction(db, req.auth, req.params.id, req.body?.amountCents)) }),
  );

  app.post(
    '/api/v1/transactions/:id/simulate',
    {
      config: { auth: { key: 'transactions:write' } },
      schema: {
        tags,
        summary: 'Sandbox: simulate the payment outcome (development keys only)',
        params: IdParams,
        headers: IdempotencyHeader,
        body: SimulateBody,
        response: { 200: TransactionResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => ({ message: `Transaction ${req.body.outcome}`, transaction: view(await simulate(db, req.auth, req.params.id, req.body.outcome)) }),
  );
}
