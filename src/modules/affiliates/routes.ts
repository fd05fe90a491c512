import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { AffiliateDeps } from './service.ts';
import { errors, IdParams, Message } from '../../http/schemas.ts';
import { listCommissions } from './commissions.ts';
import { affiliateStats, decideLink, joinProgram, listLinks, listProgramAffiliates, type LinkDecision } from './links.ts';
import {
  AffiliateStatsResponse,
  CommissionListResponse,
  ListCommissionsQuery,
  CreateProgramBody,
  LinkListResponse,
  LinkResponse,
  ListLinksQuery,
  ListProgramsQuery,
  MarketplaceQuery,
  MarketplaceResponse,
  ProgramAffiliateListResponse,
  ProgramAffiliateResponse,
  ProgramIdParams,
  ProgramLinkParams,
  ProgramListResponse,
  ProgramResponse,
  UpdateProgramBody,
} from './schemas.ts';
import { createProgram, deleteProgram, getProgram, listPrograms, marketplace, programView, updateProgram } from './service.ts';
import type { ReadRouter } from '../../db/read-router.ts';

// Every affiliate route takes an API key with the permission or a dashboard token (spec: advertiser
// and "authenticated" routes); the stats route is spec "K" and takes both like the others.
const read = { auth: { key: 'affiliates:read', token: true } } as const;
const write = { auth: { key: 'affiliates:write', token: true } } as const;

