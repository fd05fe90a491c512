import { actorOf, operatorOf } from '../audit/service.ts';
import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { Withdrawal } from '../../db/types.ts';
import { answerWithin } from '../../http/idempotency.ts';
import type { WithdrawalDeps } from './service.ts';
import { ADMIN, emptyBodyIsObject, errors, IdempotencyHeader, IdParams, Message, PagePagination, RequiredReasonBody } from '../../http/schemas.ts';
import { AdminWithdrawalsQuery, AdminWithdrawalView, CreateWithdrawalBody, CreateWithdrawalResponse, ListWithdrawalsQuery, PayoutHealthView, SimulateWithdrawalBody, WalletBalance, WithdrawalListResponse, WithdrawalResponse, WithdrawalView } from './schemas.ts';
import { payoutHealth } from './health.ts';
import { adminListWithdrawals, adminWithdrawalView, approveWithdrawal, cancelWithdrawal, getWithdrawal, listWithdrawals, requestWithdrawal, settleByHand, simulateWithdrawal, walletBalance, withdrawalView } from './service.ts';
import type { ReadRouter } from '../../db/read-router.ts';


/** The options of withdrawalRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface WithdrawalRouteDeps {
  db: Db;
  reads: ReadRouter;
  withdrawals: WithdrawalDeps;
}

export default async function withdrawalRoutes(app: HttpApp, deps: WithdrawalRouteDeps) {
  const { db, reads, withdrawals } = deps;
  const tags = ['Withdrawals'];

  app.get(
    '/api/withdraws/balance',
    {
      config: { auth: { key: 'withdrawals:read', token: true } },
      schema: { tags, operationId: 'getWithdrawalBalance', summary: 'Wallet balance (the same numbers as GET /api/v1/balance)', response: { 200: WalletBalance, ...errors(401, 403) } },
    },
    async (req) => walletBalance(db, req.auth),
  );

  app.post(
    '/api/withdraws',
    {
      config: { auth: { key: 'withdrawals:write', token: true }, secondFactor: 'production' },
      schema: {
        tags,
        operationId: 'createWithdrawal',
        summary: 'Request a withdrawal to a PIX key',
        description:
          'Moves amountCents from the available balance to reserved at once (400 INSUFFICIENT_BALANCE if it is not there). The payout sends netAmount = amountCents - feeCents. Production withdrawals need approved KYC.',
        headers: IdempotencyHeader,
        body: CreateWithdrawalBody,
        response: { 201: CreateWithdrawalResponse, ...errors(400, 401, 403, 409) },
      },
    },
    async (req, reply) => {
      const body = (w: Withdrawal) => ({ message: 'Withdrawal requested', data: withdrawalView(w) });
      // The answer commits with the withdrawal: a retry after a crash replays it, never withdraws again.
      const w = await requestWithdrawal(withdrawals, req.auth, req.body, actorOf(req), answerWithin(req, reply, 201, body));
      return reply.code(201).send(body(w));
    },
  );

  app.get(
    '/api/withdraws',
    {
      config: { auth: { key: 'withdrawals:read' } },
      schema: { tags, operationId: 'listWithdrawals', summary: 'List withdrawals (newest first)', querystring: ListWithdrawalsQuery, response: { 200: WithdrawalListResponse, ...errors(400, 401, 403) } },
    },
    async (req) => {
      const { data, meta } = await listWithdrawals(await reads.for(req.auth), req.auth, req.query);
      return { data: data.map(withdrawalView), meta };
    },
  );

  app.get(
    '/api/withdraws/:id',
    {
      config: { auth: { key: 'withdrawals:read' } },
      schema: { tags, operationId: 'getWithdrawal', summary: 'Get a withdrawal', params: IdParams, response: { 200: WithdrawalResponse, ...errors(401, 403, 404) } },
    },
    async (req) => ({ data: withdrawalView(await getWithdrawal(db, req.auth, req.params.id)) }),
  );

  app.post(
    '/api/withdraws/:id/cancel',
    {
      config: { auth: { key: 'withdrawals:write', token: true } },
      schema: {
        tags,
        operationId: 'cancelWithdrawal',
        summary: 'Cancel a pending withdrawal (funds return to available)',
        params: IdParams,
        headers: IdempotencyHeader,
        response: { 200: Message, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => {
      await cancelWithdrawal(withdrawals, req.auth, req.params.id, actorOf(req));
      return { message: 'Withdrawal cancelled' };
    },
  );

  app.post(
    '/api/withdraws/:id/simulate',
    {
      config: { auth: { key: 'withdrawals:write', token: true } },
      schema: {
        tags,
        operationId: 'simulateWithdrawal',
        summary: 'Sandbox: settle a development withdrawal as the PSP would (development keys only)',
        description:
          'PENDING or PROCESSING -> COMPLETED, or FAILED with reason (default PAYOUT_REJECTED: funds back to available, withdrawal.failed), so an integration can be built for both. 403 with a production key; 400 INVALID_STATE_TRANSITION once it is settled.',
        params: IdParams,
        body: SimulateWithdrawalBody,
        response: { 200: Type.Object({ message: Type.String(), data: WithdrawalView }), ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const outcome = req.body.outcome === 'COMPLETED' ? ({ status: 'COMPLETED' } as const) : ({ status: 'FAILED', reason: req.body.reason ?? 'PAYOUT_REJECTED' } as const);
      return { message: `Withdrawal ${outcome.status.toLowerCase()} (simulated)`, data: withdrawalView(await simulateWithdrawal(withdrawals, req.auth, req.params.id, outcome, actorOf(req))) };
    },
  );

  // --- Withdrawals ---------------------------------------------------------------------------
  const withdrawalTags = ['Operator: withdrawals'];
  app.post(
    '/api/admin/withdrawals/:id/approve',
    {
      config: ADMIN,
      preValidation: emptyBodyIsObject,
      schema: {
        tags: withdrawalTags,
        operationId: 'adminApproveWithdrawal',
        summary: 'Approve a production withdrawal held for review (the payout job sends it)',
        description: 'Held: above PAYOUT_REVIEW_ABOVE_CENTS or past PAYOUT_DAILY_LIMIT_CENTS, or to a new destination before its holdUntil (holdReason). Not your own account (403).',
        params: IdParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Object({ message: Type.String(), data: AdminWithdrawalView }), ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ message: 'Withdrawal approved', data: adminWithdrawalView(await approveWithdrawal(withdrawals, operatorOf(req), req.params.id)) }),
  );
  app.get(
    '/api/admin/payouts/health',
    {
      config: ADMIN,
      schema: { tags: withdrawalTags, operationId: 'adminPayoutHealth', summary: 'Automatic payouts: provider reachable, its balance, last success, what waits', response: { 200: PayoutHealthView, ...errors(401, 403) } },
    },
    async () => payoutHealth(withdrawals),
  );
  app.get(
    '/api/admin/withdrawals',
    {
      config: ADMIN,
      schema: {
        tags: withdrawalTags,
        operationId: 'adminListWithdrawals',
        summary: 'Withdrawals (default: production, PENDING and PROCESSING, oldest first)',
        querystring: AdminWithdrawalsQuery,
        response: { 200: Type.Object({ data: Type.Array(AdminWithdrawalView), meta: PagePagination }), ...errors(400, 401, 403) },
      },
    },
    async (req) => adminListWithdrawals(db, req.query),
  );
  app.post(
    '/api/admin/withdrawals/:id/complete',
    {
      config: ADMIN,
      preValidation: emptyBodyIsObject,
      schema: {
        tags: withdrawalTags,
        operationId: 'adminCompleteWithdrawal',
        summary: 'Mark a production withdrawal paid by hand',
        description: 'PENDING or PROCESSING -> COMPLETED. externalId: the transfer’s reference (e.g. the PIX end-to-end id).',
        params: IdParams,
        body: Type.Object({ externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false }),
        response: { 200: Type.Object({ message: Type.String(), data: AdminWithdrawalView }), ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ message: 'Withdrawal completed', data: adminWithdrawalView(await settleByHand(withdrawals, operatorOf(req), req.params.id, { status: 'COMPLETED', externalId: req.body.externalId })) }),
  );
  app.post(
    '/api/admin/withdrawals/:id/fail',
    {
      config: ADMIN,
      schema: {
        tags: withdrawalTags,
        operationId: 'adminFailWithdrawal',
        summary: 'Mark a production withdrawal failed by hand (funds back to available)',
        params: IdParams,
        body: RequiredReasonBody,
        response: { 200: Type.Object({ message: Type.String(), data: AdminWithdrawalView }), ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ message: 'Withdrawal failed', data: adminWithdrawalView(await settleByHand(withdrawals, operatorOf(req), req.params.id, { status: 'FAILED', reason: req.body.reason })) }),
  );
}
