import { Type } from '@sinclair/typebox';
import { PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';
import { CardData } from '../transactions/schemas.ts';

export const SaveCardBody = Type.Object(
  {
    clientId: Type.String({ format: 'uuid', description: 'A client of this merchant and environment (404 otherwise)' }),
    card: CardData,
  },
  { additionalProperties: false },
);

export const SavedCardView = Type.Object(
  {
    id: Uuid,
    clientId: Uuid,
    brand: Type.String(),
    last4: Type.String(),
    expMonth: Type.Integer(),
    expYear: Type.Integer({ description: 'Four digits' }),
    holderName: Type.String(),
    createdAt: Timestamp,
  },
  { description: 'A card kept by the card provider for one-click purchases: its number, CVV and the provider\'s token never leave the gateway' },
);

export const ListCardsQuery = Type.Object(
  { ...PageQuery, clientId: Type.Optional(Type.String({ format: 'uuid', description: "Only this client's cards" })) },
  { additionalProperties: false },
);

export const SavedCardResponse = Type.Object({ message: Type.String(), card: SavedCardView });
export const SavedCardListResponse = Type.Object({ message: Type.String(), cards: Type.Array(SavedCardView), pagination: PagePagination });
