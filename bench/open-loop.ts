// An open-loop load: requests sent on a fixed schedule (one every 1/rate s), whatever the server
// answers, each one's latency counted from the moment it was due, not from when it could be sent.
//
// autocannon's `overallRate` is not this: each connection may send `rate / connections` requests
// per second, sent back to back as soon as the second starts, then waits for the next second (its
// httpClient resets a per-second counter on a 1 s interval). At 1,000/s over 50 connections that is
// a burst of 50 concurrent requests repeated 20 times in the first fraction of each second and then
// silence: a closed-loop saturation test for part of every second, whose latencies are those of a
// saturated server. A steady stream is what a "fixed rate" means (issue 17's open loop).
//
// Up to `connections` keep-alive sockets (node:http's Agent); a request due while all of them are
// busy waits for one, and that wait is part of its latency.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { spread } from './stats.ts';

export interface OpenLoopOptions {
  url: string;
  /** Requests per second. */
  rate: number;
  seconds: number;
  connections: number;
  /** The next request: method, path, headers and body. */
  request(): { method: string; path: string; headers: Record<string, string>; body?: string };
}

export interface OpenLoopResult {
  seconds: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** 2xx latencies in ms, from each request's due time to the end of its response. */
  latencies: number[];
  /** The client's own share, to tell its stalls from the server's: how late each request was sent
   *  after its due time (ms), and how many sockets were opened (more than `connections` only if the
   *  server closed some). */
  client: { sentLateP99: number; sentLateMax: number; socketsOpened: number };
}

const TIMEOUT_MS = 30_000;

export function openLoop(opts: OpenLoopOptions): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections });
  const { hostname, port } = new URL(opts.url);
  const total = Math.round(opts.rate * opts.seconds);
  const interval = 1000 / opts.rate;
  const result: OpenLoopResult = { seconds: opts.seconds, ok: 0, non2xx: 0, errors: 0, timeouts: 0, statusCodes: {}, latencies: [], client: { sentLateP99: 0, sentLateMax: 0, socketsOpened: 0 } };
  const sentLate: number[] = [];
  const sockets = new WeakSet<object>();
  let due = 0; // requests scheduled so far
  let done = 0;
  const start = performance.now();

  return new Promise((resolve) => {
    const finish = () => {
      if (++done < total) return;
      agent.destroy();
      result.seconds = (performance.now() - start) / 1000;
      const late = spread(sentLate);
      result.client.sentLateP99 = late.p99;
      result.client.sentLateMax = late.max;
      resolve(result);
    };
    const send = (dueAt: number) => {
      sentLate.push(performance.now() - dueAt);
      const r = opts.request();
      const req = http.request({ agent, hostname, port, method: r.method, path: r.path, headers: r.headers, timeout: TIMEOUT_MS }, (res) => {
        res.resume();
        res.on('end', () => {
          const code = res.statusCode ?? 0;
          result.statusCodes[code] = (result.statusCodes[code] ?? 0) + 1;
          if (code >= 200 && code < 300) {
            result.ok++;
            result.latencies.push(performance.now() - dueAt);
          } else result.non2xx++;
          finish();
        });
      });
      req.on('socket', (socket) => {
        if (sockets.has(socket)) return;
        sockets.add(socket);
        result.client.socketsOpened++;
      });
      let timedOut = false;
      req.on('timeout', () => {
        timedOut = true;
        result.timeouts++;
        req.destroy(new Error('timeout'));
      });
      req.on('error', () => {
        if (!timedOut) result.errors++;
        finish();
      });
      req.end(r.body);
    };
    // Every request whose time has come is sent; then wait for the next one's time (timers have a
    // 1 ms grain: a request sent late by the timer still counts its latency from its due time).
    const tick = () => {
      const now = performance.now();
      while (due < total && start + due * interval <= now) send(start + due++ * interval);
      if (due < total) setTimeout(tick, Math.max(0, start + due * interval - performance.now()));
    };
    tick();
  });
}
