import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { KycDeps } from './service.ts';
import { Type } from '@sinclair/typebox';
import { ADMIN, emptyBodyIsObject, errors, IdParams, OptionalReasonBody, RequiredReasonBody, Uuid } from '../../http/schemas.ts';
import { AdminKycQuery, KYC_BODY_LIMIT, KycListResponse, KycResponse, KycView, SubmitKycBody } from './schemas.ts';
import { actorOf, operatorOf } from '../audit/service.ts';
import { getDocumentFile, getKyc, getSubmission, listSubmissions, reviewKyc, submitKyc } from './service.ts';

/** The options of kycRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface KycRouteDeps {
  db: Db;
  kyc: KycDeps;
}

export default async function kycRoutes(app: HttpApp, deps: KycRouteDeps) {
  const { db } = deps;
  const tags = ['KYC'];

  app.post(
    '/api/kyc',
    {
      config: { auth: { token: true } },
      // Documents travel base64-encoded in the JSON body: this route alone takes up to 25 MB.
      bodyLimit: KYC_BODY_LIMIT,
      schema: {
        tags,
        operationId: 'submitKyc',
        summary: 'Submit KYC (identity, address and documents) for review',
        description:
          'Dashboard token only. Documents are PNG, JPEG, WebP or PDF (checked by their first bytes, and the declared contentType must agree), at most 5 MB each once decoded; the whole body at most 25 MB. Allowed when nothing was submitted yet or the last submission was REJECTED.',
        body: SubmitKycBody,
        response: { 201: KycResponse, ...errors(400, 401, 413) },
      },
    },
    async (req, reply) => {
      const kyc = await submitKyc(deps.kyc, req.auth.userId, req.body, actorOf(req));
      return reply.code(201).send({ message: 'KYC submitted for review', status: 'SUBMITTED' as const, kyc });
    },
  );

  app.get(
    '/api/kyc',
    {
      config: { auth: { token: true } },
      schema: { tags, operationId: 'getKyc', summary: 'KYC status and the latest submission (without file contents)', response: { 200: KycResponse, ...errors(401) } },
    },
    async (req) => ({ message: 'OK', ...(await getKyc(db, req.auth.userId)) }),
  );

  // --- KYC -----------------------------------------------------------------------------------
  const kycTags = ['Operator: KYC'];
  app.get(
    '/api/admin/kyc',
    { config: ADMIN, schema: { tags: kycTags, operationId: 'adminListKyc', summary: 'KYC submissions (default: SUBMITTED, oldest first)', querystring: AdminKycQuery, response: { 200: KycListResponse, ...errors(400, 401, 403) } } },
    async (req) => listSubmissions(db, req.query),
  );
  app.get(
    '/api/admin/kyc/:id',
    { config: ADMIN, schema: { tags: kycTags, operationId: 'adminGetKyc', summary: 'One KYC submission', params: IdParams, response: { 200: Type.Object({ data: KycView }), ...errors(401, 403, 404) } } },
    async (req) => ({ data: await getSubmission(db, req.params.id) }),
  );
  app.get(
    '/api/admin/kyc/:id/documents/:documentId',
    {
      config: ADMIN,
      schema: {
        tags: kycTags,
        operationId: 'adminGetKycDocument',
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
          operationId: decision === 'APPROVED' ? 'adminApproveKyc' : 'adminRejectKyc',
          summary: decision === 'APPROVED' ? 'Approve a KYC submission' : 'Reject a KYC submission (reason required; the merchant may submit again)',
          params: IdParams,
          body: decision === 'APPROVED' ? OptionalReasonBody : RequiredReasonBody,
          response: { 200: Type.Object({ message: Type.String(), data: KycView }), ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => {
        const data = await reviewKyc(deps.kyc, operatorOf(req), req.params.id, decision, (req.body as { reason?: string }).reason);
        return { message: `KYC ${decision.toLowerCase()}`, data };
      },
    );
  }
}
