// Cart abandonment: the checkout page reports a customer who typed an e-mail and left without
// paying. One open abandonment per link and e-mail (a later report refreshes it); it is marked
// recovered by the recover call or, automatically, when that customer pays the link (payment-links/sale.ts).
import type { Static } from '@sinclair/typebox';
import type { Executor } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { CartAbandonment } from '../../db/types.ts';
import { notFound } from '../../http/errors.ts';
import { createdAtPage, type Cursors } from '../../http/pagination.ts';
import { sanitizeText } from '../../http/sanitize.ts';
import type { Scope } from '../../http/scope.ts';
import { normalizeDocument } from '../clients/service.ts';
import type { AbandonmentBody, ListAbandonmentsQuery, RecoverBody } from './schemas.ts';
import { assertPayable, findBySlug, type PublicLink } from './public.ts';

export function abandonmentView(a: CartAbandonment) {
  return {
    id: a.id,
    paymentLinkId: a.link_id,
    clientEmail: a.client_email,
    clientName: a.client_name,
    clientDocument: a.client_document,
    clientPhone: a.client_phone,
    recovered: a.recovered_at !== null,
    recoveredAt: a.recovered_at,
    transactionId: a.transaction_id,
    createdAt: a.created_at,
    updatedAt: a.updated_at,
  };
}

/** The link of a public slug, refusing unknown (404) and unpayable (400) links. */
export async function payableLink(db: Executor, slug: string, now = new Date()): Promise<PublicLink> {
  const pl = await findBySlug(db, slug);
  if (!pl) throw notFound('Payment link');
  assertPayable(pl.link, 'slug', now);
  return pl;
}

export async function recordAbandonment(db: Executor, slug: string, input: Static<typeof AbandonmentBody>): Promise<{ id: string }> {
  const { link } = await payableLink(db, slug);
  const document = input.clientDocument ? normalizeDocument(input.clientDocument, 'clientDocument') : null;
  const name = input.clientName ? sanitizeText(input.clientName) || null : null;
  const now = new Date();
  const row = await db
    .insertInto('cart_abandonments')
    .values({
      id: uuidv7(now.getTime()),
      user_id: link.user_id,
      livemode: link.livemode,
      link_id: link.id,
      client_email: input.clientEmail.trim().toLowerCase(),
      client_name: name,
      client_document: document,
      client_phone: input.clientPhone ?? null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'link_id', 'client_email'])
        .where('recovered_at', 'is', null)
        .doUpdateSet((eb) => ({
          client_name: eb.fn.coalesce('excluded.client_name', 'cart_abandonments.client_name'),
          client_document: eb.fn.coalesce('excluded.client_document', 'cart_abandonments.client_document'),
          client_phone: eb.fn.coalesce('excluded.client_phone', 'cart_abandonments.client_phone'),
          updated_at: now,
        })),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row;
}

/** Marks the matching open abandonments of the link recovered; how many matched stays private (see the route). */
export async function recoverAbandonment(db: Executor, slug: string, input: Static<typeof RecoverBody>): Promise<number> {
  const pl = await findBySlug(db, slug);
  if (!pl) throw notFound('Payment link');
  const now = new Date();
  let q = db
    .updateTable('cart_abandonments')
    .set({ recovered_at: now, updated_at: now })
    .where('user_id', '=', pl.link.user_id)
    .where('link_id', '=', pl.link.id)
    .where('recovered_at', 'is', null);
  if (input.id) q = q.where('id', '=', input.id);
  if (input.clientEmail) q = q.where('client_email', '=', input.clientEmail.trim().toLowerCase());
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}

export async function listAbandonments(db: Executor, cursors: Cursors, scope: Scope, q: Static<typeof ListAbandonmentsQuery>) {
  let query = db.selectFrom('cart_abandonments').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode);
  if (q.paymentLinkId) query = query.where('link_id', '=', q.paymentLinkId);
  if (q.recovered !== undefined) query = query.where('recovered_at', q.recovered ? 'is not' : 'is', null);
  return createdAtPage(cursors.of('cart-abandonments', scope), query, q);
}
