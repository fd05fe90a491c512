// The README's "Five minutes with curl", run as written (bash, curl, jq) against a real server, twice:
// the second run logs in instead of registering, and every step answers something (never `null`);
// then docs/sandbox.md's card payment and refunds and docs/splits.md's marketplace, as written.
// Skips when bash, curl or jq is missing.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { freePort, onPostgres } from '../helpers.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const missing = ['bash', 'curl', 'jq'].filter((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status !== 0);
// The server here runs on the embedded database whatever TEST_DATABASE_URL says (it is started
// without it, as the README starts it): the PostgreSQL pass would repeat the PGlite one.
const skip = onPostgres ? 'always the embedded database (TEST_DATABASE_URL is not passed on): run on the PGlite pass only' : missing.length > 0 && `missing: ${missing.join(', ')}`;

let server: ChildProcess | undefined;
let dir: string | undefined;
after(() => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The sh block under a heading of a markdown file. */
function block(file: string, heading: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const at = text.indexOf(heading);
  assert.ok(at >= 0, `${file}: ${heading}`);
  const found = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  assert.ok(found, `${file}: the sh block under ${heading}`);
  return found[1];
}

function walkthrough(): string {
  return block('README.md', '## Five minutes with curl');
}

test('the README walkthrough works as written, and again on a second run', { skip }, async () => {
  dir = mkdtempSync(join(tmpdir(), 'cofre-readme-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['DATABASE_URL', 'TEST_DATABASE_URL', 'REDIS_URL', 'JWT_SECRET', 'NODE_OPTIONS', 'NODE_TEST_CONTEXT', 'BASE_URL', 'CHECKOUT_URL']) delete env[k];
  server = spawn(process.execPath, [join(ROOT, 'src', 'main.ts'), 'serve'], {
    cwd: ROOT,
    env: { ...env, DATA_DIR: join(dir, 'data'), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  server.stdout!.on('data', (d) => (out += d));
  server.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 90_000;
  while (!/Health:/.test(out)) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const script = walkthrough().replace('API=http://localhost:3000', `API=http://127.0.0.1:${port}`);
  const run = () => spawnSync('bash', ['-c', `set -u\n${script}`], { encoding: 'utf8', timeout: 60_000 });
  for (const [n, expectAvailable] of [
    [1, 7911],
    [2, 2 * 7911],
  ] as const) {
    const r = run();
    assert.equal(r.status, 0, `run ${n}: ${r.stderr}`);
    assert.match(r.stdout, /token: ey/, `run ${n}: a token (registered, then logged in)\n${r.stdout}`);
    assert.doesNotMatch(r.stdout, /^null$|: null/m, `run ${n}: no step answered null\n${r.stdout}`);
    assert.match(r.stdout, /^PAID$/m, `run ${n}\n${r.stdout}`);
    assert.match(r.stdout, /"feeCents": 79/, `run ${n}: the fee is shown\n${r.stdout}`);
    assert.match(r.stdout, new RegExp(`"availableCents": ${expectAvailable}\\b`), `run ${n}: the balance after the fee\n${r.stdout}`);
  }
  // docs/sandbox.md continues the walkthrough: a card payment and refunds, run as written.
  const more = spawnSync('bash', ['-c', `set -u\n${script}\n${block('docs/sandbox.md', '## A card payment')}\n${block('docs/sandbox.md', '## Refunds')}`], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(more.status, 0, more.stderr);
  const o = more.stdout;
  assert.match(o, /"status": "PAID",\s*"chargedCents": 8\d\d\d,/, `card in 3x, with interest\n${o}`);
  assert.match(o, /"brand": "visa"|"brand": "VISA"|"brand": "Visa"/i);
  assert.match(o, /"status": "FAILED",\s*"failureReason": "CARD_DECLINED"/, o);
  assert.match(o, /"status": "PARTIALLY_REFUNDED",\s*"amountCents": 7990,\s*"refundedCents": 1000/, o);
  assert.match(o, /"status": "REFUNDED",\s*"refundedCents": 7990/, o);
  // docs/sandbox.md's chargeback, docs/cards.md's saved card and one-click purchase, and sandbox.md's failed withdrawal, as written.
  const cards = spawnSync('bash', ['-c', `set -u\n${script}\n${block('docs/sandbox.md', '## Chargebacks')}\n${block('docs/cards.md', '# Saved cards')}\n${block('docs/sandbox.md', '## Payouts')}`], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(cards.status, 0, cards.stderr);
  assert.match(cards.stdout, /"status": "CHARGEBACK"/, cards.stdout);
  assert.match(cards.stdout, /"status": "CONTESTED",\s*"response": "CONTESTED"/, cards.stdout);
  assert.match(cards.stdout, /"status": "PAID",\s*"chargeback": "WON"/, cards.stdout);
  assert.match(cards.stdout, /"status": "PAID",\s*"card": \{/, `the one-click purchase\n${cards.stdout}`);
  assert.match(cards.stdout, /"status": "FAILED",\s*"failureCode": "DOCUMENT_MISMATCH",\s*"failureReason": "O CPF\/CNPJ/, `a withdrawal failed by simulate\n${cards.stdout}`);
  // docs/splits.md's marketplace: a seller's sale pays its platform, refunded in part, the seller's summary.
  const splits = spawnSync('bash', ['-c', `set -u\n${script}\n${block('docs/splits.md', '## A marketplace, step by step').replace('API=http://localhost:3000', `API=http://127.0.0.1:${port}`)}`], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(splits.status, 0, splits.stderr);
  const p = splits.stdout;
  assert.match(p, /"recipient": "Loja da Ana",\s*"amountCents": 990/, p);
  assert.match(p, /"seller": "Cerâmica da Carla",\s*"amountCents": 990/, p);
  assert.match(p, /"reversedCents": 495,\s*"status": "PARTIALLY_REVERSED"/, p);
  assert.match(p, /"percentageBp": 4500\s*\},\s*\{\s*"walletId": "[0-9a-f-]{36}",\s*"fixedCents": 8000/, p);
  assert.match(p, /"grossCents": 10000,\s*"refundedCents": 5000,\s*"feeCents": 50,\s*"splitCents": 495,\s*"netCents": 4455/, p);
  server.kill('SIGTERM');
  await new Promise((r) => server!.once('exit', r));
});
