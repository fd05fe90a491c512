// Fees over HTTP: a merchant reads the fees that apply to it; an operator sets a merchant's.
import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { FeeSchedule } from './schedule.ts';
import { ownAccount } from '../../http/errors.ts';
import { operatorOf } from '../audit/service.ts';
import { ADMIN, errors, IdParams } from '../../http/schemas.ts';
import { FeeOverrides, FeesView } from './schedule.ts';

/** The options of feeRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface FeeRouteDeps {
  fees: FeeSchedule;
}

export default async function feeRoutes(app: HttpApp, deps: FeeRouteDeps) {
  const { fees } = deps;

  app.get(
    '/api/v1/fees',
    {
      config: { auth: { key: 'transactions:read', token: true } },
      schema: {
        tags: ['Balance'],
        operationId: 'getFees',
        summary: 'The fees that apply to this merchant',
        description: "The platform's fees, or the ones an operator negotiated with this merchant; each payment, withdrawal and advance keeps the fee it was made with.",
        response: { 200: Type.Object({ message: Type.String(), fees: FeesView }), ...errors(401, 403) },
      },
    },
    async (req) => ({ message: 'OK', fees: await fees.of(req.auth.userId) }),
  );

  const tags = ['Operator: fees'];
  const FeesResponse = Type.Object({ message: Type.String(), fees: FeesView, overrides: FeeOverrides });
  app.get(
    '/api/admin/merchants/:id/fees',
    {
      config: ADMIN,
      schema: { tags, operationId: 'adminGetMerchantFees', summary: "A merchant's fees: the platform's, with its overrides", params: IdParams, response: { 200: FeesResponse, ...errors(401, 403, 404) } },
    },
    async (req) => ({ message: 'OK', ...(await fees.describe(req.params.id)) }),
  );
  app.put(
    '/api/admin/merchants/:id/fees',
    {
      config: ADMIN,
      schema: {
        tags,
        operationId: 'adminSetMerchantFees',
        summary: "Set a merchant's negotiated fees",
        description:
          'The fields given replace the platform\'s fees (FEE_* settings) for this merchant, in both environments; the others follow the platform. `{}` removes every override. Applies to payments, withdrawals and advances made from now on (at once on this instance, within 30 s on the others); existing ones keep their fee.',
        params: IdParams,
        body: FeeOverrides,
        response: { 200: FeesResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      if (req.params.id === req.auth.userId) throw ownAccount();
      return { message: 'Fees updated', ...(await fees.set(req.params.id, req.body, operatorOf(req))) };
    },
  );
}
