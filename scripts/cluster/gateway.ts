// The gateway's processes in the cluster: API processes behind HAProxy (no jobs) and workers, each
// with the environment a deployment gives it (docs/operations.md, "Deployment").
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PORTS, URLS } from './layout.ts';
import { startDetached, waitHttp } from './procs.ts';

/** JWT_SECRET, made once per cluster and shared by every process (restarts too). */
function jwtSecret(dir: string): string {
  const file = join(dir, 'jwt-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8');
}

/** What every gateway process of the cluster is given. */
export function gatewayEnv(dir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    JWT_SECRET: jwtSecret(dir),
    // Writes and money through the pooler; LISTEN straight to the primary (a pooler in transaction
    // mode cannot carry it); reads that may lag from the replica.
    DATABASE_URL: URLS.pgbouncer,
    DATABASE_LISTEN_URL: URLS.primary,
    DATABASE_REPLICA_URL: URLS.replica,
    DATABASE_POOL_SIZE: '10',
    REDIS_URL: URLS.redis,
    BASE_URL: URLS.api,
    TRUST_PROXY: 'true',
    LOG_LEVEL: process.env.CLUSTER_LOG_LEVEL ?? 'warn',
    // The rehearsal's webhook receiver is on loopback: allowed inside this cluster only.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // A payout or charge left behind by a killed worker is taken up after 15 s, within a rehearsal.
    JANITOR_GRACE_SECONDS: '15',
    // Likewise the deliveries a killed worker had leased (at least WEBHOOK_TIMEOUT_MS + 1 s).
    WEBHOOK_LOCK_MS: '15000',
    // The rehearsal registers its merchants from one address, run after run.
    REGISTRATIONS_PER_IP_PER_HOUR: '1000',
    // On SIGTERM /ready fails for 1.5 s (HAProxy: 2 checks 500 ms apart) before the listener closes.
    SHUTDOWN_DRAIN_MS: '1500',
    SHUTDOWN_TIMEOUT_MS: '15000',
  };
}

const main = join(process.cwd(), 'src', 'main.ts');

/** Starts API process i (0-based) and resolves with its pid once /ready answers. */
export async function startApi(dir: string, i: number): Promise<number> {
  const env = { ...gatewayEnv(dir), PORT: String(PORTS.apis[i]), HOST: '127.0.0.1', RUN_JOBS: 'false' };
  const pid = startDetached(dir, `api${i + 1}`, process.execPath, [main, 'serve'], env);
  await waitHttp(`${URLS.apis[i]}/ready`);
  return pid;
}

/** Starts worker i (0-based): jobs and webhook deliveries. */
export function startWorker(dir: string, i: number): number {
  return startDetached(dir, `worker${i + 1}`, process.execPath, [main, 'worker'], gatewayEnv(dir));
}
