// Everything Cofre stores about one of a merchant's clients (LGPD art. 18, access and portability):
// the client, its payments, subscriptions, saved cards (never the token), checkout orders, the
// e-mails sent to it and the webhook deliveries that carried it. Scoped like every client read: another
// merchant's or environment's client is a 404. Archived clients are exported too (archiving keeps the data).
import { sql } from 'kysely';
import type { Executor } from '../../db/index.ts';
import { notFound } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { savedCardView } from '../cards/service.ts';
import { clientView } from '../clients/service.ts';
import { subscriptionView } from '../subscriptions/view.ts';
import { transactionView, type Urls } from '../transactions/view.ts';
import { personalValues } from './personal-data.ts';

export async function exportClient(db: Executor, scope: Scope, id: string, urls: Urls) {
  const client = await db.selectFrom('clients').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('id', '=', id).executeTakeFirst();
  if (!client) throw notFound('Client');
  const values = await personalValues(db, scope, client);
  const [txs, subs, cards] = await Promise.all([
    db.selectFrom('transactions').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('client_id', '=', id).orderBy('created_at').execute(),
    db.selectFrom('subscriptions').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('client_id', '=', id).orderBy('created_at').execute(),
    db.selectFrom('saved_cards').selectAll().where('user_id', '=', scope.userId).where('livemode', '=', scope.livemode).where('client_id', '=', id).orderBy('created_at').execute(),
  ]);
  const subIds = subs.map((s) => s.id);
  const [emails, orders, deliveries] = await Promise.all([
    db
      .selectFrom('emails')
      .select(['id', 'template', 'to_address', 'subject', 'text_body', 'status', 'sent_at', 'created_at'])
      .where('user_id', '=', scope.userId)
      .where('livemode', '=', scope.livemode)
      .where((eb) => eb.or([eb('to_address', 'in', values.emails), ...(subIds.length ? [eb('related_id', 'in', subIds)] : [])]))
      .orderBy('created_at')
      .execute(),
    db
      .selectFrom('cart_abandonments')
      .select(['id', 'link_id', 'client_name', 'client_email', 'client_document', 'client_phone', 'transaction_id', 'recovered_at', 'created_at'])
      .where('user_id', '=', scope.userId)
      .where('livemode', '=', scope.livemode)
      .where((eb) => eb.or([eb('client_email', 'in', values.emails), ...(values.documents.length ? [eb('client_document', 'in', values.documents)] : [])]))
      .orderBy('created_at')
      .execute(),
    // The deliveries whose payload names the client (its id is in every payload about it).
    db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id', 'event_type', 'url', 'status', 'attempts', 'created_at'])
      .where('user_id', '=', scope.userId)
      .where('livemode', '=', scope.livemode)
      .where(sql<boolean>`strpos(body, ${id}) > 0`)
      .orderBy('created_at')
      .execute(),
  ]);
  return {
    exportedAt: new Date(),
    client: clientView(client),
    transactions: txs.map((t) => transactionView(t, urls)),
    // The subscription as stored: its copy of the client's data unmasked (the API's view masks the document).
    subscriptions: subs.map((s) => ({ ...subscriptionView(s), client: { name: s.client_name, email: s.client_email, document: s.client_document, phone: s.client_phone } })),
    savedCards: cards.map(savedCardView),
    checkoutOrders: orders.map((o) => ({ id: o.id, paymentLinkId: o.link_id, name: o.client_name, email: o.client_email, document: o.client_document, phone: o.client_phone, transactionId: o.transaction_id, recoveredAt: o.recovered_at, createdAt: o.created_at })),
    emails: emails.map((m) => ({ id: m.id, template: m.template, to: m.to_address, subject: m.subject, text: m.text_body, status: m.status, sentAt: m.sent_at, createdAt: m.created_at })),
    webhookDeliveries: deliveries.map((d) => ({ id: d.id, eventId: d.event_id, eventType: d.event_type, url: d.url, status: d.status, attempts: d.attempts, createdAt: d.created_at })),
  };
}
