// The hook contract (src/modules/transactions/hooks.ts): every hook deps.ts wires runs inside the
// status change's database transaction and does database work only. Each hook is watched while a
// sale is paid, refunded and expired, and a bank's boleto gets its numbers; any network or file access
// made from inside one fails the test.
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import dns from 'node:dns';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { recordBoleto } from '../src/modules/transactions/boleto-issued.ts';
import { call, cpf, merchant, onPostgres, startApp, type TestContext } from './helpers.ts';

const inHook = new AsyncLocalStorage<string>();
const seen: string[] = [];
const ran = new Map<string, number>();
const restore: Array<() => void> = [];

/** Replaces `obj[key]` with a version that records a call made inside a hook, then does what it did. */
function watch(obj: object, key: string, what: string) {
  const target = obj as Record<string, unknown>;
  const real = target[key] as (...a: unknown[]) => unknown;
  target[key] = function (this: unknown, ...args: unknown[]) {
    const hook = inHook.getStore();
    if (hook) seen.push(`${hook} -> ${what}`);
    return real.apply(this, args);
  };
  restore.push(() => (target[key] = real));
}

let ctx: TestContext;
before(async () => {
  ctx = await startApp();
  ctx.app.deps.transactions.hooks.forEach((hook, i) => {
    for (const [name, fn] of Object.entries(hook)) {
      if (typeof fn !== 'function') continue;
      const label = `hook ${i}.${name}`;
      (hook as Record<string, unknown>)[name] = (...args: unknown[]) => {
        ran.set(label, (ran.get(label) ?? 0) + 1);
        return inHook.run(label, () => (fn as (...a: unknown[]) => unknown)(...args));
      };
    }
  });
  watch(globalThis, 'fetch', 'fetch');
  for (const [mod, name] of [[http, 'http'], [https, 'https']] as const) {
    watch(mod, 'request', `${name}.request`);
    watch(mod, 'get', `${name}.get`);
  }
  watch(net.Socket.prototype, 'connect', 'net connect');
  watch(dns, 'lookup', 'dns.lookup');
  watch(dns.promises, 'lookup', 'dns.promises.lookup');
  for (const f of ['readFile', 'writeFile', 'appendFile', 'open', 'rm', 'mkdir'] as const) watch(fs.promises, f, `fs.${f}`);
  for (const f of ['readFileSync', 'writeFileSync', 'appendFileSync', 'openSync'] as const) watch(fs, f, `fs.${f}`);
});
after(async () => {
  while (restore.length) restore.pop()!();
  await ctx.close();
});

test('no wired hook touches the network or files while payments are paid, refunded, charged back, failed and expired', { skip: onPostgres && 'the database connections of pg are sockets too: the contract is checked on the embedded database' }, async () => {
  // The watch itself sees a call made inside a hook (so an empty list below means something).
  await inHook.run('probe', () => new Promise((r) => dns.lookup('localhost', () => r(null))));
  assert.deepEqual(seen.splice(0), ['probe -> dns.lookup']);
  const m = await merchant(ctx.app);
  const body = (method: string, extra: object = {}) => ({ product: 'Curso', amountCents: 5000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: method, ...extra });
  const card = { number: '4242424242424242', holderName: 'ANA SOUZA', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvv: '123' };
  const pix = (await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: body('PIX') })).body.transaction;
  assert.equal((await call(ctx.app, 'POST', `/api/v1/transactions/${pix.id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } })).status, 200);
  assert.equal((await call(ctx.app, 'POST', `/api/v1/transactions/${pix.id}/refund`, { key: m.devKey, body: { amountCents: 1000 } })).status, 200);
  const paidCard = (await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: body('CARD', { card }) })).body.transaction;
  assert.equal(paidCard.status, 'PAID');
  // A chargeback won gives back what its opening took (restoredSplits).
  const sim = (outcome: string) => call(ctx.app, 'POST', `/api/v1/transactions/${paidCard.id}/simulate`, { key: m.devKey, body: { outcome } });
  assert.equal((await sim('CHARGEBACK')).status, 200);
  assert.equal((await call(ctx.app, 'POST', `/api/v1/transactions/${paidCard.id}/dispute`, { key: m.devKey, body: { action: 'CONTEST', text: 'Produto entregue e usado pelo cliente.' } })).status, 200);
  assert.equal((await sim('CHARGEBACK_WON')).status, 200);
  const declined = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: body('CARD', { card: { ...card, number: '4000000000000002' } }) });
  assert.equal(declined.body.transaction.status, 'FAILED');
  // A boleto its bank registers later gets its numbers through recordBoleto (boletoIssued): the
  // sandbox issues at once, so its numbers are taken off and recorded again as a bank's sweep would.
  const late = (await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: body('BOLETO') })).body.transaction;
  const db = ctx.app.deps.db;
  const numbers = await db.selectFrom('transactions').select(['boleto_barcode', 'boleto_line']).where('id', '=', late.id).executeTakeFirstOrThrow();
  await db.updateTable('transactions').set({ boleto_barcode: null, boleto_line: null }).where('id', '=', late.id).execute();
  assert.ok(await recordBoleto(ctx.app.deps.transactions, 'sandbox', late.id, 'bank-ref', { barcode: numbers.boleto_barcode!, digitableLine: numbers.boleto_line!, pixCode: null }));
  const boleto = (await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: body('BOLETO') })).body.transaction;
  assert.equal((await call(ctx.app, 'POST', `/api/v1/transactions/${boleto.id}/simulate`, { key: m.devKey, body: { outcome: 'EXPIRED' } })).status, 200);

  const wired = ctx.app.deps.transactions.hooks.flatMap((hook, i) => Object.keys(hook).map((name) => `hook ${i}.${name}`));
  const silent = wired.filter((h) => !ran.has(h) && !/refund|beforePaid/.test(h));
  assert.deepEqual(silent, [], 'every hook that a sale reaches ran');
  assert.ok([...ran.keys()].some((h) => h.endsWith('refundSplits')) && [...ran.keys()].some((h) => h.endsWith('beforePaid')), [...ran.keys()].join());
  assert.deepEqual(seen, []);
});
