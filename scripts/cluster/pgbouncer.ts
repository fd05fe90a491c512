// PgBouncer in transaction mode in front of the primary (Debian's 1.18). It refuses to run as root,
// so as root it is started with `-u postgres` and its directory is handed to that user.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDetached, stopPid, waitPort } from './procs.ts';

export interface PgbouncerOptions {
  /** Its own directory (config, user list, log). */
  dir: string;
  port: number;
  /** The primary it pools. */
  serverPort: number;
  database: string;
  poolMode?: 'transaction' | 'session';
  /** Server connections per database and user. */
  poolSize?: number;
  /** The role clients connect as (trusted; default postgres). */
  user?: string;
  /** Run on every new server connection (the benchmark's schema: 1.18 drops the clients' `options`). */
  connectQuery?: string;
}

export const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

/** Writes pgbouncer.ini and its user list; returns the ini's path. */
export function writePgbouncerConfig(o: PgbouncerOptions): string {
  mkdirSync(o.dir, { recursive: true });
  const ini = join(o.dir, 'pgbouncer.ini');
  writeFileSync(join(o.dir, 'userlist.txt'), `"${o.user ?? 'postgres'}" ""\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      `${o.database} = host=127.0.0.1 port=${o.serverPort} dbname=${o.database}${o.connectQuery ? ` connect_query='${o.connectQuery}'` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${o.port}`,
      'unix_socket_dir =',
      // Loopback only, like the primary's own trust; a real deployment uses scram-sha-256 here.
      'auth_type = trust',
      `auth_file = ${join(o.dir, 'userlist.txt')}`,
      `admin_users = ${o.user ?? 'postgres'}`,
      `pool_mode = ${o.poolMode ?? 'transaction'}`,
      'max_client_conn = 1000',
      `default_pool_size = ${o.poolSize ?? 20}`,
      // pg sends extra_float_digits at start-up; 1.18 refuses start-up parameters it does not know.
      `ignore_startup_parameters = extra_float_digits${o.connectQuery ? ', options' : ''}`,
      'server_reset_query =',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres:postgres', o.dir]);
  return ini;
}

/**
 * Starts PgBouncer (in the foreground, detached from us); resolves with its pid once it listens. It logs
 * to stderr, into `dir`/pgbouncer.log opened by us: as `postgres` it may not reach a root-only $TMPDIR.
 */
export async function startPgbouncer(o: PgbouncerOptions): Promise<number> {
  const ini = writePgbouncerConfig(o);
  const args = process.getuid?.() === 0 ? ['-u', 'postgres', ini] : [ini];
  const pid = startDetached(o.dir, 'pgbouncer', PGBOUNCER, args);
  try {
    await waitPort(o.port, 'PgBouncer');
  } catch (err) {
    // Not left running, and its own words say why it did not listen.
    await stopPid(pid, 'SIGKILL');
    throw new Error(`${(err as Error).message}\n${readFileSync(join(o.dir, 'pgbouncer.log'), 'utf8').slice(-2000)}`);
  }
  return pid;
}
