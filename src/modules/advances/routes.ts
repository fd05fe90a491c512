import { actorOf, operatorOf } from '../audit/service.ts';
import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { AdvanceDeps } from './service.ts';
import { ADMIN, emptyBodyIsObject, errors, IdempotencyHeader, IdParams, OptionalReasonBody, PagePagination, RequiredReasonBody } from '../../http/schemas.ts';
import { AdminAdvancesQuery, AdminAdvanceView, AdvanceListResponse, AdvanceResponse, CreateAdvanceBody, ListAdvancesQuery, SimulateQuery, SimulationResponse } from './schemas.ts';
import { adminListAdvances, advanceView, approveAdvance, cancelAdvance, createAdvance, getAdvance, listAdvances, rejectAdvance, simulateAdvance } from './service.ts';
import type { ReadRouter } from '../../db/read-router.ts';


/** The options of advanceRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface AdvanceRouteDeps {
  db: Db;
  reads: ReadRouter;
  advances: AdvanceDeps;
}

// Spec "T" routes: the dashboard token, or an API key with withdrawals:read / withdrawals:write.
export default async function advanceRoutes(app: HttpApp, opts: AdvanceRouteDeps) {
  const { db, reads } = opts;
  const deps = opts.advances;
  const tags = ['Advances'];

  app.get(
    '/api/advances/simulate',
    {
      config: { auth: { key: 'withdrawals:read', token: true } },
      schema: {
        tags,
        operationId: 'simulateAdvance',
        summary: 'Quote an advance of card receivables',
        description: 'Fee = monthly rate x days until each instalment settles / 30, over the instalments covered (nearest settlement first). amountCents omitted: everything that can be advanced.',
        querystring: SimulateQuery,
        response: { 200: SimulationResponse, ...errors(400, 401, 403) },
      },
    },
    async (req) => ({ message: 'OK', ...(await simulateAdvance(deps, req.auth, req.query.amountCents)) }),
  );

  app.post(
    '/api/advances',
    {
      config: { auth: { key: 'withdrawals:write', token: true } },
      schema: {
        tags,
        operationId: 'createAdvance',
        summary: 'Request an advance of card receivables',
        description:
          'One advance PENDING or APPROVED at a time (400 ADVANCE_ALREADY_ACTIVE). Production advances need approved KYC and are approved by an operator; development advances are approved at once.',
        headers: IdempotencyHeader,
        body: CreateAdvanceBody,
        response: { 201: AdvanceResponse, ...errors(400, 401, 403, 409) },
      },
    },
    async (req, reply) => {
      const { advance, items } = await createAdvance(deps, req.auth, req.body, actorOf(req));
      const message = advance.status === 'COMPLETED' ? 'Advance approved and credited to the available balance' : 'Advance requested; it will be reviewed';
      return reply.code(201).send({ message, advance: advanceView(advance, items) });
    },
  );

  app.get(
    '/api/advances',
    {
      config: { auth: { key: 'withdrawals:read', token: true } },
      schema: { tags, operationId: 'listAdvances', summary: 'List advances (newest first, page style)', querystring: ListAdvancesQuery, response: { 200: AdvanceListResponse, ...errors(400, 401, 403) } },
    },
    async (req) => {
      const { rows, pagination } = await listAdvances(await reads.for(req.auth), req.auth, req.query);
      return { message: 'OK', advances: rows.map((a) => advanceView(a)), pagination };
    },
  );

  app.get(
    '/api/advances/:id',
    {
      config: { auth: { key: 'withdrawals:read', token: true } },
      schema: { tags, operationId: 'getAdvance', summary: 'Get an advance with the instalments it covered', params: IdParams, response: { 200: AdvanceResponse, ...errors(401, 403, 404) } },
    },
    async (req) => {
      const { advance, items } = await getAdvance(db, req.auth, req.params.id);
      return { message: 'OK', advance: advanceView(advance, items) };
    },
  );

  app.post(
    '/api/advances/:id/cancel',
    {
      config: { auth: { key: 'withdrawals:write', token: true } },
      schema: { tags, operationId: 'cancelAdvance', summary: 'Cancel a PENDING advance', params: IdParams, headers: IdempotencyHeader, response: { 200: AdvanceResponse, ...errors(400, 401, 403, 404, 409) } },
    },
    async (req) => ({ message: 'Advance cancelled', advance: advanceView(await cancelAdvance(db, req.auth, req.params.id, actorOf(req))) }),
  );

  // --- Advances ------------------------------------------------------------------------------
  const advanceTags = ['Operator: advances'];
  app.get(
    '/api/admin/advances',
    {
      config: ADMIN,
      schema: {
        tags: advanceTags,
        operationId: 'adminListAdvances',
        summary: 'Advances (default: PENDING in production, oldest first)',
        querystring: AdminAdvancesQuery,
        response: { 200: Type.Object({ data: Type.Array(AdminAdvanceView), meta: PagePagination }), ...errors(400, 401, 403) },
      },
    },
    async (req) => adminListAdvances(db, req.query),
  );
  app.get(
    '/api/admin/advances/:id',
    { config: ADMIN, schema: { tags: advanceTags, operationId: 'adminGetAdvance', summary: 'One advance', params: IdParams, response: { 200: Type.Object({ data: AdminAdvanceView }), ...errors(401, 403, 404) } } },
    async (req) => {
      const { advance, items } = await getAdvance(db, null, req.params.id);
      return { data: { ...advanceView(advance, items), livemode: advance.livemode } };
    },
  );
  app.post(
    '/api/admin/advances/:id/approve',
    {
      config: ADMIN,
      preValidation: emptyBodyIsObject,
      schema: {
        tags: advanceTags,
        operationId: 'adminApproveAdvance',
        summary: 'Approve a PENDING advance: it completes at once (receivables advanced, net amount credited)',
        params: IdParams,
        body: OptionalReasonBody,
        response: { 200: Type.Object({ message: Type.String(), data: AdminAdvanceView }), ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const { advance, items } = await approveAdvance(deps, operatorOf(req), req.params.id, req.body.reason);
      return { message: 'Advance approved and credited', data: { ...advanceView(advance, items), livemode: advance.livemode } };
    },
  );
  app.post(
    '/api/admin/advances/:id/reject',
    {
      config: ADMIN,
      schema: { tags: advanceTags, operationId: 'adminRejectAdvance', summary: 'Reject a PENDING advance (reason required)', params: IdParams, body: RequiredReasonBody, response: { 200: Type.Object({ message: Type.String(), data: AdminAdvanceView }), ...errors(400, 401, 403, 404) } },
    },
    async (req) => {
      const advance = await rejectAdvance(deps, operatorOf(req), req.params.id, req.body.reason);
      return { message: 'Advance rejected', data: { ...advanceView(advance), livemode: advance.livemode } };
    },
  );
}
