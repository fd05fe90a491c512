// A real local HTTPS webhook receiver for tests: a self-signed certificate made at test time with
// openssl (trusted by the gateway through WEBHOOK_CA_FILE), every request recorded with its raw
// bytes, and per-path behaviour (status, delay).
import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  at: number;
}

/** What a path answers: a status, optionally after a delay; `n` counts requests to that path from 1. */
export type Behaviour = (req: Received, n: number) => number | { status: number; delayMs?: number; headers?: Record<string, string> };

export interface Receiver {
  port: number;
  certFile: string;
  /** https://localhost:<port><path> (the certificate's name). */
  url(path: string): string;
  requests: Received[];
  at(path: string): Received[];
  on(path: string, behaviour: Behaviour): void;
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Makes a key and self-signed certificate for localhost / 127.0.0.1 / ::1 in a temp dir. */
export function makeCertificate(): { dir: string; certFile: string; keyFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cofre-wh-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1', '-days', '1'],
    { stdio: 'ignore' },
  );
  return { dir, certFile, keyFile };
}

export async function startReceiver(): Promise<Receiver> {
  const { dir, certFile, keyFile } = makeCertificate();
  const requests: Received[] = [];
  const behaviours = new Map<string, Behaviour>();
  const counts = new Map<string, number>();
  const waiters = new Set<() => void>();
  const server = https.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: any = null;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        /* keep null */
      }
      const path = (req.url ?? '/').split('?')[0];
      const r: Received = { path, headers: req.headers, raw, body, at: Date.now() };
      requests.push(r);
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      for (const w of waiters) w();
      const b = behaviours.get(path);
      const out = b ? b(r, n) : 200;
      const { status, delayMs = 0, headers = {} } = typeof out === 'number' ? { status: out } : out;
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'text/plain', ...headers });
        res.end(status < 300 ? 'ok' : 'no');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    certFile,
    url: (path) => `https://localhost:${port}${path}`,
    requests,
    at: (path) => requests.filter((r) => r.path === path),
    on: (path, behaviour) => void behaviours.set(path, behaviour),
    waitFor(path, count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const got = requests.filter((r) => r.path === path);
          if (got.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(got);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: expected ${count} request(s) at ${path} within ${timeoutMs} ms, got ${requests.filter((r) => r.path === path).length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Independent signature check: HMAC-SHA256 over the raw received bytes, compared in constant time. */
export function validSignature(r: Received, secret: string): boolean {
  const header = String(r.headers['x-webhook-signature'] ?? '');
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(r.raw).digest('hex'));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
