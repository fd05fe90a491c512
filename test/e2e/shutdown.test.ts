// Stopping as process managers and a load balancer's drain expect (docs/operations.md): on SIGTERM
// readiness fails at once, the listener closes after SHUTDOWN_DRAIN_MS, a request in flight still
// gets its answer, and the process exits by itself within SHUTDOWN_TIMEOUT_MS whatever is pending.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { freePort, onPostgres } from '../helpers.ts';
import { skippedWith } from './browser.ts';
import { cleanUp, migratedDataDir, type Proc, serve, start, within } from './cli-kit.ts';

const { after, before, describe, test } = skippedWith(onPostgres && 'always the embedded database (TEST_DATABASE_URL is not passed on): run on the PGlite pass only');
after(cleanUp);

/** A login whose body is sent in two halves: the request is in flight until `finish` is called. */
function slowLogin(port: number) {
  const body = JSON.stringify({ email: 'ninguem@cofre.example', password: 'nao-e-esta-123' });
  const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/auth/login', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
  const answered = new Promise<number>((res, rej) => {
    req.on('response', (r) => {
      r.resume();
      res(r.statusCode ?? 0);
    });
    req.on('error', rej);
  });
  req.write(body.slice(0, 10));
  return { answered, finish: () => req.end(body.slice(10)) };
}

const refused = (port: number) =>
  new Promise<boolean>((res) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), res(false)));
    s.once('error', () => res(true));
  });

async function until(what: string, check: () => Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once the server has read the login's headers (its "incoming request" log line, LOG_LEVEL info): the request is in flight. */
const loginInFlight = (server: Proc) =>
  until('the login in flight', async () => server.stdout().split('\n').some((l) => l.includes('"incoming request"') && l.includes('/api/auth/login')), 30_000);

const exited = (proc: Proc, ms: number) => within(proc.exited, ms, 'exit after SIGTERM', proc);

describe('SIGTERM', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await migratedDataDir();
  });

  test('serve: /ready fails while draining, the listener closes, the request in flight is answered, exit 0', async () => {
    const port = await freePort();
    const server = await serve(dataDir, port, { SHUTDOWN_DRAIN_MS: '1500', LOG_LEVEL: 'info' });
    assert.equal((await fetch(`http://127.0.0.1:${port}/ready`)).status, 200);
    const login = slowLogin(port);
    await loginInFlight(server);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    await until('readiness failing', async () => (await fetch(`http://127.0.0.1:${port}/ready`, { headers: { connection: 'close' } })).status === 503);
    const health = await fetch(`http://127.0.0.1:${port}/health`, { headers: { connection: 'close' } });
    assert.equal(health.status, 200, 'alive while draining: only readiness fails');
    await until('listener closed', () => refused(port));
    assert.ok(Date.now() - signalled >= 1400, 'the listener stayed open for SHUTDOWN_DRAIN_MS');
    login.finish();
    assert.equal(await login.answered, 401, 'the request in flight got its real answer');
    const { code, signal } = await exited(server, 15_000);
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, server.stderr());
  });

  test('serve: a request that never ends does not keep a stopped process alive (SHUTDOWN_TIMEOUT_MS, exit 1)', async () => {
    const port = await freePort();
    const server = await serve(dataDir, port, { SHUTDOWN_TIMEOUT_MS: '2000', LOG_LEVEL: 'info' });
    const login = slowLogin(port);
    login.answered.catch(() => {}); // its connection dies with the process
    await loginInFlight(server);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const { code } = await exited(server, 15_000);
    assert.equal(code, 1);
    assert.ok(Date.now() - signalled >= 1900, 'waited for the request until the deadline');
    assert.match(server.stdout(), /shutdown did not finish in time/);
  });

  test('worker: stops claiming and exits 0; a second signal stops a stuck stop at once', async () => {
    const worker = start(['worker'], { DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    await within(until('worker started', async () => /worker started/.test(worker.stdout()), 60_000), 65_000, 'worker start', worker);
    worker.child.kill('SIGTERM');
    const { code, signal } = await exited(worker, 15_000);
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, worker.stderr());

    const port = await freePort();
    const server = await serve(dataDir, port, { SHUTDOWN_DRAIN_MS: '20000', SHUTDOWN_TIMEOUT_MS: '30000' });
    server.child.kill('SIGTERM');
    await until('readiness failing', async () => (await fetch(`http://127.0.0.1:${port}/ready`, { headers: { connection: 'close' } })).status === 503);
    server.child.kill('SIGINT');
    const second = await exited(server, 5_000);
    assert.equal(second.code, 1, 'the second signal ends the drain');
  });
});
