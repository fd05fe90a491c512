// Vite configuration of the merchant dashboard (docs/dashboard.md). Built by build.ts (run by npm's
// `prepare`, so `npm install` / `npm ci` build it), served by Fastify at /dashboard (src/web/dashboard.ts).
import { fileURLToPath } from 'node:url';
import type { InlineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export function dashboardConfig(outDir: string): InlineConfig {
  return {
    root,
    base: '/dashboard/',
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir,
      emptyOutDir: true,
      assetsDir: 'assets',
      // No inline script: the page's CSP allows scripts from 'self' only.
      modulePreload: { polyfill: false },
      target: 'es2022',
      sourcemap: false,
      reportCompressedSize: false,
      chunkSizeWarningLimit: 200,
    },
    server: { proxy: { '/api': 'http://127.0.0.1:3000', '/pix': 'http://127.0.0.1:3000' } },
  };
}

export default dashboardConfig(fileURLToPath(new URL('./dist', import.meta.url)));
