// Operator API: dashboard token of a user with role ADMIN (created with `cli admin create`);
// anyone else gets 403. Review queues across all merchants: KYC, advances, production withdrawals.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../deps.ts';
import { errors, Uuid } from '../../http/schemas.ts';
import { AdminAdvancesQuery, AdminAdvanceView } from '../advances/schemas.ts';
import { adminListAdvances, advanceView, approveAdvance, getAdvance, rejectAdvance } from '../advances/service.ts';
import { AdminKycQuery, KycListResponse, KycView } from '../kyc/schemas.ts';
import { getDocumentFile, getSubmission, listSubmissions, reviewKyc } from '../kyc/service.ts';
import { PagePagination } from '../../http/schemas.ts';
import { AdminWithdrawalsQuery, AdminWithdrawalView } from '../withdrawals/schemas.ts';
import { adminListWithdrawals, adminWithdrawalView, settleByHand } from '../withdrawals/service.ts';
import { FeeOverrides, FeesView } from '../fees.ts';

const ADMIN = { auth: { token: true, admin: true } } as const;
const Id = Type.Object({ id: Uuid });
const Reason = Type.String({ minLength: 1, maxLength: 500 });
const OptionalReasonBody = Type.Object({ reason: Type.Optional(Reason) }, { additionalProperties: false });
const RequiredReasonBody = Type.Object({ reason: Reason }, { additionalProperties: false });
/** A POST without a body means `{}` (approve without a comment). */
const emptyBodyIsObject = async (req: FastifyRequest) => {
  (req as { body: unknown }).body ??= {};
};

