import type { App } from '../../deps.ts';
import { errors } from '../../http/schemas.ts';
import { KYC_BODY_LIMIT, KycResponse, SubmitKycBody } from './schemas.ts';
import { getKyc, submitKyc } from './service.ts';

export default async function kycRoutes(app: App) {
  const { db } = app.deps;
  const tags = ['KYC'];

  app.post(
    '/api/kyc',
    {
      config: { auth: { token: true } },
      // Documents travel base64-encoded in the JSON body: this route alone takes up to 25 MB.
      bodyLimit: KYC_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Submit KYC (identity, address and documents) for review',
        description:
          'Dashboard token only. Documents are PNG, JPEG, WebP or PDF (checked by their first bytes, and the declared contentType must agree), at most 5 MB each once decoded; the whole body at most 25 MB. Allowed when nothing was submitted yet or the last submission was REJECTED.',
        body: SubmitKycBody,
        response: { 201: KycResponse, ...errors(400, 401, 413) },
      },
    },
    async (req, reply) => {
      const kyc = await submitKyc(db, req.auth.userId, req.body);
      return reply.code(201).send({ message: 'KYC submitted for review', status: 'SUBMITTED' as const, kyc });
    },
  );

  app.get(
    '/api/kyc',
    {
      config: { auth: { token: true } },
      schema: { tags, summary: 'KYC status and the latest submission (without file contents)', response: { 200: KycResponse, ...errors(401) } },
    },
    async (req) => ({ message: 'OK', ...(await getKyc(db, req.auth.userId)) }),
  );
}
