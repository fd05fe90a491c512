// The command line as an operator uses it: real processes, a real port, PGlite in a temp DATA_DIR.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { freePort, onPostgres } from '../helpers.ts';
import { skippedWith } from './browser.ts';
import { children, cleanEnv, cleanUp, MAIN, migratedDataDir, ROOT, run, serve, start, stop, tempDataDir, within } from './cli-kit.ts';

// On the PostgreSQL pass each test is reported skipped: the CLI runs on PGlite whatever it says (cleanEnv).
const { after, before, describe, test } = skippedWith(onPostgres && 'always the embedded database (TEST_DATABASE_URL is not passed on): run on the PGlite pass only');
after(cleanUp);

async function login(port: number, email: string, password: string) {
  const res = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('operator account and serve', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await migratedDataDir();
  });
  const email = `ops.${Date.now()}@cofre.example`;
  const password = 'operador-forte-123';

  test('admin create makes an operator (role ADMIN) in the data dir', async () => {
    const res = await run(['admin', 'create', '--email', email, '--password', password, '--name', 'Operadora'], { DATA_DIR: dataDir });
    assert.equal(res.code, 0, `stdout: ${res.stdout}\nstderr: ${res.stderr}`);
    assert.match(res.stdout, /operator created/i);
    assert.ok(res.stdout.includes(email));
    assert.match(res.stdout, /ADMIN/);
  });

  test('the same e-mail again is refused with a message and exit 1', async () => {
    const res = await run(['admin', 'create', '--email', email.toUpperCase(), '--password', password], { DATA_DIR: dataDir });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /already/i);
    assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace for an expected error');
  });

  test('a short password or a missing --password is refused', async () => {
    const short = await run(['admin', 'create', '--email', 'x@cofre.example', '--password', 'short'], { DATA_DIR: dataDir });
    assert.equal(short.code, 1);
    assert.match(short.stderr, /password/i);
    const missing = await run(['admin', 'create', '--email', 'x@cofre.example'], { DATA_DIR: dataDir });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Usage:/);
  });

  test('serve prints the dashboard, API, docs and health URLs; the operator logs in as ADMIN; SIGTERM stops it; a restart keeps the data', async () => {
    const port = await freePort();
    const server = await serve(dataDir, port);
    try {
      const out = server.stdout();
      assert.ok(out.includes(`http://localhost:${port}/dashboard`), out);
      assert.ok(out.includes(`http://localhost:${port}/api`), out);
      assert.ok(out.includes(`http://localhost:${port}/docs`), out);
      assert.ok(out.includes(`http://localhost:${port}/health`), out);

      const health = await fetch(`http://127.0.0.1:${port}/health`);
      assert.equal(health.status, 200);
      assert.ok(health.headers.get('x-request-id'));
      const ready = await fetch(`http://127.0.0.1:${port}/ready`);
      assert.equal(ready.status, 200);
      assert.equal(((await ready.json()) as any).database, 'pglite');

      const res = await login(port, email, password);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.user.role, 'ADMIN');
      assert.equal(res.body.user.email, email);

      // Something created now must survive a restart.
      const reg = await fetch(`http://127.0.0.1:${port}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Loja Persistente', email: `loja.${Date.now()}@cofre.example`, password: 'segredo123' }),
      });
      assert.equal(reg.status, 201);
      const merchant = (await reg.json()) as any;
      const token: string = merchant.token;

      await stop(server);

      const again = await serve(dataDir, port);
      try {
        const relogin = await login(port, email, password);
        assert.equal(relogin.status, 200);
        assert.equal(relogin.body.user.role, 'ADMIN');
        // The generated JWT secret was kept in the data dir too: the old token still works.
        const me = await fetch(`http://127.0.0.1:${port}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(me.status, 200);
        assert.equal(((await me.json()) as any).user.id, merchant.user.id);
      } finally {
        await stop(again);
      }
    } finally {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    }
  });
});

