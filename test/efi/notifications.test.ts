// Efí's notifications of the paying key, through the route the gateway mounts: each idEnvio is
// confirmed by lookup before the core hears of it; duplicates are harmless; forged ones (an
// idEnvio Efí does not know, a state Efí contradicts) change nothing; without the hmac: 401;
// received Pix are ignored; Efí unreachable: 503 so that Efí sends again.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { hmacMatches, idEnviosOf } from '../../src/payments/efi/inbound.ts';
import { payout, startKit, until, type Kit } from './kit.ts';

let k: Kit;
before(async () => {
  k = await startKit();
  await k.edges.start!();
});
after(async () => {
  assert.deepEqual(k.efi.violations, [], "every request the connector sent met Efí's rules");
  await k.close();
});
beforeEach(async () => {
  await k.efi.idle();
  k.applied.length = 0;
  k.efi.behaviour.settleAfterMs = null;
  k.efi.behaviour.notify = 'normal';
});

const lookups = (idEnvio: string) => k.efi.calls('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`).length;

test('a settled send is notified to {webhookUrl}/pix; the route looks it up and applies what Efí shows', async () => {
  await k.connector.sendPayout(payout('n1', 900, { key: 'n1@example.com' }));
  const before = lookups('n1');
  await k.efi.settle('n1');
  assert.equal(k.efi.delivered.at(-1)?.status, 200);
  assert.equal(k.efi.delivered.at(-1)?.path, '/api/psp/efi/webhook', 'the hmac arrived intact: /pix went into ignorar=');
  assert.deepEqual(k.applied, [{ reference: 'n1', state: { status: 'COMPLETED', providerId: k.efi.sends.get('n1')!.e2eId } }]);
  assert.equal(lookups('n1'), before + 1);
});

test('EM_PROCESSAMENTO, then REALIZADO after a delay: the notification brings the final state', async () => {
  k.efi.behaviour.settleAfterMs = 150;
  const sent = await k.connector.sendPayout(payout('n2', 950, { key: 'n2@example.com' }));
  assert.equal(sent.status, 'SENT');
  assert.equal((await k.connector.findPayout('n2'))?.status, 'PROCESSING');
  await until(() => k.applied.length === 1);
  assert.equal(k.applied[0].state.status, 'COMPLETED');
});

test('NAO_REALIZADO notified: FAILED applied (PAYOUT_REJECTED)', async () => {
  k.efi.behaviour.failKeys.add('n3@example.com');
  await k.connector.sendPayout(payout('n3', 800, { key: 'n3@example.com' }));
  await k.efi.settle('n3');
  assert.deepEqual(k.applied.map((a) => [a.reference, a.state.status, a.state.status === 'FAILED' && a.state.reason]), [['n3', 'FAILED', 'PAYOUT_REJECTED']]);
});

test('a duplicate notification: each is confirmed by lookup, the core gets the same state twice (it records it once)', async () => {
  k.efi.behaviour.notify = 'twice';
  await k.connector.sendPayout(payout('n4', 700, { key: 'n4@example.com' }));
  const before = lookups('n4');
  await k.efi.settle('n4');
  assert.equal(lookups('n4'), before + 2);
  assert.deepEqual(k.applied.map((a) => a.state.status), ['COMPLETED', 'COMPLETED']);
});

test('forged: an idEnvio Efí does not know changes nothing; a REALIZADO that Efí contradicts applies only what Efí shows', async () => {
  assert.equal(await k.efi.post([{ endToEndId: 'E00000000202501010000APIforged0', status: 'REALIZADO', valor: '10.00', gnExtras: { idEnvio: 'forgedNever1' } }]), 200);
  assert.deepEqual(k.applied, []);
  await k.connector.sendPayout(payout('n5', 600, { key: 'n5@example.com' }));
  assert.equal(await k.efi.post([{ endToEndId: 'E1', tipo: 'SOLICITACAO', status: 'REALIZADO', valor: '6.00', gnExtras: { idEnvio: 'n5' } }]), 200);
  assert.deepEqual(k.applied, [{ reference: 'n5', state: { status: 'PROCESSING', providerId: k.efi.sends.get('n5')!.e2eId } }]);
});

test('without the hmac, or with another: 401, and Efí is not asked', async () => {
  await k.connector.sendPayout(payout('n6', 500, { key: 'n6@example.com' }));
  const before = lookups('n6');
  const item = { status: 'REALIZADO', gnExtras: { idEnvio: 'n6' } };
  assert.equal(await k.efi.post([item], { hmac: null }), 401);
  assert.equal(await k.efi.post([item], { hmac: 'efi-webhook-secret-0123456788' }), 401);
  assert.equal(await k.efi.post([item], { hmac: '' }), 401);
  assert.equal(lookups('n6'), before);
  assert.deepEqual(k.applied, []);
});

test('received Pix (no idEnvio), an empty body and an unusable idEnvio: 200, nothing looked up', async () => {
  const before = k.efi.requests.length;
  assert.equal(await k.efi.post([{ endToEndId: 'E1803615022211340s08793XPJ', txid: 'fc9a43k6ff384ryP5f41719', chave: k.efi.payingKey, valor: '0.01', horario: '2020-12-21T13:40:34.000Z' }]), 200);
  assert.equal(await k.efi.post([{ gnExtras: { idEnvio: 'not-an-id-envio!' } }, { gnExtras: { tarifa: '0.01' } }]), 200);
  assert.equal(k.efi.requests.length, before);
  assert.deepEqual(k.applied, []);
});

test('Efí unreachable while confirming: 503 (Efí sends again), nothing applied; the next delivery applies it', async () => {
  await k.connector.sendPayout(payout('n7', 400, { key: 'n7@example.com' }));
  k.efi.behaviour.notify = 'none';
  await k.efi.settle('n7');
  k.efi.failNext(3, 503, '/v2/gn/pix/enviados/');
  await k.efi.notify('n7');
  assert.equal(k.efi.delivered.at(-1)?.status, 503);
  assert.equal(k.applied.length, 0);
  await k.efi.notify('n7');
  assert.equal(k.efi.delivered.at(-1)?.status, 200);
  assert.equal(k.applied[0]?.state.status, 'COMPLETED');
});

test('the hmac check: exact, or with the /pix Efí appends to a URL registered without ignorar=', () => {
  const secret = 'efi-webhook-secret-0123456789';
  assert.equal(hmacMatches({ hmac: secret, ignorar: '/pix' }, secret), true);
  assert.equal(hmacMatches({ hmac: `${secret}/pix` }, secret), true);
  assert.equal(hmacMatches({ hmac: `${secret}x` }, secret), false);
  assert.equal(hmacMatches({ hmac: [secret, secret] }, secret), false);
  assert.equal(hmacMatches(undefined, secret), false);
  assert.equal(hmacMatches({ hmac: '' }, ''), false);
});

test('idEnviosOf: once each, from { pix: [...] } or a bare array, valid ones only', () => {
  assert.deepEqual(idEnviosOf({ pix: [{ gnExtras: { idEnvio: 'a1' } }, { gnExtras: { idEnvio: 'a1' } }, { gnExtras: { idEnvio: 'b2' } }, {}, null] }), ['a1', 'b2']);
  assert.deepEqual(idEnviosOf([{ gnExtras: { idEnvio: 'c3' } }]), ['c3']);
  assert.deepEqual(idEnviosOf({ pix: [{ gnExtras: { idEnvio: 'x'.repeat(36) } }, { gnExtras: { idEnvio: 7 } }] }), []);
  assert.deepEqual(idEnviosOf('nonsense'), []);
});
