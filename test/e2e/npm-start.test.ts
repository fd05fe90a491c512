// Starting the gateway as an operator does. `npm start` as a process manager runs it: a real `npm`
// (which runs the script through a shell), the embedded database in a temp DATA_DIR, a free
// loopback port; Linux only (reads /proc). And `node src/main.ts` on a Node too old for TypeScript
// (the system's, when one older than 22 is on the PATH).
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { freePort, listensOn } from '../helpers.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const linux = process.platform === 'linux';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const groups: number[] = [];
const dirs: string[] = [];
after(() => {
  // Whatever the test left running: only the process group this file started.
  for (const pgid of groups) if (alive(groupOf(pgid)).length) process.kill(-pgid, 'SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** /proc/<pid>/stat: the state and process group (the command may hold spaces and parentheses: read after the last ')'). */
function stat(pid: number): { state: string; pgid: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], pgid: Number(fields[2]) };
  } catch {
    return null;
  }
}

/** The processes of a process group (npm, the shell it may start, node). */
const groupOf = (pgid: number) => readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => stat(pid)?.pgid === pgid);
/** Those not exited yet (a zombie has exited: only its parent has not collected it). */
const alive = (pids: number[]) => pids.filter((pid) => { const s = stat(pid); return s !== null && s.state !== 'Z'; });

/** The caller's environment without what would point the server elsewhere, nor the settings of an npm running this test. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('npm_')) delete env[name];
  for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'REDIS_URL', 'TEST_REDIS_URL', 'JWT_SECRET', 'BASE_URL', 'CHECKOUT_URL', 'NODE_OPTIONS', 'NODE_TEST_CONTEXT']) delete env[name];
  return { ...env, ...extra };
}

test('SIGTERM to the `npm start` process stops the gateway: every process of the tree exits and the port is free', { skip: !linux && 'reads /proc' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cofre-start-'));
  dirs.push(dir);
  const port = await freePort();
  // Its own process group, as under a process manager: the tree is found, and cleaned up, by it.
  const npm: ChildProcess = spawn('npm', ['start'], {
    cwd: ROOT,
    env: cleanEnv({ DATA_DIR: join(dir, 'data'), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  groups.push(npm.pid!);
  let output = '';
  npm.stdout!.on('data', (d) => (output += d));
  npm.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => npm.once('exit', (code, signal) => res({ code, signal })));

  for (let end = Date.now() + 90_000; ; await sleep(200)) {
    if (npm.exitCode !== null) assert.fail(`npm start exited early with ${npm.exitCode}\n${output}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    assert.ok(Date.now() < end, `no /health within 90 s\n${output}`);
  }
  const tree = groupOf(npm.pid!);
  assert.ok(tree.length >= 2, `npm and the server: ${tree}`);

  npm.kill('SIGTERM');
  let left = alive(tree);
  for (let end = Date.now() + 15_000; left.length && Date.now() < end; await sleep(100)) left = alive(tree);
  assert.deepEqual(left, [], `still running 15 s after SIGTERM: ${left.map((p) => `${p} ${existsSync(`/proc/${p}/cmdline`) ? readFileSync(`/proc/${p}/cmdline`, 'utf8').replaceAll('\0', ' ') : ''}`)}\n${output}`);
  const { code, signal } = await exited;
  assert.ok(code === 0 || signal === 'SIGTERM', `npm ended with ${code ?? signal}\n${output}`);
  assert.equal(await listensOn(port), port, `port ${port} is still taken`);
});

/** A Node older than 22 on the PATH outside node_modules (it cannot run TypeScript), if any. */
function oldNode(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const node = join(dir, 'node');
    if (!dir || dir.includes('node_modules') || !existsSync(node)) continue;
    if (Number(execFileSync(node, ['-v'], { encoding: 'utf8' }).trim().slice(1).split('.')[0]) < 22) return node;
  }
  return null;
}
const old = oldNode();

describe('on a Node that cannot run TypeScript', { skip: !old && 'no Node older than 22 on the PATH' }, () => {
  const oneLine = (r: { status: number | null; stdout: string; stderr: string }) => {
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.doesNotMatch(r.stderr, /ERR_UNKNOWN_FILE_EXTENSION|\n\s+at /);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^Cofre needs Node 24 \(this is Node v\d+\.\d+\.\d+\)/);
    assert.ok(r.stderr.includes('`npm start`') && r.stderr.includes('./node_modules/.bin/node src/main.ts'), r.stderr);
  };

  test('`node src/main.ts serve` says in one line which Node to use', () => {
    oneLine(spawnSync(old!, ['src/main.ts', 'serve'], { cwd: ROOT, env: cleanEnv({}), encoding: 'utf8', timeout: 30_000 }));
  });

  test('the `npm start` script, where that Node comes first (no node_modules yet), says the same', () => {
    const script = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start;
    const PATH = [dirname(old!), ...(process.env.PATH ?? '').split(delimiter).filter((d) => d && !d.includes('node_modules'))].join(delimiter);
    oneLine(spawnSync('sh', ['-c', script], { cwd: ROOT, env: cleanEnv({ PATH }), encoding: 'utf8', timeout: 30_000 }));
  });
});