describe('refusals', () => {
  test('serve with PORT=abc exits non-zero naming PORT, without a stack trace', async () => {
    const res = await run(['serve'], { DATA_DIR: tempDataDir(), PORT: 'abc' });
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /PORT must be a whole number/);
    assert.match(res.stderr, /abc/);
    assert.doesNotMatch(res.stderr, /\n\s+at /);
  });

  test('an unknown command prints the usage and exits 1', async () => {
    const res = await run(['frobnicate'], { DATA_DIR: tempDataDir() });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /Usage:/);
    assert.match(res.stderr, /serve/);
    assert.match(res.stderr, /admin create/);
  });

  test('no command prints the usage and exits 1', async () => {
    const res = await run([], { DATA_DIR: tempDataDir() });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /Usage:/);
  });

  test('a mistyped option prints the usage and exits 1 (no stack trace)', async () => {
    const res = await run(['admin', 'create', '--emial', 'x@cofre.example', '--password', 'segredo123'], { DATA_DIR: tempDataDir() });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /Usage:/);
    assert.doesNotMatch(res.stderr, /\n\s+at /);
  });
});

describe('one process per embedded database (DATA_DIR lock)', () => {
  const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at /, `no stack trace expected:\n${s}`);

  test('while serve runs: a second serve, migrate and admin create stop at once naming the running pid; the data stays the server\'s', async () => {
    const dataDir = await migratedDataDir();
    const port = await freePort();
    const server = await serve(dataDir, port);
    const pid = server.child.pid!;
    const running = new RegExp(`Cofre is already running on \\S+ \\(pid ${pid}\\)`);
    try {
      const email = `lock.${Date.now()}@cofre.example`;
      const admin = await run(['admin', 'create', '--email', email, '--password', 'operador-forte-123'], { DATA_DIR: dataDir });
      assert.equal(admin.code, 1, admin.stdout);
      assert.match(admin.stderr, running);
      assert.match(admin.stderr, /Stop that process first/);
      assert.doesNotMatch(admin.stdout, /operator created/);
      noStack(admin.stderr);

      const migrate = await run(['migrate'], { DATA_DIR: dataDir });
      assert.equal(migrate.code, 1);
      assert.match(migrate.stderr, running);
      noStack(migrate.stderr);

      // Another port, same data dir: refused before it listens; the same port: the lock is named first.
      for (const p of [await freePort(), port]) {
        const t0 = Date.now();
        const second = await run(['serve'], { DATA_DIR: dataDir, PORT: String(p), HOST: '127.0.0.1' });
        assert.equal(second.code, 1, second.stdout);
        assert.match(second.stderr, running);
        noStack(second.stderr);
        assert.ok(Date.now() - t0 < 15_000, 'refused at once, not after opening the database');
      }

      // The server is untouched: it still answers and still holds its lock.
      assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
      assert.equal(JSON.parse(readFileSync(join(dataDir, 'cofre.lock'), 'utf8')).pid, pid);
      assert.equal((await login(port, email, 'operador-forte-123')).status, 401);
    } finally {
      await stop(server);
    }
    assert.equal(existsSync(join(dataDir, 'cofre.lock')), false, 'a clean shutdown removes the lock');
    const after = await run(['admin', 'create', '--email', `after.${Date.now()}@cofre.example`, '--password', 'operador-forte-123'], { DATA_DIR: dataDir });
    assert.equal(after.code, 0, after.stderr);
    assert.equal(existsSync(join(dataDir, 'cofre.lock')), false, 'a CLI command removes its lock on exit');
  });

  test('a lock left by a killed process is taken over', async () => {
    const dataDir = await migratedDataDir();
    const port = await freePort();
    const first = await serve(dataDir, port);
    first.child.kill('SIGKILL');
    await first.exited;
    assert.ok(existsSync(join(dataDir, 'cofre.lock')), 'kill -9 leaves the lock behind');
    const next = await run(['migrate'], { DATA_DIR: dataDir });
    assert.equal(next.code, 0, next.stderr);
    assert.equal(existsSync(join(dataDir, 'cofre.lock')), false, 'taken over, then released on exit');
    // A pid that now belongs to another process (same pid, other start time) is stale too.
    writeFileSync(join(dataDir, 'cofre.lock'), JSON.stringify({ pid: process.pid, start: '1' }));
    const res = await run(['migrate'], { DATA_DIR: dataDir });
    assert.equal(res.code, 0, res.stderr);
  });

  test('a busy port stops serve with a message naming PORT, without opening the database', async () => {
    const blocker = createServer();
    await new Promise<void>((res) => blocker.listen(0, '127.0.0.1', () => res()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const dataDir = tempDataDir();
      const res = await run(['serve'], { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
      assert.equal(res.code, 1);
      assert.match(res.stderr, new RegExp(`Port ${port} is already in use on 127\\.0\\.0\\.1 \\(PORT\\)`));
      assert.doesNotMatch(res.stderr, /EADDRINUSE/);
      noStack(res.stderr);
      assert.equal(existsSync(join(dataDir, 'pgdata')), false, 'the database was not opened (nor migrated)');
    } finally {
      blocker.close();
    }
  });
});

describe('PostgreSQL unreachable', () => {
  test('migrate names DATABASE_URL and the address, without a stack (and never the password)', async () => {
    const port = await freePort(); // nothing listens there
    const res = await run(['migrate'], { DATABASE_URL: `postgres://cofre:s3gredo@127.0.0.1:${port}/cofre`, JWT_SECRET: 'x'.repeat(40) });
    assert.equal(res.code, 1);
    assert.match(res.stderr, new RegExp(`Cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}/cofre \\(DATABASE_URL\\): connection refused`));
    assert.doesNotMatch(res.stderr, /\n\s+at /);
    assert.doesNotMatch(res.stderr, /s3gredo/);
  });
});

describe('logs', () => {
  const hasScript = existsSync('/usr/bin/script');

  test('serve on a terminal (a pseudo-terminal through script(1)) logs readable lines, one per request', { skip: !hasScript && 'script(1) not installed' }, async () => {
    const port = await freePort();
    const dataDir = await migratedDataDir();
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const child = spawn('/usr/bin/script', ['-qfec', `${q(process.execPath)} ${q(MAIN)} serve`, '/dev/null'], {
      cwd: ROOT,
      env: cleanEnv({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', TERM: 'dumb' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    let pid = 0; // the server's, from its lock
    try {
      const deadline = Date.now() + 90_000;
      while (!/Health:\s+\S+/.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start on a terminal:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      pid = JSON.parse(readFileSync(join(dataDir, 'cofre.lock'), 'utf8')).pid;
      assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
      const line = /^.*GET \/health 200 [\d.]+ ms.*$/m;
      for (let i = 0; i < 50 && !line.test(out); i++) await new Promise((r) => setTimeout(r, 100));
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour codes are what it strips
      const clean = out.replace(/\u001b\[[0-9;]*m/g, '');
      assert.match(clean, /\d\d:\d\d:\d\d\.\d{3} INFO {2}GET \/health 200 [\d.]+ ms {2}req=[0-9a-f-]{36}/, out);
      assert.doesNotMatch(clean, /\{"level":/, 'no JSON lines on a terminal');
    } finally {
      child.kill('SIGTERM'); // script(1) ends; the server loses its terminal (SIGHUP) and exits
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    }
    // The server went with its terminal (SIGHUP): the pid in its lock is gone (the lock itself may
    // stay behind, stale: a signal death runs no exit handler; the next start takes it over).
    assert.ok(pid > 0, 'the server wrote its lock');
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 300 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    if (alive()) process.kill(pid, 'SIGKILL'); // never leave it running
    assert.equal(alive(), false, 'the server under the terminal stopped with it');
  });

  test('serve with stdout not a terminal logs JSON lines', async () => {
    const port = await freePort();
    const proc = start(['serve'], { DATA_DIR: await migratedDataDir(), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    try {
      await within(
        new Promise<void>((res) => {
          const check = () => /Health:\s+\S+/.test(proc.stdout()) && res();
          proc.child.stdout!.on('data', check);
          check();
        }),
        90_000,
        'serve start-up',
        proc,
      );
      await fetch(`http://127.0.0.1:${port}/health`);
      for (let i = 0; i < 50 && !/"request completed"/.test(proc.stdout()); i++) await new Promise((r) => setTimeout(r, 100));
      const lines = proc.stdout().split('\n').filter((l) => l.startsWith('{'));
      const done = lines.map((l) => JSON.parse(l)).find((o) => o.msg === 'request completed');
      assert.ok(done, proc.stdout());
      assert.equal(done.res.statusCode, 200);
    } finally {
      proc.child.kill('SIGKILL'); // (shutdown is tested above; its data dir is thrown away)
      await proc.exited;
    }
  });
});
