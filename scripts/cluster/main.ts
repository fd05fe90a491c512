// `npm run cluster` starts Cofre's production topology on loopback, in a temporary directory:
// HAProxy -> two API processes, two workers, PostgreSQL primary + streaming replica, PgBouncer
// (transaction mode) in front of the primary, Redis. `npm run cluster -- stop` stops it;
// `npm run cluster -- status` shows what runs. docs/operations.md ("Deployment") explains the parts.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPgPair, stopPair, type PgPair } from '../pg-pair.ts';
import { startApi, startWorker } from './gateway.ts';
import { startHaproxy } from './haproxy.ts';
import { clearState, DATABASE, PORTS, readState, stateFile, URLS, writeState, type ClusterState } from './layout.ts';
import { startPgbouncer } from './pgbouncer.ts';
import { alive, portOpen, stopPid } from './procs.ts';
import { startRedis } from './redis.ts';

/** The pair as pg-pair describes it, for a cluster directory (stop and the rehearsal find it again). */
export function pairOf(dir: string): PgPair {
  const pgDir = join(dir, 'pg');
  return {
    dir: pgDir,
    binDir: process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin',
    database: DATABASE,
    primaryPort: PORTS.primary,
    replicaPort: PORTS.replica,
    primaryUrl: URLS.primary,
    replicaUrl: URLS.replica,
    dataDir: { primary: join(pgDir, 'primary'), replica: join(pgDir, 'replica') },
    logFile: { primary: join(pgDir, 'primary.log'), replica: join(pgDir, 'replica.log') },
  };
}

export const pgbouncerOptions = (dir: string) => ({ dir: join(dir, 'pgbouncer'), port: PORTS.pgbouncer, serverPort: PORTS.primary, database: DATABASE });

export async function startCluster(): Promise<ClusterState> {
  const running = readState();
  if (running && Object.values(running.pids).some(alive)) throw new Error(`a cluster already runs in ${running.dir} (npm run cluster -- stop)`);
  const ports = [PORTS.primary, PORTS.replica, PORTS.pgbouncer, PORTS.redis, PORTS.haproxy, PORTS.haproxyStats, ...PORTS.apis];
  const taken = (await Promise.all(ports.map(async (p) => ((await portOpen(p)) ? p : 0)))).filter(Boolean);
  if (taken.length) throw new Error(`ports in use on 127.0.0.1: ${taken.join(', ')} (another cluster, or another program: the cluster needs them)`);
  const dir = mkdtempSync(join(tmpdir(), 'cofre-cluster-'));
  chmodSync(dir, 0o755); // PostgreSQL and PgBouncer run as postgres and reach their subdirectories through it
  const state: ClusterState = { dir, startedAt: new Date().toISOString(), pids: {} };
  const step = (what: string) => process.stdout.write(`  ${what}\n`);
  console.log(`Cofre cluster in ${dir}`);
  try {
    step('PostgreSQL primary and streaming replica (pg_basebackup)');
    // WAL archived from the start, so a base backup plus the archive restores (docs/operations.md).
    const archive = join(dir, 'pg', 'wal-archive');
    mkdirSync(archive, { recursive: true });
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', archive]);
    const settings = { max_connections: 200, archive_mode: 'on', archive_command: `test ! -f ${archive}/%f && cp %p ${archive}/%f` };
    await startPgPair({ dir: join(dir, 'pg'), primaryPort: PORTS.primary, replicaPort: PORTS.replica, database: DATABASE, fsync: true, settings });
    writeState(state);
    step('PgBouncer, Redis');
    state.pids.pgbouncer = await startPgbouncer(pgbouncerOptions(dir));
    state.pids.redis = await startRedis(dir, PORTS.redis);
    writeState(state);
    step('API processes (the first applies the migrations), workers, HAProxy');
    state.pids.api1 = await startApi(dir, 0);
    writeState(state);
    state.pids.api2 = await startApi(dir, 1);
    state.pids.worker1 = startWorker(dir, 0);
    state.pids.worker2 = startWorker(dir, 1);
    state.pids.haproxy = await startHaproxy({ dir, port: PORTS.haproxy, statsPort: PORTS.haproxyStats, apiPorts: PORTS.apis });
    writeState(state);
  } catch (err) {
    console.error(`the cluster did not start: ${(err as Error).message}\n  logs in ${dir}; stopping what started`);
    await stopCluster();
    throw err;
  }
  printUrls(state);
  return state;
}

export function printUrls(state: ClusterState): void {
  console.log(`
Cofre cluster running (logs and data in ${state.dir})
  API (HAProxy):     ${URLS.api}
  HAProxy stats:     ${URLS.stats}
  API processes:     ${URLS.apis.join('  ')}
  PostgreSQL:        primary ${URLS.primary}  replica ${URLS.replica}
  PgBouncer:         ${URLS.pgbouncer}  (transaction mode, in front of the primary)
  Redis:             ${URLS.redis}
  Workers:           pids ${state.pids.worker1} ${state.pids.worker2}
Stop it with: npm run cluster -- stop
`);
}

export async function stopCluster(): Promise<void> {
  const state = readState();
  if (!state) {
    console.log(`no cluster recorded (${stateFile})`);
    return;
  }
  // The gateway first (it drains), then what it uses.
  const order = ['haproxy', 'api1', 'api2', 'worker1', 'worker2', 'pgbouncer', 'redis'];
  await Promise.all(order.slice(0, 5).map((n) => state.pids[n] && stopPid(state.pids[n])));
  await Promise.all(order.slice(5).map((n) => state.pids[n] && stopPid(state.pids[n])));
  await stopPair(pairOf(state.dir)).catch((err) => console.error(`PostgreSQL: ${(err as Error).message}`));
  clearState();
  console.log(`cluster stopped (its directory ${state.dir} is kept: logs)`);
}

function status(): void {
  const state = readState();
  if (!state) {
    console.log('no cluster recorded');
    return;
  }
  for (const [name, pid] of Object.entries(state.pids)) console.log(`  ${name.padEnd(10)} pid ${pid} ${alive(pid) ? 'running' : 'gone'}`);
  printUrls(state);
}

if (import.meta.main) {
  const command = process.argv[2] ?? 'start';
  const run = command === 'stop' ? stopCluster : command === 'status' ? async () => status() : command === 'start' ? startCluster : null;
  if (!run) {
    console.error('usage: npm run cluster [-- start | stop | status]');
    process.exit(2);
  }
  run().then(
    () => process.exit(0),
    (err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
