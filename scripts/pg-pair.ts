// A PostgreSQL primary and a streaming replica (made with `pg_basebackup -R`) in a temporary
// directory on loopback, from the server binaries installed on this machine. Used by the replica
// tests (test/replica.test.ts) and by `npm run cluster`; a library, no CLI.
//
// PostgreSQL refuses to run as root, so when we are root every binary runs through
// `runuser -u postgres --` and the directory is handed to that user.
import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface PgPairOptions {
  /** Directory that will hold both data directories, the sockets and the logs (created if missing). */
  dir: string;
  primaryPort: number;
  replicaPort: number;
  /** Database created on the primary (and so on the replica). Default 'cofre'. */
  database?: string;
  /** fsync on the primary and the replica. Default false: a test cluster trades durability for speed. */
  fsync?: boolean;
  /** Extra postgresql.conf lines for the primary (the replica inherits them through the base backup). */
  settings?: Record<string, string | number>;
  /** Server binaries; default: the newest /usr/lib/postgresql/<version>/bin. */
  binDir?: string;
}

export type PgNode = 'primary' | 'replica';

export interface PgPair {
  dir: string;
  binDir: string;
  database: string;
  primaryPort: number;
  replicaPort: number;
  /** postgres://postgres@127.0.0.1:<port>/<database>, superuser, trust authentication. */
  primaryUrl: string;
  replicaUrl: string;
  dataDir: Record<PgNode, string>;
  logFile: Record<PgNode, string>;
}

