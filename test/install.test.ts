// `npm install` on the system Node (20 is fine, README) prints no EBADENGINE warning, while the
// project runs on its own Node 24 (the `node` devDependency). Checked with the system's npm in
// dry-run, offline, from the lockfile: the same engine checks as a real install, no network.
// Skips when no Node older than 22 is on the PATH (the warning cannot happen there).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A Node binary older than 22 on the PATH outside node_modules, with the npm that came with it. */
function systemNode(): { node: string; npmCli: string; version: string } | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || dir.includes('node_modules')) continue;
    const node = join(dir, 'node');
    if (!existsSync(node)) continue;
    const version = execFileSync(node, ['-v'], { encoding: 'utf8' }).trim();
    if (Number(version.slice(1).split('.')[0]) >= 22) continue;
    const prefix = dirname(dirname(node));
    for (const npmCli of [join(prefix, 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'), join(dir, 'node_modules', 'npm', 'bin', 'npm-cli.js')]) {
      if (existsSync(npmCli)) return { node, npmCli, version };
    }
  }
  return null;
}

const sys = systemNode();

test('npm ci on the system Node prints no EBADENGINE warning; the runtime stays Node >= 22.12', { skip: !sys && 'no Node older than 22 on the PATH' }, () => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('npm_')) delete env[k]; // not the settings of the npm running this test
  const run = spawnSync(sys!.node, [sys!.npmCli, 'ci', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
  const output = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.status, 0, `npm ci --dry-run on ${sys!.version} failed:\n${output}`);
  assert.doesNotMatch(output, /EBADENGINE|Unsupported engine/, `on ${sys!.version}:\n${output}`);
  // The runtime requirement is unchanged, and this test itself runs on it (npm test puts Node 24 first).
  assert.equal(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node, '>=22.12');
  assert.ok(Number(process.versions.node.split('.')[0]) >= 22, `tests run on Node ${process.versions.node}`);
});
