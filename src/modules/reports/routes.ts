// Sales reports for the dashboard (and any integrator): the totals of a period against the one
// before, and gross sales per day. API key with transactions:read, or a dashboard token.
import type { HttpApp } from '../../http/app-type.ts';
import { errors } from '../../http/schemas.ts';
import { ReportQuery, SummaryResponse, TimeseriesResponse } from './schemas.ts';
import { reportPeriod, reportSummary, reportTimeseries } from './service.ts';
import type { ReadRouter } from '../../db/read-router.ts';

/** The options of reportRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface ReportRouteDeps {
  /** Reports may read the replica (db/read-router.ts). */
  reads: ReadRouter;
}

export default async function reportRoutes(app: HttpApp, deps: ReportRouteDeps) {
  const { reads } = deps;
  const tags = ['Reports'];
  const auth = { auth: { key: 'transactions:read', token: true } } as const;
  const period = 'Days are calendar days in America/Sao_Paulo, both ends included: `from` and `to` (at most 366 days), or a `preset` (default today).';

  app.get(
    '/api/v1/reports/summary',
    {
      config: auth,
      schema: {
        tags,
        operationId: 'getReportSummary',
        summary: 'Sales totals of a period and of the period before',
        description: `${period} Gross, fees and net of the payments paid in the period, average ticket, refunds made, card approval and PIX and boleto conversion of the payments created in the period, and the same for the period of the same length just before.`,
        querystring: ReportQuery,
        response: { 200: SummaryResponse, ...errors(400, 401, 403) },
      },
    },
    async (req) => ({ message: 'OK', data: await reportSummary(await reads.for(req.auth), req.auth, reportPeriod(req.query)) }),
  );

  app.get(
    '/api/v1/reports/timeseries',
    {
      config: auth,
      schema: {
        tags,
        operationId: 'getReportTimeseries',
        summary: 'Gross sales per day and payment method',
        description: `${period} One entry per day, days without sales included, by the day each payment was paid.`,
        querystring: ReportQuery,
        response: { 200: TimeseriesResponse, ...errors(400, 401, 403) },
      },
    },
    async (req) => ({ message: 'OK', data: await reportTimeseries(await reads.for(req.auth), req.auth, reportPeriod(req.query)) }),
  );
}
