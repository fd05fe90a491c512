// The fake Inter itself, and the client against it: it refuses what Inter refuses (no client
// certificate, wrong credentials, a scope not granted, a charge breaking the rules, a missing
// account header), and the client reads what Inter answers (a token reused, a lost answer, 500s on
// reads retried, a charge issued late, the list by date, the PDF, a cancel twice).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { BoletoRefused } from '../../src/payments/boleto-issuing.ts';
import type { BoletoRequest } from '../../src/payments/connector.ts';
import { InterClient } from '../../src/payments/inter/client.ts';
import { startFakeInter, interEnv, type FakeInter } from './server.ts';

let inter: FakeInter;
let client: InterClient;
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const request = (extra: Partial<BoletoRequest> = {}): BoletoRequest => ({
  transactionId: crypto.randomUUID(),
  amountCents: 12_345,
  dueDate: tomorrow(),
  daysAfterDue: 5,
  payer: { name: 'Carla Dias', email: 'carla@example.com', document: '52998224725' },
  address: { street: 'Rua das Flores', number: '10', neighborhood: 'Centro', city: 'Curitiba', state: 'PR', zipCode: '80010000' },
  description: 'Curso de fotografia',
  ...extra,
});

before(async () => {
  inter = await startFakeInter();
  const config = loadConfig({ JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789', ...interEnv(inter) });
  client = new InterClient(config.inter!, { backoffMs: 1 });
});
after(async () => {
  client.close();
  await inter.close();
});

test('without the client certificate the fake answers 401; wrong credentials get no token', async () => {
  const status = await new Promise<number>((resolve) => {
    const req = https.request(`${inter.apiUrl}/cobranca/v3/cobrancas`, { ca: readFileSync(inter.caFile) }, (res) => resolve(res.statusCode ?? 0));
    req.on('error', () => resolve(0));
    req.end();
  });
  assert.ok(status === 401 || status === 0, `got ${status}`);
  const config = loadConfig({ JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789', ...interEnv(inter), INTER_CLIENT_SECRET: 'wrong' });
  const wrong = new InterClient(config.inter!);
  await assert.rejects(wrong.charge('x'), /token endpoint answered 401/);
  wrong.close();
});

test('a charge issued late: no numbers first, then a line that passes the check digits; one token for all calls', async () => {
  inter.behaviour.issueDelayMs = 100;
  const tokensBefore = inter.requests.filter((r) => r.path === '/oauth/v2/token' && r.status === 200).length;
  const ref = await client.issue(request());
  assert.equal((await client.charge(ref))?.state, 'ISSUING');
  await new Promise((r) => setTimeout(r, 120));
  const c = await client.charge(ref);
  assert.equal(c?.state, 'ISSUED');
  assert.equal(c?.numbers?.digitableLine.length, 47);
  inter.behaviour.issueDelayMs = 0;
  assert.ok(tokensBefore <= 1);
  assert.equal(inter.requests.filter((r) => r.path === '/oauth/v2/token' && r.status === 200).length, 1, 'one token for every call');
});

test('a request breaking Inter’s rules is refused as BoletoRefused naming the fields, not their values', async () => {
  const err = await client.issue(request({ address: { street: 'Rua', number: '1', neighborhood: 'B', city: 'C', state: 'XX', zipCode: '123' } })).catch((e) => e);
  assert.ok(err instanceof BoletoRefused);
  assert.match(err.message, /pagador\.uf/);
  assert.match(err.message, /pagador\.cep/);
  assert.doesNotMatch(err.message, /XX/);
});

test('reads are retried over 500s; the list finds by seuNumero and by payment day; cancel twice is fine; the PDF', async () => {
  const req = request();
  const ref = await client.issue(req);
  inter.behaviour.fail500 = 2;
  assert.equal((await client.charge(ref))?.reference, ref);
  const seu = inter.charges.get(ref)!.seuNumero;
  assert.equal((await client.findBySeuNumero(seu, new Date()))?.reference, ref);
  inter.pay(ref, 'PIX', 12_345);
  const paid = await client.listPaid(new Date(Date.now() - 86_400_000), new Date());
  const mine = paid.find((c) => c.reference === ref);
  assert.deepEqual({ state: mine?.state, cents: mine?.paidCents, how: mine?.paidWith }, { state: 'PAID', cents: 12_345, how: 'PIX' });
  const other = await client.issue(request());
  await client.cancel(other);
  await client.cancel(other);
  assert.equal((await client.charge(other))?.state, 'CANCELLED');
  assert.match((await client.pdf(ref)).toString('latin1'), /^%PDF-1\.4/);
  assert.equal(await client.charge('00000000-0000-0000-0000-000000000000'), null);
  // A repeat of the same boleto within 30 minutes is refused by Inter: the client adopts the charge already there.
  const again = request();
  const first = await client.issue(again);
  assert.equal(await client.issue(again), first);
  assert.equal(inter.issuedBySeuNumero.get(inter.charges.get(first)!.seuNumero), 1);
});

test('without x-conta-corrente the fake refuses', async () => {
  const config = loadConfig({ JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789', ...interEnv(inter), INTER_ACCOUNT: '' });
  const noAccount = new InterClient(config.inter!);
  await assert.rejects(noAccount.issue(request()));
  noAccount.close();
});
