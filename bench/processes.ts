// The run's processes and what it leaves behind: the cleanup steps (children stopped, connections
// ended, schema dropped; on success, failure and signals) and the server child processes (bench/floor.ts,
// bench/server.ts), each in its own process so that autocannon, in the run's, does not share their event loop.
import { type ChildProcess, fork } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { ChildStats, ProfileKind } from './child.ts';
import { APP_NAME, DATABASE_URL, HERE, JWT_SECRET, POOL_SIZE, SCHEMA, SERVER_FLAGS, SERVER_STDOUT } from './settings.ts';

export const cleanups: (() => Promise<void>)[] = [];
let cleaned: Promise<void> | null = null;
export function cleanup(): Promise<void> {
  cleaned ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error('cleanup step failed:', (err as Error).message);
      }
    }
  })();
  return cleaned;
}
/** Ctrl-C and kill clean up too. */
export function cleanUpOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: cleaning up`);
      void cleanup().then(() => process.exit(130));
    });
  }
}

export async function dropSchema() {
  const c = new pg.Client({ connectionString: DATABASE_URL });
  await c.connect();
  try {
    // Anything of this run still connected (a seeding statement, a killed child's backend) would hold locks.
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()', [APP_NAME]);
    await c.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    console.log(`dropped schema ${SCHEMA}`);
  } finally {
    await c.end();
  }
}

/**
 * Schemas left by a run that was killed outright (kill -9): a run's connections all carry its schema
 * name as application_name from before the schema exists until it is dropped, so a bench_* schema
 * that nobody is connected as belongs to no live run.
 */
export async function dropStaleSchemas() {
  const c = new pg.Client({ connectionString: DATABASE_URL });
  await c.connect();
  try {
    const { rows } = await c.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace n WHERE nspname ~ '^bench_[0-9a-f]{10}$'
         AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = n.nspname)`,
    );
    for (const { nspname } of rows) {
      await c.query(`DROP SCHEMA IF EXISTS ${nspname} CASCADE`);
      console.log(`dropped ${nspname}, left by a run that was killed`);
    }
  } finally {
    await c.end();
  }
}

export interface Child {
  name: string;
  port: number;
  pid: number;
  url: string;
  /** What the child told beyond its port (serveParent's `info`): the fake Cielo's settings. */
  info: Record<string, string>;
  reset(): Promise<void>;
  stats(): Promise<ChildStats>;
  profileStart(kind: ProfileKind): Promise<void>;
  profileStop(file: string): Promise<void>;
  stop(): Promise<void>;
}

function request<T>(proc: ChildProcess, message: object, reply: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string }) => {
      if (m.type !== reply) return;
      proc.off('message', onMessage);
      resolve(m as T);
    };
    proc.on('message', onMessage);
    if (!proc.send(message)) reject(new Error('child is gone'));
  });
}

export async function startChild(name: string, file: string, env: Record<string, string>): Promise<Child> {
  const proc = fork(join(HERE, file), [], {
    execPath: process.execPath,
    execArgv: [...process.execArgv, ...SERVER_FLAGS],
    env: { ...process.env, ...env, DATABASE_URL, BENCH_SCHEMA: SCHEMA, PGAPPNAME: APP_NAME },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  // The PORT=<n> line (the port also comes over IPC), and what BENCH_SERVER_FLAGS make V8 print.
  proc.stdout?.on('data', (d: Buffer) => SERVER_STDOUT && appendFileSync(SERVER_STDOUT, d));
  let exited = false;
  const exit = new Promise<void>((resolve) => proc.once('exit', () => ((exited = true), resolve())));
  const stop = async () => {
    if (exited) return;
    if (proc.connected) proc.send({ type: 'stop' });
    else proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 8000);
    await exit;
    clearTimeout(timer);
  };
  cleanups.push(stop);
  const { port, info } = await new Promise<{ port: number; info: Record<string, string> }>((resolve, reject) => {
    proc.on('message', (m: { type: string; port?: number; info?: Record<string, string> }) => m.type === 'ready' && resolve({ port: m.port!, info: m.info ?? {} }));
    void exit.then(() => reject(new Error(`${name} exited before listening (code ${proc.exitCode})`)));
  });
  return {
    name,
    port,
    pid: proc.pid!,
    url: `http://127.0.0.1:${port}`,
    info,
    reset: () => request(proc, { type: 'reset' }, 'reset'),
    stats: () => request<ChildStats>(proc, { type: 'stats' }, 'stats'),
    profileStart: (kind) => request(proc, { type: 'profile-start', kind }, 'profile-started'),
    profileStop: (file) => request(proc, { type: 'profile-stop', file }, 'profile-stopped'),
    stop,
  };
}

/** A gateway process of its own for a comparison scenario (run while no other gateway is up: pools of 50). */
export function startGateway(env: Record<string, string> = {}): Promise<Child> {
  return startChild('gateway', 'server.ts', {
    JWT_SECRET,
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'warn',
    RUN_JOBS: 'false',
    BASE_URL: 'http://localhost:3000',
    ...env,
  });
}
