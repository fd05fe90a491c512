// HAProxy in front of the API processes: health checks on /ready (a draining process answers 503
// and leaves rotation within about a second), retries only where they cannot run a request twice,
// and a runtime socket through which the rehearsal takes a server out and back.
import { writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { startDetached, waitPort } from './procs.ts';

export interface HaproxyOptions {
  dir: string;
  port: number;
  statsPort: number;
  /** The API processes' ports, named api1, api2, ... */
  apiPorts: readonly number[];
}

export const haproxySocket = (dir: string) => join(dir, 'haproxy.sock');

export function haproxyConfig(o: HaproxyOptions): string {
  return [
    'global',
    `  stats socket ${haproxySocket(o.dir)} mode 600 level admin`,
    '  maxconn 2000',
    'defaults',
    '  mode http',
    '  option httplog',
    // The client's address for the gateway's per-IP limits (TRUST_PROXY=true on the API processes).
    '  option forwardfor',
    '  log stdout format raw local0',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout http-request 10s',
    // A refused connection (a process killed, or not started yet) is tried again, on another server.
    '  retries 3',
    '  option redispatch 1',
    // conn-failure: nothing reached the server, so any request may go again. empty-response (the
    // server closed without answering, e.g. killed mid-request) may have run it: only for reads.
    '  retry-on conn-failure empty-response',
    'frontend api',
    `  bind 127.0.0.1:${o.port}`,
    '  default_backend apis',
    'backend apis',
    '  balance roundrobin',
    '  http-request disable-l7-retry if !METH_GET',
    '  option httpchk GET /ready',
    '  http-check expect status 200',
    // Checked every 500 ms: a draining server (503) is out after 2 failures, back after 2 successes.
    '  default-server inter 500ms fastinter 250ms downinter 1s fall 2 rise 2',
    ...o.apiPorts.map((p, i) => `  server api${i + 1} 127.0.0.1:${p} check`),
    'listen stats',
    `  bind 127.0.0.1:${o.statsPort}`,
    '  stats enable',
    '  stats uri /',
    '  stats refresh 2s',
    '',
  ].join('\n');
}

export async function startHaproxy(o: HaproxyOptions): Promise<number> {
  const cfg = join(o.dir, 'haproxy.cfg');
  writeFileSync(cfg, haproxyConfig(o));
  const pid = startDetached(o.dir, 'haproxy', process.env.HAPROXY_BIN ?? '/usr/sbin/haproxy', ['-db', '-f', cfg]);
  await waitPort(o.port, 'HAProxy');
  return pid;
}

/** One command on HAProxy's runtime API (e.g. "disable server apis/api2"); resolves with its answer. */
export function haproxyCommand(dir: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = createConnection(haproxySocket(dir));
    let out = '';
    s.on('connect', () => s.write(command + '\n'));
    s.on('data', (d) => (out += d));
    s.on('end', () => resolve(out.trim()));
    s.on('error', reject);
  });
}
