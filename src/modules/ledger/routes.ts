import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { Cursors } from '../../http/pagination.ts';
import { CursorPagination, CursorQuery, errors, Timestamp, Uuid } from '../../http/schemas.ts';
import { getBalance, listEntries, listReleases, originBalanceNames, walletOf } from './service.ts';
import type { ReadRouter } from '../../db/read-router.ts';

export const BalanceView = Type.Object({
  availableCents: Type.Integer({ description: 'Can be withdrawn now' }),
  receivableCents: Type.Integer({ description: 'Card instalments not yet settled' }),
  reservedCents: Type.Integer({ description: 'Held for withdrawals in flight' }),
  pendingCents: Type.Integer({ description: 'receivableCents under the origin gateway\'s name' }),
  totalCents: Type.Integer({ description: 'availableCents + pendingCents (the origin gateway\'s total)' }),
});

const EntryView = Type.Object({
  id: Uuid,
  journalId: Uuid,
  account: Type.String({ description: 'available, receivable or reserved' }),
  amountCents: Type.Integer({ description: 'Positive: money in; negative: money out' }),
  balanceAfterCents: Type.Integer(),
  kind: Type.String({ description: 'payment, refund, settlement, ...' }),
  description: Type.String(),
  referenceType: Type.String(),
  referenceId: Uuid,
  createdAt: Timestamp,
});

/** The options of ledgerRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface LedgerRouteDeps {
  db: Db;
  reads: ReadRouter;
  cursors: Cursors;
}

export default async function ledgerRoutes(app: HttpApp, deps: LedgerRouteDeps) {
  const { db, reads, cursors } = deps;
  const tags = ['Balance'];

  app.get(
    '/api/v1/balance',
    {
      config: { auth: { key: 'transactions:read', token: true } },
      schema: {
        tags,
        operationId: 'getBalance',
        summary: 'Wallet balance',
        response: {
          200: Type.Intersect([Type.Object({ message: Type.String(), walletId: Type.String({ format: 'uuid', description: 'This wallet: what another merchant names in a split to send you a share of a sale (docs/splits.md)' }) }), BalanceView]),
          ...errors(401, 403),
        },
      },
    },
    async (req) => {
      const [balance, walletId] = await Promise.all([getBalance(db, req.auth), walletOf(db, req.auth.userId)]);
      return { message: 'OK', walletId, ...balance, ...originBalanceNames(balance) };
    },
  );

  app.get(
    '/api/v1/balance/releases',
    {
      config: { auth: { key: 'transactions:read', token: true } },
      schema: {
        tags,
        operationId: 'listBalanceReleases',
        summary: 'When the receivable balance becomes available, day by day',
        description:
          'Card instalments not yet settled, summed per calendar day (America/Sao_Paulo) on which they become available, soonest first: the first `limit` days, and `totalCents` of all of them (the receivable balance). An instalment already due shows on its day until the settlement sweep releases it; advanced and refunded ones are gone.',
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 30, description: 'How many days' }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            message: Type.String(),
            releases: Type.Array(
              Type.Object({
                date: Type.String({ format: 'date', description: 'YYYY-MM-DD in America/Sao_Paulo' }),
                amountCents: Type.Integer({ description: 'Becomes available that day' }),
                instalments: Type.Integer({ description: 'How many card instalments' }),
              }),
            ),
            totalCents: Type.Integer({ description: 'All the releases, listed or not' }),
          }),
          ...errors(400, 401, 403),
        },
      },
    },
    async (req) => ({ message: 'OK', ...(await listReleases(db, req.auth, req.query.limit)) }),
  );

  app.get(
    '/api/v1/balance/entries',
    {
      config: { auth: { key: 'transactions:read', token: true } },
      schema: {
        tags,
        operationId: 'listBalanceEntries',
        summary: 'Ledger entries of the wallet (newest first unless orderDirection=asc, cursor style)',
        querystring: Type.Object(CursorQuery, { additionalProperties: false }),
        response: { 200: Type.Object({ message: Type.String(), entries: Type.Array(EntryView), pagination: CursorPagination }), ...errors(400, 401, 403) },
      },
    },
    async (req) => {
      const { entries, pagination } = await listEntries(await reads.for(req.auth), cursors, req.auth, req.query);
      return { message: 'OK', entries, pagination };
    },
  );
}
