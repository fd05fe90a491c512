// The efi connector when Efí misbehaves: an answer lost after the send was made (the retry, or the
// janitor's re-send, meets Efí's 409 for the same idEnvio and pays nothing twice), 5xx then a retry,
// a slow answer, a token revoked (fetched again once, not in a loop), and the circuit breaker.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { EfiConnector } from '../../src/payments/efi/connector.ts';
import type { ClientOptions } from '../../src/payments/pix-api/client.ts';
import { efiEnv } from '../fake-efi/env.ts';
import { payout, startKit, until, type Kit } from './kit.ts';

let k: Kit;
const extra: EfiConnector[] = [];
before(async () => {
  k = await startKit();
  await k.edges.start!();
  // Sends stay EM_PROCESSAMENTO until a test settles them: no notification's lookup takes a failure queued for a send.
  k.efi.behaviour.settleAfterMs = null;
});
after(async () => {
  for (const c of extra) c.close();
  assert.deepEqual(k.efi.violations, [], "every request the connector sent met Efí's rules");
  await k.close();
});

/** Another connector over the same fake (the webhook is already registered there). */
function connector(opts: ClientOptions) {
  const config = loadConfig({ JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789', ...efiEnv(k.efi) }).efi!;
  const c = new EfiConnector(config, { info() {}, warn() {}, error() {} }, { backoffMs: 5, timeoutMs: 1000, ...opts });
  extra.push(c);
  return c;
}

test('an answer lost after the send: the retry meets the 409 for the same idEnvio, SENT with its e2eId, paid once', async () => {
  k.efi.dropAnswer('PUT', '/v3/gn/pix/');
  const sent = await k.connector.sendPayout(payout('lost1', 4200, { key: 'lost1@example.com' }));
  assert.deepEqual(sent, { status: 'SENT', providerId: k.efi.sends.get('lost1')!.e2eId });
  assert.deepEqual(k.efi.calls('PUT', '/v3/gn/pix/lost1').map((r) => r.status), [0, 409]);
  await k.efi.settle('lost1');
  await k.efi.idle();
  assert.equal((await k.connector.findPayout('lost1'))?.status, 'COMPLETED');
  assert.equal(k.efi.paidTo('lost1@example.com'), 4200);
});

test("without retries the lost answer throws (unknown outcome); findPayout finds the Pix; the janitor's re-send pays nothing twice", async () => {
  const once = connector({ retries: 0 });
  k.efi.dropAnswer('PUT', '/v3/gn/pix/');
  await assert.rejects(once.sendPayout(payout('lost2', 4300, { key: 'lost2@example.com' })));
  const e2eId = k.efi.sends.get('lost2')!.e2eId;
  assert.deepEqual(await once.findPayout('lost2'), { status: 'PROCESSING', providerId: e2eId });
  assert.deepEqual(await once.sendPayout(payout('lost2', 4300, { key: 'lost2@example.com' })), { status: 'SENT', providerId: e2eId });
  await k.efi.settle('lost2');
  assert.deepEqual(await once.findPayout('lost2'), { status: 'COMPLETED', providerId: e2eId });
  // A third send, as a janitor that never heard back would make: still one payment.
  assert.equal((await once.sendPayout(payout('lost2', 4300, { key: 'lost2@example.com' }))).status, 'SENT');
  assert.equal(k.efi.paidTo('lost2@example.com'), 4300);
  assert.equal(k.efi.sends.get('lost2')!.debits, 1);
});

test('a 409 with a NAO_REALIZADO Pix behind it answers FAILED', async () => {
  k.efi.behaviour.failKeys.add('gone@example.com');
  await k.connector.sendPayout(payout('again1', 100, { key: 'gone@example.com' }));
  await k.efi.settle('again1');
  await k.efi.idle();
  assert.equal((await k.connector.findPayout('again1'))?.status, 'FAILED');
  const again = await k.connector.sendPayout(payout('again1', 100, { key: 'gone@example.com' }));
  assert.deepEqual([again.status, again.status === 'FAILED' && again.reason], ['FAILED', 'PAYOUT_REJECTED']);
});

test('a 500 then a retry: one send at Efí', async () => {
  k.efi.failNext(1, 500, '/v3/gn/pix/');
  assert.equal((await k.connector.sendPayout(payout('retry1', 1500, { key: 'retry1@example.com' }))).status, 'SENT');
  assert.deepEqual(k.efi.calls('PUT', '/v3/gn/pix/retry1').map((r) => r.status), [500, 201]);
  assert.equal(k.efi.paidTo('retry1@example.com'), 1500);
});

test('5xx on every attempt: the outcome is unknown (throws), nothing was sent, and a later send goes through', async () => {
  k.efi.failNext(3, 503, '/v3/gn/pix/');
  await assert.rejects(k.connector.sendPayout(payout('retry2', 1600, { key: 'retry2@example.com' })));
  assert.equal(await k.connector.findPayout('retry2'), null);
  assert.equal((await k.connector.sendPayout(payout('retry2', 1600, { key: 'retry2@example.com' }))).status, 'SENT');
  assert.equal(k.efi.paidTo('retry2@example.com'), 1600);
});

test('a slow answer past the time limit: the retry is answered, the late one meets the 409, paid once', async () => {
  k.efi.delayNext(1, 1400);
  assert.equal((await k.connector.sendPayout(payout('slow1', 1700, { key: 'slow1@example.com' }))).status, 'SENT');
  await until(() => k.efi.calls('PUT', '/v3/gn/pix/slow1').length === 2);
  assert.deepEqual(k.efi.calls('PUT', '/v3/gn/pix/slow1').map((r) => r.status).sort(), [201, 409]);
  assert.equal(k.efi.paidTo('slow1@example.com'), 1700);
});

test('a token revoked: fetched again once and the call succeeds; revoked twice in a row, the call fails (no loop)', async () => {
  const issued = k.efi.tokensIssued;
  k.efi.unauthorizedOnce();
  assert.equal((await k.connector.sendPayout(payout('tok1', 100, { key: 'tok1@example.com' }))).status, 'SENT');
  assert.equal(k.efi.tokensIssued, issued + 1);
  const token = k.efi.calls('POST', '/oauth/token').at(-1)!;
  assert.match(String(token.headers.authorization), /^Basic /);
  assert.match(String(token.headers['content-type']), /^application\/json/);
  k.efi.unauthorizedOnce();
  k.efi.unauthorizedOnce();
  await assert.rejects(k.connector.sendPayout(payout('tok2', 100, { key: 'tok2@example.com' })), (e: Error & { kind?: string }) => e.kind === 'auth');
  assert.equal(k.efi.sends.has('tok2'), false);
});

test('the circuit opens after consecutive failures: calls are refused without reaching Efí, then one trial closes it', async () => {
  const c = connector({ retries: 0, breakerThreshold: 2, breakerCooldownMs: 200 });
  await c.findPayout('warmup1'); // its token
  k.efi.failNext(2, 500);
  await assert.rejects(c.findPayout('brk1'));
  await assert.rejects(c.findPayout('brk1'));
  const before = k.efi.requests.length;
  await assert.rejects(c.sendPayout(payout('brk2', 100, { key: 'brk@example.com' })), /circuit open/);
  assert.equal(k.efi.requests.length, before, 'nothing reached Efí');
  assert.equal(c.client.breaker.state, 'open');
  await new Promise((r) => setTimeout(r, 250));
  assert.equal((await c.sendPayout(payout('brk2', 100, { key: 'brk@example.com' }))).status, 'SENT');
  assert.equal(c.client.breaker.state, 'closed');
});

test('sends go one at a time (Efí advises against simultaneous sends from one account)', async () => {
  k.efi.delayNext(1, 150);
  const started = Date.now();
  const results = await Promise.all(['par1', 'par2', 'par3'].map((id) => k.connector.sendPayout(payout(id, 100, { key: `${id}@example.com` }))));
  assert.deepEqual(results.map((r) => r.status), ['SENT', 'SENT', 'SENT']);
  // (The token revoked by the test above is met once more first: a 401, a new token.)
  const puts = k.efi.requests.filter((r) => r.method === 'PUT' && /\/par\d$/.test(r.path) && r.status === 201);
  assert.deepEqual(puts.map((r) => r.path.slice(-4)), ['par1', 'par2', 'par3'], 'in order: par2 and par3 waited for the slow par1');
  assert.ok(Date.now() - started >= 150);
});
