// Swagger UI at /docs with Cofre's name: page title, logo (linking to /dashboard), a link back to
// the dashboard, and a Content-Security-Policy that lets the page work wherever it is opened.
import { readFileSync } from 'node:fs';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="180" height="40" viewBox="0 0 180 40" role="img" aria-label="Cofre">
<rect x="2" y="6" width="28" height="28" rx="6" fill="#0f766e"/><circle cx="16" cy="20" r="7" fill="none" stroke="#fff" stroke-width="3"/><rect x="15" y="12" width="2" height="5" fill="#fff"/>
<text x="40" y="28" font-family="Helvetica, Arial, sans-serif" font-size="22" font-weight="700" fill="#fff">Cofre</text>
<text x="108" y="28" font-family="Helvetica, Arial, sans-serif" font-size="14" fill="#cbd5e1">API</text></svg>`;

const CSS = `.swagger-ui .topbar { background: #0f172a; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
.swagger-ui .topbar-wrapper { gap: 1.5rem; }
.cofre-back { color: #fff; font-family: sans-serif; font-size: 15px; text-decoration: underline; white-space: nowrap; }
.cofre-back:focus { outline: 2px solid #5eead4; outline-offset: 2px; }`;

/**
 * Swagger UI's own static policy, adjusted: no third-party hosts (the online validator is off, fonts
 * and styles are local), requests to the API's base URL allowed (Try it out calls BASE_URL, which
 * may be another origin than the one the page was opened at, e.g. localhost vs 127.0.0.1), and
 * upgrade-insecure-requests only when the API itself is served over HTTPS (over plain HTTP on a
 * host other than localhost it made the browser fetch every script and style over HTTPS, and fail),
 * and inline styles allowed (Chromium's console error "Applying inline style violates ...
 * style-src" when an operation was opened).
 */
export function docsCsp(header: string, baseUrl: string): string {
  const origin = new URL(baseUrl).origin;
  let csp = header
    .replace(/\s*validator\.swagger\.io/g, '')
    .replace(/(font-src|style-src) 'self' https:/g, "$1 'self'")
    .replace(/frame-ancestors 'self'/, "frame-ancestors 'none'")
    .replace(/\s*upgrade-insecure-requests;?/, '');
  // Swagger UI adds style elements as it renders (an opened operation): inline styles are allowed on
  // this page (CSS, not script: scripts stay limited to the page's own files and hashes).
  csp = csp.replace(/style-src 'self'/, "style-src 'self' 'unsafe-inline'");
  csp = `${csp.trim().replace(/;?$/, ';')} connect-src 'self' ${origin}; form-action 'self';`;
  if (baseUrl.startsWith('https://')) csp += ' upgrade-insecure-requests;';
  return csp;
}

export function docsUiOptions(baseUrl: string): FastifySwaggerUiOptions {
  return {
    routePrefix: '/docs',
    staticCSP: true,
    transformStaticCSP: (header) => docsCsp(header, baseUrl),
    uiConfig: { validatorUrl: null, deepLinking: true, docExpansion: 'none' },
    logo: { type: 'image/svg+xml', content: LOGO, href: '/dashboard' },
    theme: {
      title: 'Cofre — documentação da API',
      css: [{ filename: 'cofre.css', content: CSS }],
      js: [{ filename: 'cofre.js', content: readFileSync(new URL('./assets/docs.js', import.meta.url), 'utf8') }],
    },
  };
}
