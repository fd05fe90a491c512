// Split partners: /api/v1/split-partners (docs/accounts.md#split-partners). Transport only: the rules are in partners.ts.
import type { Db } from '../../db/index.ts';
import type { Config } from '../../config.ts';
import type { HttpApp } from '../../http/app-type.ts';
import type { RateLimiter } from '../../http/ratelimit.ts';
import { emptyBodyIsObject, errors, IdParams } from '../../http/schemas.ts';
import { actorOf } from '../audit/service.ts';
import { InvitePartnerBody, ListPartnersQuery, PartnerList, PartnerResponse } from './schemas.ts';
import { decidePartner, getPartner, invitePartner, listPartners, revokePartner } from './partners.ts';

/** The options of partnerRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface PartnerRouteDeps {
  db: Db;
  config: Config;
  limiter: RateLimiter;
}

export default async function partnerRoutes(app: HttpApp, deps: PartnerRouteDeps) {
  const { db } = deps;
  const partners = { db, limiter: deps.limiter, baseUrl: deps.config.baseUrl };
  const tags = ['Split partners'];
  const READ = { auth: { key: 'accounts:read' as const, token: true } };
  const WRITE = { auth: { key: 'accounts:write' as const, token: true } };

  app.post(
    '/api/v1/split-partners',
    {
      config: WRITE,
      schema: {
        tags,
        operationId: 'inviteSplitPartner',
        summary: 'Invite another merchant to receive shares of your sales',
        description:
          'PENDING until the partner accepts (POST /api/v1/split-partners/{id}/accept with its own credentials); it is e-mailed. 400 on walletId for your own wallet, an unknown one, one invited already (pending or accepted), and your own sub-accounts or your platform, which need no invitation. At most 30 invitations per hour.',
        body: InvitePartnerBody,
        response: { 201: PartnerResponse, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => reply.code(201).send({ message: 'Invitation sent', data: await invitePartner(partners, req.auth.userId, req.body, actorOf(req)) }),
  );

  app.get(
    '/api/v1/split-partners',
    {
      config: READ,
      schema: {
        tags,
        operationId: 'listSplitPartners',
        summary: 'Invitations you sent and received (page style, newest first)',
        description: 'role=sent: yours (the partners your splits may pay once ACCEPTED); role=received: other merchants asking you; omitted: both. status filters.',
        querystring: ListPartnersQuery,
        response: { 200: PartnerList, ...errors(400, 401, 403) },
      },
    },
    async (req) => listPartners(db, req.auth.userId, req.query),
  );

  app.get(
    '/api/v1/split-partners/:id',
    { config: READ, schema: { tags, operationId: 'getSplitPartner', summary: 'One invitation (either side reads it)', params: IdParams, response: { 200: PartnerResponse, ...errors(401, 403, 404) } } },
    async (req) => ({ message: 'OK', data: await getPartner(db, req.auth.userId, req.params.id) }),
  );

  for (const [action, decision] of [
    ['accept', 'ACCEPTED'],
    ['decline', 'DECLINED'],
  ] as const) {
    app.post(
      `/api/v1/split-partners/:id/${action}`,
      {
        config: WRITE,
        preValidation: emptyBodyIsObject,
        schema: {
          tags,
          operationId: decision === 'ACCEPTED' ? 'acceptSplitPartner' : 'declineSplitPartner',
          summary: decision === 'ACCEPTED' ? "Accept an invitation: the inviting merchant's splits may pay you" : 'Decline an invitation',
          description: 'Only the invited partner, while PENDING (400 INVALID_STATE_TRANSITION otherwise); 404 for anyone else, the inviting merchant included.',
          params: IdParams,
          response: { 200: PartnerResponse, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => ({ message: `Invitation ${decision.toLowerCase()}`, data: await decidePartner(db, req.auth.userId, req.params.id, decision, actorOf(req)) }),
    );
  }

  app.delete(
    '/api/v1/split-partners/:id',
    {
      config: WRITE,
      schema: {
        tags,
        operationId: 'revokeSplitPartner',
        summary: 'End a partnership or withdraw an invitation (either side): REVOKED',
        description: "From then on new sales and rules cannot name the partner's wallet (within 10 seconds on every instance); a saved rule that names it pays that share to the seller instead. Shares already paid stay paid. 400 INVALID_STATE_TRANSITION when already DECLINED or REVOKED.",
        params: IdParams,
        response: { 200: PartnerResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ message: 'Partnership ended', data: await revokePartner(db, req.auth.userId, req.params.id, actorOf(req)) }),
  );
}
