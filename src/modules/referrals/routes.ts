import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { Config } from '../../config.ts';
import { errors } from '../../http/schemas.ts';
import { ListRewardsQuery, ReferralCodeResponse, ReferralStatsResponse, RewardListResponse } from './schemas.ts';
import { listRewards, referralCode, referralStats } from './service.ts';
import type { ReadRouter } from '../../db/read-router.ts';

// Referrals are the account's, not an environment's (spec: "T", the dashboard token): the money is
// production money whatever X-Environment says, since development never produces any.
const token = { auth: { token: true } } as const;

/** The options of referralRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface ReferralRouteDeps {
  db: Db;
  reads: ReadRouter;
  config: Config;
}

export default async function referralRoutes(app: HttpApp, deps: ReferralRouteDeps) {
  const { db, reads, config } = deps;
  const tags = ['Referrals'];

  app.get(
    '/api/referral/code',
    { config: token, schema: { tags, operationId: 'getReferralCode', summary: 'Your invite code and link', response: { 200: ReferralCodeResponse, ...errors(401) } } },
    async (req) => ({ data: await referralCode(db, config.referrals, req.auth.userId) }),
  );

  app.get(
    '/api/referral/stats',
    {
      config: token,
      schema: {
        tags,
        operationId: 'getReferralStats',
        summary: 'Your referral totals',
        description: 'Amounts are sums of the ledger: rewards not cancelled (pending and released); the withdrawn total and the available balance are your production wallet\'s.',
        response: { 200: ReferralStatsResponse, ...errors(401) },
      },
    },
    async (req) => referralStats(await reads.for(req.auth), req.auth.userId),
  );

  app.get(
    '/api/referral/rewards',
    {
      config: token,
      schema: {
        tags,
        operationId: 'listReferralRewards',
        summary: 'Your referral rewards (page style, newest first)',
        description: 'PENDING until released (the later of REFERRAL_GUARANTEE_DAYS and the sale\'s settlement), then PAID (in your available balance); CANCELLED when the sale is refunded.',
        querystring: ListRewardsQuery,
        response: { 200: RewardListResponse, ...errors(400, 401) },
      },
    },
    async (req) => listRewards(await reads.for(req.auth), req.auth.userId, req.query),
  );
}
