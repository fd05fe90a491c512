import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { SavedCardView } from '../cards/schemas.ts';
import { ClientView } from '../clients/schemas.ts';
import { TransactionView } from '../transactions/schemas.ts';

const Open = (description: string) => Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description });

export const ClientExport = Type.Object({
  exportedAt: Timestamp,
  client: ClientView,
  transactions: Type.Array(TransactionView),
  subscriptions: Type.Array(Open("A subscription as GET /api/v1/subscriptions/{id} shows it, with its copy of the client's data unmasked (client.name, email, document, phone)")),
  savedCards: Type.Array(SavedCardView),
  checkoutOrders: Type.Array(
    Type.Object({
      id: Uuid,
      paymentLinkId: Uuid,
      name: Nullable(Type.String()),
      email: Type.String(),
      document: Nullable(Type.String()),
      phone: Nullable(Type.String()),
      transactionId: Nullable(Uuid),
      recoveredAt: Nullable(Timestamp),
      createdAt: Timestamp,
    }, { description: 'A hosted checkout the client started (cart abandonment), matched by e-mail or document' }),
  ),
  emails: Type.Array(
    Type.Object({ id: Uuid, template: Type.String(), to: Type.String(), subject: Type.String(), text: Type.String(), status: Type.String(), sentAt: Nullable(Timestamp), createdAt: Timestamp }, { description: 'An e-mail Cofre sent (or queued) to the client' }),
  ),
  webhookDeliveries: Type.Array(
    Type.Object({ id: Uuid, eventId: Uuid, eventType: Type.String(), url: Type.String(), status: Type.String(), attempts: Type.Integer(), createdAt: Timestamp }, { description: "A webhook delivery whose payload named the client (sent to the merchant's endpoint)" }),
  ),
});

export const ClientExportResponse = Type.Object({ message: Type.String(), export: ClientExport });
export const ClientErasedResponse = Type.Object({ message: Type.String(), client: ClientView });
