// The audit log over HTTP: read only (no route changes or deletes an entry). A merchant reads its
// own (dashboard token, or an API key with auditLog:read), operators everyone's; JSON pages or CSV.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../../http/app-type.ts';
import type { Cursors } from '../../http/pagination.ts';
import type { ReadRouter } from '../../db/read-router.ts';
import { ADMIN, errors } from '../../http/schemas.ts';
import { spDate } from '../../payments/calendar.ts';
import { auditCsv, auditView, listAudit, type Audience } from './list.ts';
import { AdminAuditQuery, AuditListResponse, AuditQuery } from './schemas.ts';

/** The options of auditRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface AuditRouteDeps {
  reads: ReadRouter;
  cursors: Cursors;
}

const CSV_NOTE =
  ' With format=csv (or Accept: text/csv) the answer is every matching entry as a CSV file (text/csv, Content-Disposition: attachment), streamed: `;`-separated, UTF-8 with a BOM, CRLF lines, pt-BR header, dates dd/mm/aaaa HH:MM (America/Sao_Paulo), before and after as JSON.';

/** CSV when asked by the query or by an Accept header that prefers text/csv to JSON. */
const wantsCsv = (req: FastifyRequest, format: string | undefined) => format === 'csv' || (format === undefined && /^\s*text\/csv/i.test(req.headers.accept ?? ''));

export default async function auditRoutes(app: HttpApp, deps: AuditRouteDeps) {
  const { reads, cursors } = deps;

  async function answer(req: FastifyRequest, reply: FastifyReply, who: Audience, list: ReturnType<Cursors['of']>, q: typeof AdminAuditQuery.static, name: string) {
    // The log and its export may read the replica (an operator's own writes included: read-your-writes by its id).
    const db = await reads.for(req.auth);
    if (wantsCsv(req, q.format)) {
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${name}-${spDate(new Date())}.csv"`)
        .header('Cache-Control', 'no-store')
        .send(auditCsv(db, list, who, q));
    }
    const { format: _format, ...page } = q;
    return listAudit(db, list, who, page).then(({ rows, pagination }) => ({ message: 'OK', entries: rows.map(auditView), pagination }));
  }

  app.get(
    '/api/v1/audit-log',
    {
      config: { auth: { key: 'auditLog:read', token: true } },
      schema: {
        tags: ['Audit log'],
        operationId: 'listAuditLog',
        summary: "The account's audit log: who changed keys, webhooks, KYC, fees, withdrawals, advances, refunds and chargebacks, from where",
        description:
          "Newest first. The request's environment (X-Environment, or the key's) and the account-level entries (API keys, KYC, fees, password, sign-in). Entries cannot be changed or deleted; they are kept AUDIT_RETENTION_DAYS (5 years by default). An API key needs the auditLog:read permission." + CSV_NOTE,
        querystring: AuditQuery,
        response: { 200: AuditListResponse, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => answer(req, reply, { merchant: req.auth }, cursors.of('audit-log', req.auth), req.query, 'cofre-auditoria'),
  );

  app.get(
    '/api/admin/audit-log',
    {
      config: ADMIN,
      schema: {
        tags: ['Operator: audit log'],
        operationId: 'adminListAuditLog',
        summary: "Every account's audit log (filter by userId)",
        description: 'Newest first; operators\' own decisions and every merchant\'s entries, both environments.' + CSV_NOTE,
        querystring: AdminAuditQuery,
        response: { 200: AuditListResponse, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => answer(req, reply, { operator: true }, cursors.of('admin-audit-log', { userId: req.auth.userId, livemode: false }), req.query, 'cofre-auditoria-plataforma'),
  );
}
