// The merchant dashboard (web/dashboard, a Vite + Preact single-page app) served at /dashboard:
// hashed assets under /dashboard/assets are immutable for a year; every other path under
// /dashboard is a client route and gets index.html (never cached: a deploy takes effect at once).
// The app talks to the public API only. The build is web/dashboard/dist (npm's `prepare` makes it;
// docs/dashboard.md); without it the page says how to build it.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import type { HttpApp } from '../http/app-type.ts';

export const DASHBOARD_DIST = fileURLToPath(new URL('../../web/dashboard/dist/', import.meta.url));

/** Scripts, styles and connections from this origin only; images also as data: URLs (QR codes); not framable. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; manifest-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};
const ASSET_NAME = /^[A-Za-z0-9._-]{1,200}$/;

const NOT_BUILT = `<!doctype html><html lang="pt-BR"><meta charset="utf-8"><title>Painel não compilado — Cofre</title>
<h1>O painel ainda não foi compilado</h1><p>Rode <code>npm run build:dashboard</code> (o <code>npm install</code> faz isso) e recarregue a página.</p></html>`;

export default async function dashboardRoutes(app: HttpApp) {
  const assets = new Map<string, Buffer>();
  let index: { mtimeMs: number; html: Buffer; etag: string } | null = null;

  function readIndex() {
    const file = join(DASHBOARD_DIST, 'index.html');
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      return null;
    }
    if (!index || index.mtimeMs !== mtimeMs) {
      const html = readFileSync(file);
      index = { mtimeMs, html, etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 22)}"` };
    }
    return index;
  }

  function sendIndex(ifNoneMatch: string | undefined, reply: FastifyReply) {
    reply.header('Content-Security-Policy', DASHBOARD_CSP).header('Cache-Control', 'no-cache').header('X-Frame-Options', 'DENY');
    const found = readIndex();
    if (!found) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT);
    reply.header('ETag', found.etag).type('text/html; charset=utf-8');
    if (ifNoneMatch === found.etag) return reply.code(304).send();
    return reply.send(found.html);
  }

  app.get('/dashboard/assets/:file', { schema: { hide: true } }, async (req, reply) => {
    const { file } = req.params as { file: string };
    let body = assets.get(file);
    if (!body && ASSET_NAME.test(file) && !file.startsWith('.')) {
      try {
        body = readFileSync(join(DASHBOARD_DIST, 'assets', file));
        assets.set(file, body);
      } catch {
        /* not found below */
      }
    }
    if (!body) return reply.code(404).header('Cache-Control', 'no-cache').send({ message: 'Asset not found' });
    return reply
      .type(TYPES[extname(file)] ?? 'application/octet-stream')
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('Vary', 'Accept-Encoding')
      .send(body);
  });
  // The invite link the referral API hands out (REFERRAL_SIGNUP_URL, default BASE_URL/cadastro?ref=CODE)
  // opens the dashboard's sign-up with the code filled in.
  app.get('/cadastro', { schema: { hide: true } }, async (req, reply) => {
    const i = req.url.indexOf('?');
    return reply.redirect(`/dashboard/cadastro${i >= 0 ? req.url.slice(i) : ''}`, 302);
  });
  app.get('/dashboard', { schema: { hide: true } }, async (req, reply) => sendIndex(req.headers['if-none-match'], reply));
  app.get('/dashboard/*', { schema: { hide: true } }, async (req, reply) => sendIndex(req.headers['if-none-match'], reply));
}
