// A merchant's image host for test/media.test.ts: a loopback https server with a certificate made at
// test time (trusted by the gateway through WEBHOOK_CA_FILE, as the webhook receiver's), and the same
// answers over plain http. Real images (test/fixtures/media, made with netpbm and cwebp from one
// 32x32 drawing) and every way an answer can be wrong; each request is counted by path.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeCertificate } from './webhook-receiver.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/media/${name}`, import.meta.url));

export const IMAGES = {
  png: fixture('logo.png'),
  jpeg: fixture('logo.jpg'),
  webp: fixture('logo.webp'),
  gif: fixture('logo.gif'),
};

export const SVG = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script><rect width="10" height="10"/></svg>');
export const HTML_PAGE = Buffer.from('<!DOCTYPE html>\n<html><head><title>Minha loja</title></head><body><img src="logo.png"></body></html>');
/** 3 MiB that start as a PNG: refused for the size, not the type. */
export const BIG = Buffer.concat([IMAGES.png.subarray(0, 16), randomBytes(3 * 1024 * 1024)]);

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const send =
  (body: Buffer, type: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': type, 'content-length': body.length });
    res.end(body);
  };

/** Every path the host answers; each test imports from its own path so "fetched once" counts stay apart. */
function routes(port: () => number): Record<string, Handler> {
  const r: Record<string, Handler> = {
    '/logo.png': send(IMAGES.png, 'image/png'),
    '/logo.jpg': send(IMAGES.jpeg, 'image/jpeg'),
    '/logo.webp': send(IMAGES.webp, 'image/webp'),
    '/logo.gif': send(IMAGES.gif, 'image/gif'),
    // What the server calls it does not matter: the bytes do.
    '/called-text.png': send(IMAGES.png, 'text/plain'),
    '/called-png.svg': send(SVG, 'image/png'),
    '/icon.svg': send(SVG, 'image/svg+xml'),
    '/page.html': send(HTML_PAGE, 'text/html; charset=utf-8'),
    '/big.png': send(BIG, 'image/png'),
    '/big-streamed.png': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }); // chunked: no length to refuse up front
      let at = 0;
      const more = () => {
        while (at < BIG.length) {
          const chunk = BIG.subarray(at, at + 64 * 1024);
          at += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('error', () => {});
      more();
    },
    '/slow.png': (req, res) => {
      // The answer starts at once and then trickles: only a deadline on the whole fetch stops it.
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(IMAGES.png.subarray(0, 16));
      const drip = setInterval(() => res.write(Buffer.from([0])), 200);
      req.socket.on('close', () => clearInterval(drip));
    },
    '/redirect.png': (_req, res) => {
      res.writeHead(302, { location: `https://127.0.0.1:${port()}/redirect-target.png` });
      res.end();
    },
    '/redirect-target.png': send(IMAGES.png, 'image/png'),
    '/missing.png': (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    },
  };
  // Fresh paths serving the PNG, for tests that count requests or need an address not imported yet.
  for (const name of ['once', 'twice', 'untrusted', 'plain', 'concurrent', 'guarded']) r[`/${name}.png`] = send(IMAGES.png, 'image/png');
  return r;
}

export interface ImageHost {
  certFile: string;
  /** https://localhost:<port><path> (the certificate's name). */
  url(path: string): string;
  /** http://localhost:<port><path>, the same answers without TLS. */
  plainUrl(path: string): string;
  httpsPort: number;
  /** Requests so far to a path, over either server. */
  count(path: string): number;
  total(): number;
  close(): Promise<void>;
}

export async function startImageHost(): Promise<ImageHost> {
  const { dir, certFile, keyFile } = makeCertificate();
  const counts = new Map<string, number>();
  let httpsPort = 0;
  const table = routes(() => httpsPort);
  const handler: Handler = (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const route = table[path];
    if (route) return route(req, res);
    res.writeHead(404).end();
  };
  const secure = https.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, handler);
  const plain = http.createServer(handler);
  await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  httpsPort = (secure.address() as AddressInfo).port;
  const httpPort = (plain.address() as AddressInfo).port;
  return {
    certFile,
    httpsPort,
    url: (path) => `https://localhost:${httpsPort}${path}`,
    plainUrl: (path) => `http://localhost:${httpPort}${path}`,
    count: (path) => counts.get(path) ?? 0,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    async close() {
      for (const s of [secure, plain]) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
