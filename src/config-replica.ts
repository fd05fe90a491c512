// The streaming replica that list, export and report reads may use (db/replica.ts). The URL may
// carry a password: never logged, never quoted in a message.
import { int, url, type Env } from './config-read.ts';

export interface ReplicaConfig {
  /** DATABASE_REPLICA_URL: a hot standby of DATABASE_URL's database (same schema, DATABASE_SCHEMA). */
  url: string;
  /** REPLICA_MAX_LAG_MS: reads go to the primary while the replica may be further behind than this. */
  maxLagMs: number;
  /** REPLICA_PROBE_INTERVAL_MS: how often the replica's replay position is compared with the primary's. */
  probeIntervalMs: number;
}

/** null without DATABASE_REPLICA_URL: every read goes to the primary, as with one database. */
export function replicaConfig(env: Env, databaseUrl: string | null, problems: string[]): ReplicaConfig | null {
  const maxLagMs = int(env, 'REPLICA_MAX_LAG_MS', 2000, 0, 3_600_000, problems);
  const probeIntervalMs = int(env, 'REPLICA_PROBE_INTERVAL_MS', 500, 20, 60_000, problems);
  if (!env.DATABASE_REPLICA_URL) return null;
  if (!databaseUrl) problems.push('DATABASE_REPLICA_URL needs DATABASE_URL (the embedded database has no replica)');
  const replicaUrl = url(env, 'DATABASE_REPLICA_URL', '', problems, ['postgres:', 'postgresql:']);
  return replicaUrl ? { url: replicaUrl, maxLagMs, probeIntervalMs } : null;
}