/** The newest installed PostgreSQL's bin directory (Debian layout), or the one given by PG_BIN_DIR. */
export function findPgBinDir(root = '/usr/lib/postgresql'): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL server binaries under ${root} (apt-get install postgresql)`);
  return join(root, versions[0], 'bin');
}

const asRoot = process.getuid?.() === 0;

/** Runs a server binary, as the postgres user when we are root. Resolves with stdout. */
async function pgRun(binDir: string, binary: string, args: string[]): Promise<string> {
  const file = join(binDir, binary);
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  try {
    const { stdout } = await run(cmd, argv, { env: { ...process.env, PGDATA: '', PGPASSWORD: '' } });
    return stdout;
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`${binary} ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`);
  }
}

function handOver(path: string): void {
  if (!asRoot) return;
  const { uid, gid } = postgresIds();
  chownSync(path, uid, gid);
}

let ids: { uid: number; gid: number } | undefined;
function postgresIds(): { uid: number; gid: number } {
  // `id` honours NSS where parsing /etc/passwd would not; synchronous, called once before any start.
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  ids ??= { uid: id('-u'), gid: id('-g') };
  return ids;
}

function confLines(settings: Record<string, string | number>): string {
  return Object.entries(settings)
    .map(([k, v]) => `${k} = ${typeof v === 'number' ? v : `'${v.replace(/'/g, "''")}'`}\n`)
    .join('');
}

/** pg_ctl start (waits until the server accepts connections). */
export async function startNode(pair: PgPair, node: PgNode): Promise<void> {
  await pgRun(pair.binDir, 'pg_ctl', ['start', '-w', '-t', '60', '-D', pair.dataDir[node], '-l', pair.logFile[node]]);
}

/** pg_ctl stop; a node that is not running is not an error. `immediate` is a crash (no checkpoint). */
export async function stopNode(pair: PgPair, node: PgNode, mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
  if (!existsSync(join(pair.dataDir[node], 'postmaster.pid'))) return;
  await pgRun(pair.binDir, 'pg_ctl', ['stop', '-w', '-t', '60', '-m', mode, '-D', pair.dataDir[node]]);
}

/** Starts the replica and waits until the primary sees it streaming. */
export async function startReplica(pair: PgPair): Promise<void> {
  await startNode(pair, 'replica');
  await waitStreaming(pair);
}

/** Resolves once the primary's pg_stat_replication shows a streaming standby (polls every 50 ms). */
export async function waitStreaming(pair: PgPair, timeoutMs = 30_000): Promise<void> {
  const client = new pg.Client({ connectionString: pair.primaryUrl });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query("SELECT 1 FROM pg_stat_replication WHERE state = 'streaming'");
      if (rows.length > 0) return;
      if (Date.now() > deadline) throw new Error(`replica on port ${pair.replicaPort} not streaming after ${timeoutMs} ms`);
      await sleep(50);
    }
  } finally {
    await client.end();
  }
}
export const stopReplica = (pair: PgPair, mode: 'fast' | 'immediate' = 'fast'): Promise<void> =>
  stopNode(pair, 'replica', mode);

/** Stops the replica, then the primary. */
export async function stopPair(pair: PgPair): Promise<void> {
  await stopNode(pair, 'replica');
  await stopNode(pair, 'primary');
}

/** Stops both servers (best effort) and removes the directory. */
export async function removePair(pair: PgPair): Promise<void> {
  await stopNode(pair, 'replica', 'immediate').catch(() => {});
  await stopNode(pair, 'primary', 'immediate').catch(() => {});
  rmSync(pair.dir, { recursive: true, force: true });
}

function describe(opts: PgPairOptions): PgPair {
  const binDir = opts.binDir ?? findPgBinDir();
  const database = opts.database ?? 'cofre';
  const url = (port: number) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    dir: opts.dir,
    binDir,
    database,
    primaryPort: opts.primaryPort,
    replicaPort: opts.replicaPort,
    primaryUrl: url(opts.primaryPort),
    replicaUrl: url(opts.replicaPort),
    dataDir: { primary: join(opts.dir, 'primary'), replica: join(opts.dir, 'replica') },
    logFile: { primary: join(opts.dir, 'primary.log'), replica: join(opts.dir, 'replica.log') },
  };
}

/**
 * Creates and starts the pair: initdb of the primary (trust on loopback, replication allowed from
 * 127.0.0.1), the database, a base backup with -R into the replica's own data directory, and the
 * replica on its own port; resolves once it streams. On failure whatever was started is stopped and the directory removed.
 */
export async function startPgPair(opts: PgPairOptions): Promise<PgPair> {
  const pair = describe(opts);
  mkdirSync(pair.dir, { recursive: true });
  const sockets = join(pair.dir, 'sockets');
  mkdirSync(sockets, { recursive: true });
  handOver(pair.dir);
  handOver(sockets);
  try {
    await initPrimary(pair, opts, sockets);
    await startNode(pair, 'primary');
    await pgRun(pair.binDir, 'createdb', ['-h', '127.0.0.1', '-p', String(pair.primaryPort), '-U', 'postgres', pair.database]);
    await pgRun(pair.binDir, 'pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(pair.primaryPort), '-U', 'postgres'],
      ...['-D', pair.dataDir.replica, '-R', '-X', 'stream', '-c', 'fast'],
    ]);
    // Later lines win: the replica keeps the primary's settings but listens on its own port.
    appendFileSync(join(pair.dataDir.replica, 'postgresql.conf'), confLines({ port: pair.replicaPort }));
    await startReplica(pair);
    return pair;
  } catch (err) {
    await removePair(pair);
    throw err;
  }
}

async function initPrimary(pair: PgPair, opts: PgPairOptions, sockets: string): Promise<void> {
  await pgRun(pair.binDir, 'initdb', ['-D', pair.dataDir.primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const conf = join(pair.dataDir.primary, 'postgresql.conf');
  appendFileSync(
    conf,
    confLines({
      listen_addresses: '127.0.0.1',
      port: pair.primaryPort,
      unix_socket_directories: sockets,
      wal_level: 'replica',
      max_wal_senders: 10,
      hot_standby: 'on',
      hot_standby_feedback: 'on',
      fsync: opts.fsync ? 'on' : 'off',
      full_page_writes: opts.fsync ? 'on' : 'off',
      ...opts.settings,
    }),
  );
  writeFileSync(
    join(pair.dataDir.primary, 'pg_hba.conf'),
    [
      'local all all trust',
      'host all all 127.0.0.1/32 trust',
      'host replication all 127.0.0.1/32 trust',
      '',
    ].join('\n'),
  );
}
