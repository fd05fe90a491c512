// GET /api/v1/emails: the messages sent (or, without SMTP_URL, only stored) for the merchant's
// customers, so an integration can be followed without a mail server. Development only.
import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../http/app-type.ts';
import type { Db } from '../db/index.ts';
import type { Cursors } from '../http/pagination.ts';
import { forbidden } from '../http/errors.ts';
import { createdAtPage } from '../http/pagination.ts';
import { CursorPagination, CursorQuery, errors, Nullable, Timestamp, Uuid } from '../http/schemas.ts';
import type { Email } from '../db/types.ts';
import { ACCOUNT_TEMPLATES } from './account-templates.ts';

const EmailView = Type.Object({
  id: Uuid,
  template: Type.String({ description: 'welcome, receipt, charge_issued, payment_failed, card_expiring, cancelled' }),
  to: Type.String(),
  subject: Type.String(),
  text: Type.String(),
  html: Type.String(),
  status: Type.Union([Type.Literal('QUEUED'), Type.Literal('SENT'), Type.Literal('STORED'), Type.Literal('FAILED')]),
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  relatedId: Nullable(Uuid),
  sentAt: Nullable(Timestamp),
  createdAt: Timestamp,
});

const ListEmailsQuery = Type.Object(
  { ...CursorQuery, to: Type.Optional(Type.String({ maxLength: 320 })), relatedId: Type.Optional(Uuid) },
  { additionalProperties: false },
);

const view = (m: Email) => ({
  id: m.id,
  template: m.template,
  to: m.to_address,
  subject: m.subject,
  text: m.text_body,
  html: m.html_body,
  status: m.status,
  attempts: m.attempts,
  lastError: m.last_error,
  relatedId: m.related_id,
  sentAt: m.sent_at,
  createdAt: m.created_at,
});

/** The options of emailRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface EmailRouteDeps {
  db: Db;
  cursors: Cursors;
}

export default async function emailRoutes(app: HttpApp, deps: EmailRouteDeps) {
  const { db, cursors } = deps;
  app.get(
    '/api/v1/emails',
    {
      config: { auth: { key: 'customers:read', token: true } },
      schema: {
        tags: ['E-mails'],
        operationId: 'listEmails',
        summary: "Messages sent to the merchant's customers (development only)",
        description: 'Newest first. Development keys (or a dashboard token in development) only: production mail is not kept for reading. Filters: to (exact address), relatedId (a subscription).',
        querystring: ListEmailsQuery,
        response: { 200: Type.Object({ message: Type.String(), emails: Type.Array(EmailView), pagination: CursorPagination }), ...errors(400, 401, 403) },
      },
    },
    async (req) => {
      if (req.auth.livemode) throw forbidden('The e-mail log is only available in development');
      // Messages to the merchant about the account (reset links, codes) are not the customers' mail.
      let q = db.selectFrom('emails').selectAll().where('user_id', '=', req.auth.userId).where('livemode', '=', false).where('template', 'not in', ACCOUNT_TEMPLATES);
      if (req.query.to) q = q.where('to_address', '=', req.query.to.trim().toLowerCase());
      if (req.query.relatedId) q = q.where('related_id', '=', req.query.relatedId);
      const { rows, pagination } = await createdAtPage(cursors.of('emails', req.auth), q, req.query);
      return { message: 'OK', emails: rows.map(view), pagination };
    },
  );
}
