// Checkouts, their order bumps and their upsell/downsell (the origin's paths; the unversioned
// /api/... twins and PATCH for PUT are aliases, modules/compat.ts).
import type { HttpApp } from '../../http/app-type.ts';
import { errors, IdParams, Message } from '../../http/schemas.ts';
import { addBump, deleteOffer, offerView, setOffer, updateBump } from './offers.ts';
import { BumpBody, BumpListResponse, BumpParams, BumpResponse, CheckoutListResponse, CheckoutResponse, CreateCheckoutBody, DownsellResponse, ListCheckoutsQuery, OfferBody, UpdateBumpBody, UpdateCheckoutBody, UpsellResponse } from './schemas.ts';
import { createCheckout, deleteCheckout, getCheckout, listCheckouts, updateCheckout, type CheckoutDeps } from './service.ts';
import { notFound } from '../../http/errors.ts';

/** The options of checkoutsRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface CheckoutsRouteDeps {
  checkouts: CheckoutDeps;
}

const READ = { auth: { key: 'checkouts:read' } } as const;
const WRITE = { auth: { key: 'checkouts:write' } } as const;

export default async function checkoutsRoutes(app: HttpApp, deps: CheckoutsRouteDeps) {
  const { checkouts } = deps;
  const { db } = checkouts;
  const tags = ['Checkouts'];

  app.post(
    '/api/v1/checkouts',
    {
      config: WRITE,
      schema: {
        tags,
        operationId: 'createCheckout',
        summary: 'Create a checkout',
        description: "Shapes the hosted page of a payment link (paymentLinkId): settings that override the link's, branding, order bumps and an upsell. Image URLs are fetched once now and served by Cofre.",
        body: CreateCheckoutBody,
        response: { 201: CheckoutResponse, ...errors(400, 401, 403, 409) },
      },
    },
    async (req, reply) => reply.code(201).send({ message: 'Checkout created', checkout: await createCheckout(checkouts, req.auth, req.body) }),
  );

  app.get(
    '/api/v1/checkouts',
    { config: READ, schema: { tags, operationId: 'listCheckouts', summary: 'List checkouts (page style, newest first)', querystring: ListCheckoutsQuery, response: { 200: CheckoutListResponse, ...errors(400, 401, 403) } } },
    async (req) => ({ message: 'OK', ...(await listCheckouts(db, req.auth, req.query)) }),
  );

  app.get(
    '/api/v1/checkouts/:id',
    { config: READ, schema: { tags, operationId: 'getCheckout', summary: 'Get a checkout with its offers', params: IdParams, response: { 200: CheckoutResponse, ...errors(401, 403, 404) } } },
    async (req) => ({ message: 'OK', checkout: await getCheckout(db, req.auth, req.params.id) }),
  );

  app.put(
    '/api/v1/checkouts/:id',
    {
      config: WRITE,
      schema: {
        tags,
        operationId: 'updateCheckout',
        summary: 'Update a checkout (partial: omitted fields are kept)',
        params: IdParams,
        body: UpdateCheckoutBody,
        response: { 200: CheckoutResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => ({ message: 'Checkout updated', checkout: await updateCheckout(checkouts, req.auth, req.params.id, req.body) }),
  );

  app.delete(
    '/api/v1/checkouts/:id',
    { config: WRITE, schema: { tags, operationId: 'deleteCheckout', summary: 'Delete a checkout and its offers (its link goes back to its own page)', params: IdParams, response: { 200: Message, ...errors(401, 403, 404) } } },
    async (req) => {
      await deleteCheckout(checkouts, req.auth, req.params.id);
      return { message: 'Checkout deleted' };
    },
  );

  app.get(
    '/api/v1/checkouts/:id/order-bumps',
    { config: READ, schema: { tags, operationId: 'listOrderBumps', summary: "A checkout's order bumps, in page order", params: IdParams, response: { 200: BumpListResponse, ...errors(401, 403, 404) } } },
    async (req) => ({ message: 'OK', orderBumps: (await getCheckout(db, req.auth, req.params.id)).orderBumps }),
  );

  app.post(
    '/api/v1/checkouts/:id/order-bumps',
    {
      config: WRITE,
      schema: {
        tags,
        operationId: 'createOrderBump',
        summary: 'Add an order bump (at most 5 per checkout)',
        description: 'A product the shopper can tick on the hosted page, paid in the same payment. 409 when the checkout has 5 already.',
        params: IdParams,
        body: BumpBody,
        response: { 201: BumpResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.code(201).send({ message: 'Order bump created', orderBump: offerView(await addBump(checkouts, req.auth, req.params.id, req.body)) }),
  );

  app.put(
    '/api/v1/checkouts/:id/order-bumps/:bumpId',
    { config: WRITE, schema: { tags, operationId: 'updateOrderBump', summary: 'Update an order bump (partial)', params: BumpParams, body: UpdateBumpBody, response: { 200: BumpResponse, ...errors(400, 401, 403, 404) } } },
    async (req) => ({ message: 'Order bump updated', orderBump: offerView(await updateBump(checkouts, req.auth, req.params.id, req.params.bumpId, req.body)) }),
  );

  app.delete(
    '/api/v1/checkouts/:id/order-bumps/:bumpId',
    { config: WRITE, schema: { tags, operationId: 'deleteOrderBump', summary: 'Delete an order bump', params: BumpParams, response: { 200: Message, ...errors(401, 403, 404) } } },
    async (req) => {
      await deleteOffer(checkouts, req.auth, req.params.id, 'BUMP', req.params.bumpId);
      return { message: 'Order bump deleted' };
    },
  );

  app.get(
    '/api/v1/checkouts/:id/upsell',
    { config: READ, schema: { tags, operationId: 'getUpsell', summary: "The checkout's upsell and its downsell", params: IdParams, response: { 200: UpsellResponse, ...errors(401, 403, 404) } } },
    async (req) => {
      const { upsell } = await getCheckout(db, req.auth, req.params.id);
      if (!upsell) throw notFound('Upsell');
      return { message: 'OK', upsell };
    },
  );

  for (const kind of ['UPSELL', 'DOWNSELL'] as const) {
    const path = kind === 'UPSELL' ? '/api/v1/checkouts/:id/upsell' : '/api/v1/checkouts/:id/upsell/downsell';
    const name = kind === 'UPSELL' ? 'Upsell' : 'Downsell';
    app.post(
      path,
      {
        config: WRITE,
        schema: {
          tags,
          operationId: kind === 'UPSELL' ? 'setUpsell' : 'setDownsell',
          summary: kind === 'UPSELL' ? 'Set the upsell (replaces the one there)' : 'Set the downsell, shown when the upsell is declined (replaces the one there)',
          description: kind === 'UPSELL' ? 'Offered after an approved payment: one click charges the same card, or a new PIX. 201 when created, 200 when replaced.' : '404 when the checkout has no upsell. 201 when created, 200 when replaced.',
          params: IdParams,
          body: OfferBody,
          response: { 200: kind === 'UPSELL' ? UpsellResponse : DownsellResponse, 201: kind === 'UPSELL' ? UpsellResponse : DownsellResponse, ...errors(400, 401, 403, 404) },
        },
      },
      async (req, reply) => {
        const { row, created } = await setOffer(checkouts, req.auth, req.params.id, kind, req.body);
        const message = `${name} ${created ? 'created' : 'updated'}`;
        if (kind === 'DOWNSELL') return reply.code(created ? 201 : 200).send({ message, downsell: offerView(row) });
        const { upsell } = await getCheckout(db, req.auth, req.params.id);
        return reply.code(created ? 201 : 200).send({ message, upsell: upsell ?? { ...offerView(row), downsell: null } });
      },
    );
    app.delete(
      path,
      { config: WRITE, schema: { tags, operationId: kind === 'UPSELL' ? 'deleteUpsell' : 'deleteDownsell', summary: kind === 'UPSELL' ? 'Delete the upsell and its downsell' : 'Delete the downsell', params: IdParams, response: { 200: Message, ...errors(401, 403, 404) } } },
      async (req) => {
        await deleteOffer(checkouts, req.auth, req.params.id, kind);
        return { message: `${name} deleted` };
      },
    );
  }
}