export default async function adminRoutes(app: App) {
  const { db, config } = app.deps;

  // --- KYC -----------------------------------------------------------------------------------
  const kycTags = ['Operator: KYC'];
  app.get(
    '/api/admin/kyc',
    { config: ADMIN, schema: { tags: kycTags, summary: 'KYC submissions (default: SUBMITTED, oldest first)', querystring: AdminKycQuery, response: { 200: KycListResponse, ...errors(400, 401, 403) } } },
    async (req) => listSubmissions(db, req.query),
  );
  app.get(
    '/api/admin/kyc/:id',
    { config: ADMIN, schema: { tags: kycTags, summary: 'One KYC submission', params: Id, response: { 200: Type.Object({ data: KycView }), ...errors(401, 403, 404) } } },
    async (req) => ({ data: await getSubmission(db, req.params.id) }),
  );
  app.get(
    '/api/admin/kyc/:id/documents/:documentId',
    {
      config: ADMIN,
      schema: {
        tags: kycTags,
        summary: 'Download a KYC document (the file as uploaded)',
        params: Type.Object({ id: Uuid, documentId: Uuid }),
        response: { 200: Type.Unsafe({ description: 'The file (PNG, JPEG, WebP or PDF)' }), ...errors(401, 403, 404) },
      },
    },
    async (req, reply) => {
      const file = await getDocumentFile(db, req.params.id, req.params.documentId);
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.fileName.replace(/[^\w.-]/g, '_')}"`)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-store')
        .send(file.content);
    },
  );
  for (const [action, decision] of [
    ['approve', 'APPROVED'],
    ['reject', 'REJECTED'],
  ] as const) {
    app.post(
      `/api/admin/kyc/:id/${action}`,
      {
        config: ADMIN,
        preValidation: emptyBodyIsObject,
        schema: {
          tags: kycTags,
          summary: decision === 'APPROVED' ? 'Approve a KYC submission' : 'Reject a KYC submission (reason required; the merchant may submit again)',
          params: Id,
          body: decision === 'APPROVED' ? OptionalReasonBody : RequiredReasonBody,
          response: { 200: Type.Object({ message: Type.String(), data: KycView }), ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => {
        const data = await reviewKyc(db, req.auth.userId, req.params.id, decision, (req.body as { reason?: string }).reason);
        return { message: `KYC ${decision.toLowerCase()}`, data };
      },
    );
  }

  // --- Advances ------------------------------------------------------------------------------
  const advanceTags = ['Operator: advances'];
  app.get(
    '/api/admin/advances',
    {
      config: ADMIN,
      schema: {
        tags: advanceTags,
        summary: 'Advances (default: PENDING in production, oldest first)',
        querystring: AdminAdvancesQuery,
        response: { 200: Type.Object({ data: Type.Array(AdminAdvanceView), meta: PagePagination }), ...errors(400, 401, 403) },
      },
    },
    async (req) => adminListAdvances(db, req.query),
  );
  app.get(
    '/api/admin/advances/:id',
    { config: ADMIN, schema: { tags: advanceTags, summary: 'One advance', params: Id, response: { 200: Type.Object({ data: AdminAdvanceView }), ...errors(401, 403, 404) } } },
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
        summary: 'Approve a PENDING advance: it completes at once (receivables advanced, net amount credited)',
        params: Id,
        body: OptionalReasonBody,
        response: { 200: Type.Object({ message: Type.String(), data: AdminAdvanceView }), ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const { advance, items } = await approveAdvance({ db, fees: app.deps.fees }, req.auth.userId, req.params.id, req.body.reason);
      return { message: 'Advance approved and credited', data: { ...advanceView(advance, items), livemode: advance.livemode } };
    },
  );
  app.post(
    '/api/admin/advances/:id/reject',
    {
      config: ADMIN,
      schema: { tags: advanceTags, summary: 'Reject a PENDING advance (reason required)', params: Id, body: RequiredReasonBody, response: { 200: Type.Object({ message: Type.String(), data: AdminAdvanceView }), ...errors(400, 401, 403, 404) } },
    },
    async (req) => {
      const advance = await rejectAdvance(db, req.auth.userId, req.params.id, req.body.reason);
      return { message: 'Advance rejected', data: { ...advanceView(advance), livemode: advance.livemode } };
    },
  );

  // --- Withdrawals ---------------------------------------------------------------------------
  const withdrawalTags = ['Operator: withdrawals'];
  app.get(
    '/api/admin/withdrawals',
    {
      config: ADMIN,
      schema: {
        tags: withdrawalTags,
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
        summary: 'Mark a production withdrawal paid by hand',
        description: 'PENDING or PROCESSING -> COMPLETED. externalId: the transfer’s reference (e.g. the PIX end-to-end id).',
        params: Id,
        body: Type.Object({ externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false }),
        response: { 200: Type.Object({ message: Type.String(), data: AdminWithdrawalView }), ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ message: 'Withdrawal completed', data: adminWithdrawalView(await settleByHand(db, req.params.id, { status: 'COMPLETED', externalId: req.body.externalId })) }),
  );
  app.post(
    '/api/admin/withdrawals/:id/fail',
    {
      config: ADMIN,
      schema: {
        tags: withdrawalTags,
        summary: 'Mark a production withdrawal failed by hand (funds back to available)',
        params: Id,
        body: RequiredReasonBody,
        response: { 200: Type.Object({ message: Type.String(), data: AdminWithdrawalView }), ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ message: 'Withdrawal failed', data: adminWithdrawalView(await settleByHand(db, req.params.id, { status: 'FAILED', reason: req.body.reason })) }),
  );

  // --- Fees ----------------------------------------------------------------------------------
  const feeTags = ['Operator: fees'];
  const FeesResponse = Type.Object({ message: Type.String(), fees: FeesView, overrides: FeeOverrides });
  app.get(
    '/api/admin/merchants/:id/fees',
    {
      config: ADMIN,
      schema: { tags: feeTags, summary: "A merchant's fees: the platform's, with its overrides", params: Id, response: { 200: FeesResponse, ...errors(401, 403, 404) } },
    },
    async (req) => ({ message: 'OK', ...(await app.deps.fees.describe(req.params.id)) }),
  );
  app.put(
    '/api/admin/merchants/:id/fees',
    {
      config: ADMIN,
      schema: {
        tags: feeTags,
        summary: "Set a merchant's negotiated fees",
        description:
          'The fields given replace the platform\'s fees (FEE_* settings) for this merchant, in both environments; the others follow the platform. `{}` removes every override. Applies to payments, withdrawals and advances made from now on (at once on this instance, within 30 s on the others); existing ones keep their fee.',
        params: Id,
        body: FeeOverrides,
        response: { 200: FeesResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ message: 'Fees updated', ...(await app.deps.fees.set(req.params.id, req.body)) }),
  );
}
