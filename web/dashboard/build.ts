// Builds the dashboard into web/dashboard/dist when its sources changed since the last build
// (a hash of the sources, the Vite config and the lockfile is kept in dist/.source-hash).
// Run by npm's `prepare` (so `npm install` and `npm ci` build it: no extra step), by
// `npm run build:dashboard` (`--force` rebuilds anyway) and by the browser tests before they start.
// Concurrent runs are safe: each builds into its own directory and swaps it in with renames.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DASHBOARD_DIR = fileURLToPath(new URL('.', import.meta.url));
export const DIST_DIR = join(DASHBOARD_DIR, 'dist');
const HASH_FILE = '.source-hash';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p) : [p];
  });
}

/** A hash of everything the build reads: sources, index.html, the config, the locked dependency versions. */
export function sourceHash(): string {
  const h = createHash('sha256');
  const inputs = [...files(join(DASHBOARD_DIR, 'src')), join(DASHBOARD_DIR, 'index.html'), join(DASHBOARD_DIR, 'vite.config.ts'), join(DASHBOARD_DIR, '..', '..', 'package-lock.json')].sort();
  for (const f of inputs) h.update(relative(DASHBOARD_DIR, f)).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex');
}

export function isBuilt(): boolean {
  const stamp = join(DIST_DIR, HASH_FILE);
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === sourceHash();
}

/** Builds unless dist is up to date (or `force`). Returns true when it built. */
export async function buildDashboard(opts: { force?: boolean } = {}): Promise<boolean> {
  if (!opts.force && isBuilt()) return false;
  const hash = sourceHash();
  const { build } = await import('vite');
  const { dashboardConfig } = await import('./vite.config.ts');
  const tmp = join(DASHBOARD_DIR, `.dist-${process.pid}-${Date.now()}`);
  try {
    await build(dashboardConfig(tmp));
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(tmp, HASH_FILE), hash);
    const old = join(DASHBOARD_DIR, `.dist-old-${process.pid}-${Date.now()}`);
    if (existsSync(DIST_DIR)) renameSync(DIST_DIR, old);
    try {
      renameSync(tmp, DIST_DIR);
    } catch (err) {
      // Another build swapped its own in meanwhile: it is as good as ours.
      if (!existsSync(DIST_DIR) || !statSync(DIST_DIR).isDirectory()) throw err;
    }
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const built = await buildDashboard({ force: process.argv.includes('--force') });
  console.log(built ? `dashboard built in ${Date.now() - started} ms (web/dashboard/dist)` : 'dashboard up to date (web/dashboard/dist)');
}
