// Readable logs on a terminal: the formatter turns pino's JSON lines into one line per request.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { ReadableLogFormatter, terminalLogStream } from '../src/http/log-format.ts';
import { startApp } from './helpers.ts';

describe('readable log lines', () => {
  test('one line per request: method, path, status, time and request id, from the two JSON lines', () => {
    const f = new ReadableLogFormatter({ color: false });
    const id = '01a2044c-03db-70e5-82ed-4e4f6faf1ab1';
    const t = Date.UTC(2026, 10, 22, 14, 3, 9, 120);
    assert.equal(f.format(JSON.stringify({ level: 30, time: t, pid: 1, hostname: 'h', reqId: id, req: { method: 'POST', path: '/api/v1/transactions', requestId: id }, msg: 'incoming request' })), '');
    const line = f.format(JSON.stringify({ level: 30, time: t + 12, pid: 1, hostname: 'h', reqId: id, res: { statusCode: 201 }, responseTime: 12.4, msg: 'request completed' }));
    assert.equal(line, `14:03:09.132 INFO  POST /api/v1/transactions 201 12 ms  req=${id}\n`);
  });

  test('other lines keep their fields (redacted values stay redacted) and errors their stack; non-JSON passes through', () => {
    const f = new ReadableLogFormatter({ color: false });
    const warn = f.format(JSON.stringify({ level: 40, time: 0, pid: 1, hostname: 'h', subscriptionId: 's1', headers: { authorization: '[redacted]' }, msg: 'webhooks: subscription disabled' }));
    assert.equal(warn, '00:00:00.000 WARN  webhooks: subscription disabled  subscriptionId=s1 headers={"authorization":"[redacted]"}\n');
    const err = f.format(JSON.stringify({ level: 50, time: 0, err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:1)' }, msg: 'unhandled error' }));
    assert.match(err, /^00:00:00\.000 ERROR unhandled error\n {4}Error: boom\n {8}at x/);
    assert.equal(f.format('plain text'), 'plain text\n');
  });

  test('the app\'s own log lines, through the terminal stream: readable, one per request; no terminal, no stream (JSON)', async () => {
    assert.equal(terminalLogStream({ isTTY: false } as NodeJS.WriteStream), undefined);
    const tty = new PassThrough() as PassThrough & { isTTY: boolean };
    tty.isTTY = true;
    let out = '';
    tty.on('data', (d) => (out += d));
    const stream = terminalLogStream(tty as unknown as NodeJS.WriteStream);
    assert.ok(stream);

    const ctx = await startApp({ env: { LOG_LEVEL: 'info' } });
    try {
      await ctx.app.inject({ method: 'GET', url: '/health?secret=x' });
    } finally {
      await ctx.close();
    }
    const json = ctx.logs.join('');
    assert.match(json, /"msg":"request completed"/, 'pino wrote JSON lines');
    // Written in arbitrary chunks, as a stream receives them.
    for (let i = 0; i < json.length; i += 97) stream.write(json.slice(i, i + 97));
    await new Promise((r) => stream.end(r));
    assert.match(out, /^\d\d:\d\d:\d\d\.\d{3} INFO {2}GET \/health 200 [\d.]+ ms {2}req=[0-9a-f-]{36}$/m);
    assert.equal(out.match(/GET \/health/g)?.length, 1, 'one line per request');
    assert.doesNotMatch(out, /"level"/);
    assert.doesNotMatch(out, /secret=x/, 'the query string stays out');
  });
});
