// What the multi-process tests on PostgreSQL share: `worker` processes over the test's schema (each
// SIGKILLed at the end if still running), clean-ups run after them in reverse order, and polling.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import { PG_URL, type TestContext } from '../helpers.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';

const children = new Set<ChildProcess>();
/** Run after the test file, last added first, once every worker is killed. */
export const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const fn of cleanups.reverse()) await fn();
});

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(what: string, fn: () => boolean | Promise<boolean>, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A `worker` process over the test's schema; `started` resolves once it says so. */
export function startWorker(ctx: TestContext, env: Record<string, string>, name: string) {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'TEST_DATABASE_URL', 'PORT', 'DATA_DIR', 'RUN_JOBS']) delete base[k];
  const child = spawn(process.execPath, [join(ROOT, 'src', 'main.ts'), 'worker'], {
    cwd: ROOT,
    env: { ...base, ...env, DATABASE_URL: PG_URL!, DATABASE_SCHEMA: ctx.schema!, JWT_SECRET, LOG_LEVEL: 'info', DATABASE_POOL_SIZE: '5' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const started = until(`${name} to start`, () => out.includes('worker started'), 30_000).catch((err) => {
    throw new Error(`${err.message}\n${out}`);
  });
  return { child, started, output: () => out };
}
