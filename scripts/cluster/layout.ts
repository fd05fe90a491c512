// Where the cluster's pieces listen (loopback, 26000-26999: clear of the 5432/6379 that CI and
// other work use, and below the kernel's ephemeral range, where a process the rehearsal restarts
// could find its port taken as an outgoing connection's local port) and where `npm run cluster` keeps what `stop` and the rehearsal need to find it.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PORTS = {
  haproxy: 26080,
  haproxyStats: 26081,
  apis: [26101, 26102],
  primary: 26432,
  replica: 26433,
  pgbouncer: 26434,
  redis: 26379,
  receiver: 26090,
} as const;

export const DATABASE = 'cofre';
export const HOST = '127.0.0.1';

export interface ClusterState {
  dir: string;
  startedAt: string;
  /** Process ids by name (api1, api2, worker1, worker2, haproxy, pgbouncer, redis). */
  pids: Record<string, number>;
}

const stateDir = join(tmpdir(), 'cofre-cluster');
export const stateFile = join(stateDir, 'state.json');

export function readState(): ClusterState | null {
  if (!existsSync(stateFile)) return null;
  return JSON.parse(readFileSync(stateFile, 'utf8')) as ClusterState;
}

export function writeState(state: ClusterState): void {
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(stateFile, JSON.stringify(state, null, 2) + '\n');
}

export function clearState(): void {
  rmSync(stateFile, { force: true });
}

const pg = (port: number) => `postgres://postgres@${HOST}:${port}/${DATABASE}`;

/** Every address of the cluster, as printed and as given to the gateway's processes. */
export const URLS = {
  api: `http://${HOST}:${PORTS.haproxy}`,
  stats: `http://${HOST}:${PORTS.haproxyStats}/`,
  apis: PORTS.apis.map((p) => `http://${HOST}:${p}`),
  primary: pg(PORTS.primary),
  replica: pg(PORTS.replica),
  pgbouncer: pg(PORTS.pgbouncer),
  redis: `redis://${HOST}:${PORTS.redis}`,
};
