// Shared rate limits (REDIS_URL) when Redis goes away: each process counts in its own memory at
// once, so the limits still hold and the API still answers (the rehearsal's Redis restart answered
// 500s), and nothing waits on the reconnections. A redis-server of the test's own is stopped.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { createLimiter, enforce } from '../src/http/ratelimit.ts';
import { freePort } from './helpers.ts';

const hasRedis = spawnSync('redis-server', ['--version']).status === 0;

test('Redis lost: hits are counted in the process at once, and the limit still refuses past max', { skip: !hasRedis && 'needs redis-server' }, async () => {
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const limiter = createLimiter(`redis://127.0.0.1:${port}`);
  try {
    assert.equal((await limiter.hit('login:1.2.3.4', 60_000)).count, 1, 'counted in Redis');
    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    await new Promise((r) => setTimeout(r, 100)); // the client notices the closed connection
    const started = Date.now();
    assert.equal((await limiter.hit('login:1.2.3.4', 60_000)).count, 1, 'counted in this process from now on');
    assert.equal((await limiter.peek('login:1.2.3.4')).count, 1);
    await limiter.release('login:1.2.3.4');
    assert.equal((await limiter.peek('login:1.2.3.4')).count, 0);
    await enforce(limiter, 'key', 60_000, 1, 'too many');
    await assert.rejects(enforce(limiter, 'key', 60_000, 1, 'too many'), (err: { status?: number }) => err.status === 429);
    await limiter.reset('key');
    await enforce(limiter, 'key', 60_000, 1, 'too many');
    assert.ok(Date.now() - started < 500, `no call waited on Redis: ${Date.now() - started} ms`);
  } finally {
    server.kill('SIGKILL');
    await limiter.close();
  }
});
