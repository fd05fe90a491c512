import type { Db } from '../../db/index.ts';
import { notFound } from '../../http/errors.ts';
import type { HttpApp } from '../../http/app-type.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import { ListSharesQuery, ShareList, SplitSummary, SummaryQuery, TransactionShares } from './schemas.ts';
import { listShares, splitSummary, transactionShares } from './service.ts';
import type { ReadRouter } from '../../db/read-router.ts';

/** The options of splitRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface SplitRouteDeps {
  db: Db;
  reads: ReadRouter;
}

export default async function splitRoutes(app: HttpApp, deps: SplitRouteDeps) {
  const { db, reads } = deps;
  const tags = ['Splits'];
  const read = { auth: { key: 'transactions:read' as const, token: true } };

  app.get(
    '/api/v1/splits',
    {
      config: read,
      schema: {
        tags,
        operationId: 'listSplitShares',
        summary: 'Shares of sales: received from other merchants, or sent from yours',
        description: "role=received (default): every share another merchant's sale paid you, with the sale and its seller (never the shopper). role=sent: the shares your sales paid. Newest first.",
        querystring: ListSharesQuery,
        response: { 200: ShareList, ...errors(400, 401, 403) },
      },
    },
    async (req) => listShares(await reads.for(req.auth), req.auth, req.query),
  );

  app.get(
    '/api/v1/splits/summary',
    {
      config: read,
      schema: {
        tags,
        operationId: 'getSplitSummary',
        summary: 'Your sales of a period: gross, fees, what went to each recipient, your own part',
        querystring: SummaryQuery,
        response: { 200: SplitSummary, ...errors(400, 401, 403) },
      },
    },
    async (req) => splitSummary(await reads.for(req.auth), req.auth, req.query),
  );

  app.get(
    '/api/v1/transactions/:id/splits',
    {
      config: read,
      schema: {
        tags,
        operationId: 'listTransactionSplits',
        summary: "A sale's shares: what each recipient got and what refunds took back",
        params: IdParams,
        response: { 200: TransactionShares, ...errors(401, 403, 404) },
      },
    },
    async (req) => (await transactionShares(db, req.auth, req.params.id)) ?? Promise.reject(notFound('Transaction')),
  );
}
