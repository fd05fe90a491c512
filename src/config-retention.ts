// How long the history tables keep their rows: whole week partitions past it are dropped
// (db/partitions.ts, docs/operations.md "History partitions").
import { int, type Env } from './config-read.ts';

/** How long each table's rows are kept (config: EVENT_RETENTION_DAYS and the others, docs/operations.md). */
export interface Retention {
  eventDays: number;
  webhookDeliveryDays: number;
  emailDays: number;
  /** At least 24: a key replays its response for 24 h, so its rows are kept at least that long. */
  idempotencyHours: number;
}

/** EVENT_RETENTION_DAYS, WEBHOOK_DELIVERY_RETENTION_DAYS, EMAIL_RETENTION_DAYS, IDEMPOTENCY_RETENTION_HOURS. */
export function retentionConfig(env: Env, problems: string[]): Retention {
  return {
    eventDays: int(env, 'EVENT_RETENTION_DAYS', 90, 1, 36_500, problems),
    webhookDeliveryDays: int(env, 'WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 1, 36_500, problems),
    emailDays: int(env, 'EMAIL_RETENTION_DAYS', 90, 1, 36_500, problems),
    idempotencyHours: int(env, 'IDEMPOTENCY_RETENTION_HOURS', 48, 24, 876_000, problems),
  };
}
