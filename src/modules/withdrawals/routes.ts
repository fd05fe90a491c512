import { Type } from '@sinclair/typebox';
import type { App } from '../../deps.ts';
import { errors, IdParams, Message } from '../../http/schemas.ts';
import { CreateWithdrawalBody, CreateWithdrawalResponse, ListWithdrawalsQuery, WalletBalance, WithdrawalListResponse, WithdrawalResponse } from './schemas.ts';
import { cancelWithdrawal, getWithdrawal, listWithdrawals, requestWithdrawal, walletBalance, withdrawalView } from './service.ts';

const IdempotencyHeader = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Retries with the same key and body replay the first response (24 h)' })),
});

export default async function withdrawalRoutes(app: App) {
  const { db } = app.deps;
  const tags = ['Withdrawals'];

  app.get(
    '/api/withdraws/balance',
    {
      config: { auth: { key: 'withdrawals:read', token: true } },
      schema: { tags, summary: 'Wallet balance (the same numbers as GET /api/v1/balance)', response: { 200: WalletBalance, ...errors(401, 403) } },
    },
    async (req) => walletBalance(db, req.auth),
  );

  app.post(
    '/api/withdraws',
    {
      config: { auth: { key: 'withdrawals:write', token: true } },
      schema: {
        tags,
        summary: 'Request a withdrawal to a PIX key',
        description:
          'Moves amountCents from the available balance to reserved at once (400 INSUFFICIENT_BALANCE if it is not there). The payout sends netAmount = amountCents - feeCents. Production withdrawals need approved KYC.',
        headers: IdempotencyHeader,
        body: CreateWithdrawalBody,
        response: { 201: CreateWithdrawalResponse, ...errors(400, 401, 403, 409) },
      },
    },
    async (req, reply) => {
      const w = await requestWithdrawal(db, app.deps.fees, req.auth, req.body);
      return reply.code(201).send({ message: 'Withdrawal requested', data: withdrawalView(w) });
    },
  );

  app.get(
    '/api/withdraws',
    {
      config: { auth: { key: 'withdrawals:read' } },
      schema: { tags, summary: 'List withdrawals (newest first)', querystring: ListWithdrawalsQuery, response: { 200: WithdrawalListResponse, ...errors(400, 401, 403) } },
    },
    async (req) => {
      const { data, meta } = await listWithdrawals(db, req.auth, req.query);
      return { data: data.map(withdrawalView), meta };
    },
  );

  app.get(
    '/api/withdraws/:id',
    {
      config: { auth: { key: 'withdrawals:read' } },
      schema: { tags, summary: 'Get a withdrawal', params: IdParams, response: { 200: WithdrawalResponse, ...errors(401, 403, 404) } },
    },
    async (req) => ({ data: withdrawalView(await getWithdrawal(db, req.auth, req.params.id)) }),
  );

  app.post(
    '/api/withdraws/:id/cancel',
    {
      config: { auth: { key: 'withdrawals:write', token: true } },
      schema: {
        tags,
        summary: 'Cancel a pending withdrawal (funds return to available)',
        params: IdParams,
        headers: IdempotencyHeader,
        response: { 200: Message, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => {
      await cancelWithdrawal(db, req.auth, req.params.id);
      return { message: 'Withdrawal cancelled' };
    },
  );
}