/** The options of affiliateRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface AffiliateRouteDeps {
  db: Db;
  reads: ReadRouter;
  affiliates: AffiliateDeps;
}

export default async function affiliateRoutes(app: HttpApp, deps: AffiliateRouteDeps) {
  const { db, reads, affiliates } = deps;
  const tags = ['Affiliates'];

  app.post(
    '/api/affiliate/programs',
    {
      config: write,
      schema: { tags, operationId: 'createAffiliateProgram', summary: 'Open an affiliate program on one of your products (one per product)', body: CreateProgramBody, response: { 201: ProgramResponse, ...errors(400, 401, 403) } },
    },
    async (req, reply) => reply.code(201).send({ message: 'Affiliate program created', data: programView(await createProgram(db, req.auth, req.body)) }),
  );

  app.get(
    '/api/affiliate/programs',
    { config: read, schema: { tags, operationId: 'listAffiliatePrograms', summary: 'Your affiliate programs (page style)', querystring: ListProgramsQuery, response: { 200: ProgramListResponse, ...errors(400, 401, 403) } } },
    async (req) => {
      const { data, meta } = await listPrograms(await reads.for(req.auth), req.auth, req.query);
      return { data: data.map(programView), meta };
    },
  );

  app.get(
    '/api/affiliate/programs/:id',
    { config: read, schema: { tags, operationId: 'getAffiliateProgram', summary: 'One of your affiliate programs', params: IdParams, response: { 200: ProgramResponse, ...errors(401, 403, 404) } } },
    async (req) => ({ data: programView(await getProgram(db, req.auth, req.params.id)) }),
  );

  app.patch(
    '/api/affiliate/programs/:id',
    {
      config: write,
      schema: {
        tags,
        operationId: 'updateAffiliateProgram',
        summary: 'Change a program (applies to sales after the change)',
        description: 'Commissions already created keep the terms of their sale.',
        params: IdParams,
        body: UpdateProgramBody,
        response: { 200: ProgramResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ message: 'Affiliate program updated', data: programView(await updateProgram(db, req.auth, req.params.id, req.body)) }),
  );

  app.delete(
    '/api/affiliate/programs/:id',
    {
      config: write,
      schema: {
        tags,
        operationId: 'closeAffiliateProgram',
        summary: 'Close a program',
        description: 'It leaves the marketplace and attributes no further sale; commissions already created run their course.',
        params: IdParams,
        response: { 200: Message, ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      await deleteProgram(db, req.auth, req.params.id);
      return { message: 'Affiliate program deleted' };
    },
  );

  app.get(
    '/api/affiliate/programs/:id/links',
    { config: read, schema: { tags, operationId: 'listAffiliateProgramLinks', summary: "A program's affiliates, with clicks and conversions", params: IdParams, querystring: ListLinksQuery, response: { 200: ProgramAffiliateListResponse, ...errors(400, 401, 403, 404) } } },
    async (req) => listProgramAffiliates(db, req.auth, req.params.id, req.query),
  );

  for (const decision of ['approve', 'refuse', 'block'] as const satisfies readonly LinkDecision[]) {
    app.post(
      `/api/affiliate/programs/:id/links/:linkId/${decision}`,
      {
        config: write,
        schema: {
          tags,
          operationId: ({ approve: 'approveAffiliateLink', refuse: 'refuseAffiliateLink', block: 'blockAffiliateLink' } as const)[decision],
          summary: { approve: 'Approve an affiliate (PENDING or BLOCKED -> ACTIVE)', refuse: 'Refuse an affiliate (PENDING -> REFUSED)', block: 'Block an affiliate (PENDING or ACTIVE -> BLOCKED)' }[decision],
          params: ProgramLinkParams,
          response: { 200: ProgramAffiliateResponse, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => ({ message: `Affiliate ${{ approve: 'approved', refuse: 'refused', block: 'blocked' }[decision]}`, data: await decideLink(affiliates, req.auth, req.params.id, req.params.linkId, decision) }),
    );
  }

  app.get(
    '/api/affiliate/marketplace',
    {
      config: read,
      schema: { tags, operationId: 'listAffiliateMarketplace', summary: 'Active programs of your environment you can join (search and page)', querystring: MarketplaceQuery, response: { 200: MarketplaceResponse, ...errors(400, 401, 403) } },
    },
    async (req) => marketplace(await reads.for(req.auth), req.auth, req.query),
  );

  app.post(
    '/api/affiliate/join/:programId',
    {
      config: write,
      schema: {
        tags,
        operationId: 'joinAffiliateProgram',
        summary: 'Join a program: your tracking code and promotion URLs',
        description: '201 with a new link (ACTIVE, or PENDING when the program approves by hand); 200 with the existing one when you had joined already. Your own program: 400.',
        params: ProgramIdParams,
        response: { 200: LinkResponse, 201: LinkResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      const { created, link } = await joinProgram(affiliates, req.auth, req.params.programId);
      return reply.code(created ? 201 : 200).send({ message: created ? 'Joined the affiliate program' : 'Already joined', data: link });
    },
  );

  app.get(
    '/api/affiliate/links',
    { config: read, schema: { tags, operationId: 'listMyAffiliateLinks', summary: 'Your links as an affiliate (page style)', querystring: ListLinksQuery, response: { 200: LinkListResponse, ...errors(400, 401, 403) } } },
    async (req) => listLinks(affiliates, req.auth, req.query),
  );

  app.get(
    '/api/affiliate/commissions',
    {
      config: read,
      schema: {
        tags,
        operationId: 'listMyAffiliateCommissions',
        summary: 'Your commissions as an affiliate (page style, newest first)',
        description: 'PENDING until released (the later of the guarantee and the sale\'s settlement), then PAID (in your available balance); CANCELLED with a reason.',
        querystring: ListCommissionsQuery,
        response: { 200: CommissionListResponse, ...errors(400, 401, 403) },
      },
    },
    async (req) => listCommissions(await reads.for(req.auth), req.auth, req.query),
  );

  app.get(
    '/api/affiliate/stats',
    { config: read, schema: { tags, operationId: 'getMyAffiliateStats', summary: 'Your totals as an affiliate', response: { 200: AffiliateStatsResponse, ...errors(401, 403) } } },
    async (req) => ({ data: await affiliateStats(await reads.for(req.auth), req.auth) }),
  );
}

