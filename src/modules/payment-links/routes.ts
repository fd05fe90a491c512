import type { HttpApp } from '../../http/app-type.ts';
import type { Db } from '../../db/index.ts';
import type { Config } from '../../config.ts';
import type { Cursors } from '../../http/pagination.ts';
import type { LinkDeps } from './service.ts';
import { errors, IdParams, Message } from '../../http/schemas.ts';
import { abandonmentView, listAbandonments } from './abandonments.ts';
import { AbandonmentListResponse, CreateLinkBody, ListAbandonmentsQuery, ListLinksQuery, PaymentLinkListResponse, PaymentLinkResponse, SlugParams, UpdateLinkBody } from './schemas.ts';
import { createLink, deleteLink, getLink, getLinkBySlug, linkView, listLinks, updateLink } from './service.ts';
import type { ReadRouter } from '../../db/read-router.ts';

/** The options of paymentLinkRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface PaymentLinkRouteDeps {
  db: Db;
  reads: ReadRouter;
  config: Config;
  cursors: Cursors;
  paymentLinks: LinkDeps;
}

export default async function paymentLinkRoutes(app: HttpApp, deps: PaymentLinkRouteDeps) {
  const { db, reads, config, cursors, paymentLinks } = deps;
  const tags = ['Payment links'];
  const view = (lp: Parameters<typeof linkView>[1]) => linkView(config, lp);

  app.post(
    '/api/v1/payment-links',
    {
      config: { auth: { key: 'paymentLinks:write' } },
      schema: {
        tags,
        operationId: 'createPaymentLink',
        summary: 'Create a payment link',
        description: 'title is required, and amountCents or products (or both). The link is paid at `url` ({checkout_url}/pay/{slug}). Emits payment_link.created.',
        body: CreateLinkBody,
        response: { 201: PaymentLinkResponse, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => reply.code(201).send({ message: 'Payment link created', paymentLink: view(await createLink(paymentLinks, req.auth, req.body)) }),
  );

  app.get(
    '/api/v1/payment-links',
    {
      config: { auth: { key: 'paymentLinks:read' } },
      schema: { tags, operationId: 'listPaymentLinks', summary: 'List payment links (cursor style, newest first)', querystring: ListLinksQuery, response: { 200: PaymentLinkListResponse, ...errors(400, 401, 403) } },
    },
    async (req) => {
      const { rows, pagination } = await listLinks(await reads.for(req.auth), cursors, req.auth, req.query);
      return { message: 'OK', paymentLinks: rows.map(view), pagination };
    },
  );

  app.get(
    '/api/v1/payment-links/:id',
    {
      config: { auth: { key: 'paymentLinks:read' } },
      schema: { tags, operationId: 'getPaymentLink', summary: 'Get a payment link', params: IdParams, response: { 200: PaymentLinkResponse, ...errors(401, 403, 404) } },
    },
    async (req) => ({ message: 'OK', paymentLink: view(await getLink(db, req.auth, req.params.id)) }),
  );

  app.get(
    '/api/v1/payment-links/slug/:slug',
    {
      config: { auth: { key: 'paymentLinks:read' } },
      schema: {
        tags,
        operationId: 'getPaymentLinkBySlug',
        summary: 'Get a payment link by its slug',
        description: 'The full link, as GET /api/v1/payment-links/{id} gives it (origin-compatible path). A slug of another merchant or environment is a 404, like an unknown one.',
        params: SlugParams,
        response: { 200: PaymentLinkResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ message: 'OK', paymentLink: view(await getLinkBySlug(db, req.auth, req.params.slug)) }),
  );

  app.patch(
    '/api/v1/payment-links/:id',
    {
      config: { auth: { key: 'paymentLinks:write' } },
      schema: {
        tags,
        operationId: 'updatePaymentLink',
        summary: 'Update a payment link',
        description: 'Every update must carry amountCents or products (or both): they restate how the link is priced. Other omitted fields keep their value. Emits payment_link.updated.',
        params: IdParams,
        body: UpdateLinkBody,
        response: { 200: PaymentLinkResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      return { message: 'Payment link updated', paymentLink: view(await updateLink(paymentLinks, req.auth, req.params.id, req.body)) };
    },
  );

  app.delete(
    '/api/v1/payment-links/:id',
    {
      config: { auth: { key: 'paymentLinks:write' } },
      schema: {
        tags,
        operationId: 'archivePaymentLink',
        summary: 'Archive a payment link',
        description: 'Its page answers 404 from now on; transactions keep their paymentLinkId. Emits payment_link.updated with deleted: true.',
        params: IdParams,
        response: { 200: Message, ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      await deleteLink(paymentLinks, req.auth, req.params.id);
      return { message: 'Payment link deleted' };
    },
  );

  app.get(
    '/api/v1/cart-abandonments',
    {
      config: { auth: { key: 'paymentLinks:read' } },
      schema: {
        tags,
        operationId: 'listCartAbandonments',
        summary: 'List cart abandonments (cursor style, newest first)',
        description: 'Customers who typed an e-mail on a payment link page and left without paying; recovered once they pay the link.',
        querystring: ListAbandonmentsQuery,
        response: { 200: AbandonmentListResponse, ...errors(400, 401, 403) },
      },
    },
    async (req) => {
      const { rows, pagination } = await listAbandonments(await reads.for(req.auth), cursors, req.auth, req.query);
      return { message: 'OK', cartAbandonments: rows.map(abandonmentView), pagination };
    },
  );
}
