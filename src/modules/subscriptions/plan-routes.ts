// Plans (and the subscription metrics) over HTTP. Merchant routes answer under /api/subscriptions (the spec's family) and
// /api/v1/subscriptions: one handler, both paths (each route is declared in a loop over the two
// prefixes). They take an API key with subscriptions:read or subscriptions:write, or a dashboard token.
import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { Config } from '../../config.ts';
import type { Cursors } from '../../http/pagination.ts';
import type { SubscriptionDeps } from './service.ts';
import { errors, IdParams, Message } from '../../http/schemas.ts';
import { createPlan, deletePlan, getPlan, listPlans, planView, updatePlan } from './plans.ts';
import { subscriptionMetrics } from './metrics.ts';
import { CreatePlanBody, ListPlansQuery, MetricsQuery, MetricsResponse, PlanListResponse, PlanResponse, UpdatePlanBody } from './schemas.ts';

import { opId, PREFIXES, READ, WRITE } from './schemas.ts';
import type { ReadRouter } from '../../db/read-router.ts';

/** The options of planRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface PlanRouteDeps {
  db: Db;
  reads: ReadRouter;
  config: Config;
  cursors: Cursors;
  subscriptions: SubscriptionDeps;
}

export default async function planRoutes(app: HttpApp, opts: PlanRouteDeps) {
  const { db, reads, config, cursors } = opts;
  const deps = opts.subscriptions;
  const tags = ['Subscriptions'];

  for (const prefix of PREFIXES) {
    app.get(
      `${prefix}/metrics`,
      {
        config: READ,
        schema: {
          tags,
          operationId: opId(prefix, 'getSubscriptionMetrics'),
          summary: 'MRR, churn and subscriber counts of a month',
          description: 'month=YYYY-MM (São Paulo calendar; default the current month, as of now). Formulas in docs/subscriptions.md.',
          querystring: MetricsQuery,
          response: { 200: MetricsResponse, ...errors(400, 401, 403) },
        },
      },
      async (req) => ({ message: 'OK', metrics: await subscriptionMetrics(await reads.for(req.auth), req.auth, req.query.month, new Date(), db) }),
    );

    app.post(
      `${prefix}/plans`,
      { config: WRITE, schema: { tags, operationId: opId(prefix, 'createPlan'), summary: 'Create a plan', body: CreatePlanBody, response: { 201: PlanResponse, ...errors(400, 401, 403) } } },
      async (req, reply) => reply.code(201).send({ message: 'Plan created', plan: planView(config, await createPlan(deps, db, req.auth, req.body)) }),
    );

    app.get(
      `${prefix}/plans`,
      { config: READ, schema: { tags, operationId: opId(prefix, 'listPlans'), summary: 'List plans (cursor)', querystring: ListPlansQuery, response: { 200: PlanListResponse, ...errors(400, 401, 403) } } },
      async (req) => {
        const { rows, pagination } = await listPlans(await reads.for(req.auth), cursors, req.auth, req.query);
        return { message: 'OK', plans: rows.map((p) => planView(config, p)), pagination };
      },
    );

    app.get(
      `${prefix}/plans/:id`,
      { config: READ, schema: { tags, operationId: opId(prefix, 'getPlan'), summary: 'Get a plan', params: IdParams, response: { 200: PlanResponse, ...errors(401, 403, 404) } } },
      async (req) => ({ message: 'OK', plan: planView(config, await getPlan(db, req.auth, req.params.id)) }),
    );

    app.patch(
      `${prefix}/plans/:id`,
      {
        config: WRITE,
        schema: {
          tags,
          operationId: opId(prefix, 'updatePlan'),
          summary: 'Update a plan',
          description: "A new amountCents applies from each subscriber's next period; maxSubscribers cannot go below the current subscribers.",
          params: IdParams,
          body: UpdatePlanBody,
          response: { 200: PlanResponse, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => ({ message: 'Plan updated', plan: planView(config, await updatePlan(deps, db, req.auth, req.params.id, req.body)) }),
    );

    app.delete(
      `${prefix}/plans/:id`,
      {
        config: WRITE,
        schema: {
          tags,
          operationId: opId(prefix, 'deletePlan'),
          summary: 'Delete a plan',
          description: 'A plan with subscribers is deactivated (no new subscribers; existing subscriptions go on); one that never had any is removed.',
          params: IdParams,
          response: { 200: Message, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        const { deactivated } = await deletePlan(deps, db, req.auth, req.params.id);
        return { message: deactivated ? 'Plan has subscribers: deactivated (existing subscriptions continue)' : 'Plan deleted' };
      },
    );
  }
}
