// Saved cards (modules/cards): the card connector's token and what may be shown of the card.
import type { Selectable } from 'kysely';
import type { Timestamp } from './columns.ts';

export interface SavedCardsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  client_id: string;
  /** The connector that keeps the card: its token is charged there and nowhere else. */
  connector: string;
  /** The connector's token: never leaves Cofre (no response, webhook, e-mail or log carries it). */
  token: string;
  brand: string;
  last4: string;
  exp_month: number;
  /** Four digits. */
  exp_year: number;
  holder_name: string;
  created_at: Timestamp;
}

export type SavedCard = Selectable<SavedCardsTable>;
