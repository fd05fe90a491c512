// Real `node src/main.ts` processes for the command-line tests: started with a clean environment
// (PGlite in a temp DATA_DIR unless told otherwise), waited on with deadlines, killed at the end.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrationsKey } from '../helpers.ts';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MAIN = join(ROOT, 'src', 'main.ts');

export const children = new Set<ChildProcess>();
const dirs: string[] = [];
/** Kills what is still running and removes the temp dirs (each test file's `after`). */
export function cleanUp() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

export function tempDataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cofre-cli-'));
  dirs.push(d);
  return join(d, 'data');
}

/**
 * A data directory already initialised and migrated: a copy of one that `migrate` made once per set
 * of migrations. A directory's first start costs seconds of CPU in initdb and the migrations; the
 * tests that are not about it start from here (test/e2e/readme.test.ts starts from nothing).
 */
export async function migratedDataDir(): Promise<string> {
  const template = join(tmpdir(), `cofre-cli-template-${migrationsKey()}`);
  if (!existsSync(template)) {
    // Test files racing to make it each make their own and rename it into place; the first one stays.
    const part = `${template}.${process.pid}.${randomBytes(4).toString('hex')}`;
    const res = await run(['migrate'], { DATA_DIR: part });
    assert.equal(res.code, 0, `migrate: ${res.stdout}\n${res.stderr}`);
    try {
      renameSync(part, template);
    } catch {
      rmSync(part, { recursive: true, force: true });
    }
  }
  const dir = tempDataDir();
  cpSync(template, dir, { recursive: true });
  return dir;
}

/** The caller's environment without anything that would point the CLI elsewhere than PGlite. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'REDIS_URL', 'TEST_REDIS_URL', 'JWT_SECRET', 'PORT', 'HOST', 'DATA_DIR', 'BASE_URL', 'CHECKOUT_URL', 'LOG_LEVEL', 'NODE_OPTIONS', 'NODE_TEST_CONTEXT']) delete env[name];
  return { ...env, ...extra };
}

export interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node src/main.ts ...args`, with the test runner's --liftoff-only (package.json; docs/decisions.md "Testing"). */
export function start(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ['--liftoff-only', MAIN, ...args], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once('exit', (code, signal) => res({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

export async function within<T>(p: Promise<T>, ms: number, what: string, proc?: Proc): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => {
    timer = setTimeout(() => {
      proc?.child.kill('SIGKILL');
      rej(new Error(`${what} did not finish within ${ms} ms\nstdout: ${proc?.stdout()}\nstderr: ${proc?.stderr()}`));
    }, ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a command to completion. */
export async function run(args: string[], env: Record<string, string>) {
  const proc = start(args, env);
  const { code, signal } = await within(proc.exited, 90_000, args.join(' '), proc);
  return { code, signal, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** Starts `serve` and waits until it prints where it listens. */
export async function serve(dataDir: string, port: number, env: Record<string, string> = {}): Promise<Proc> {
  const proc = start(['serve'], { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env });
  const ready = new Promise<void>((res, rej) => {
    const check = () => {
      if (/Health:\s+\S+/.test(proc.stdout())) res();
    };
    proc.child.stdout!.on('data', check);
    proc.exited.then(({ code }) => rej(new Error(`serve exited early with ${code}\nstdout: ${proc.stdout()}\nstderr: ${proc.stderr()}`)));
  });
  await within(ready, 90_000, 'serve start-up', proc);
  return proc;
}

export async function stop(proc: Proc) {
  proc.child.kill('SIGTERM');
  const { code, signal } = await within(proc.exited, 20_000, 'shutdown after SIGTERM', proc);
  assert.equal(signal, null, 'the server should exit by itself on SIGTERM, not be killed by it');
  assert.equal(code, 0, `exit code after SIGTERM: ${code}\nstderr: ${proc.stderr()}`);
}

