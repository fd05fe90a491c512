// Events are written in the same database transaction as the change they describe.
// Delivery to webhook subscribers reads from here (see the webhooks module).
import type { Trx } from '../../db/index.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { Scope } from '../../http/scope.ts';

export const EVENT_TYPES = [
  'transaction.created',
  'transaction.updated',
  'transaction.completed',
  'transaction.failed',
  'transaction.refunded',
  'payment_link.created',
  'payment_link.updated',
  'balance.updated',
  'subscription.cancelled',
  'kyc.submitted',
  'kyc.approved',
  'kyc.rejected',
  'advance.created',
  'advance.approved',
  'advance.rejected',
  'withdrawal.requested',
  'withdrawal.completed',
  'withdrawal.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventRecord {
  id: string;
  type: EventType;
  data: Record<string, unknown>;
  createdAt: Date;
}

/** Hooks run inside the same transaction for every recorded event (e.g. enqueueing deliveries). */
export type EventHook = (trx: Trx, scope: Scope, events: EventRecord[]) => Promise<void>;
const hooks: EventHook[] = [];
export function onEvents(hook: EventHook) {
  hooks.push(hook);
}

export async function recordEvents(trx: Trx, scope: Scope, items: { type: EventType; data: Record<string, unknown> }[]): Promise<EventRecord[]> {
  if (!items.length) return [];
  const now = new Date();
  const events = items.map((e) => ({ id: uuidv7(), type: e.type, data: e.data, createdAt: now }));
  await trx
    .insertInto('events')
    .values(events.map((e) => ({ id: e.id, user_id: scope.userId, livemode: scope.livemode, type: e.type, data: JSON.stringify(e.data), created_at: now })))
    .execute();
  for (const hook of hooks) await hook(trx, scope, events);
  return events;
}
