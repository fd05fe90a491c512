// The efi connector's sends against the fake Efí: to a key and to account data (the body as Efí
// documents it), the states a lookup gives (EM_PROCESSAMENTO, REALIZADO, NAO_REALIZADO), refusals
// turned into the merchant's reasons, the platform's balance lacking (HELD, nothing sent), the
// balance for operators, and the webhook Efí requires registered before the first send.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { payout, startKit, until, type Kit } from './kit.ts';

let k: Kit;
before(async () => {
  k = await startKit();
});
after(async () => {
  assert.deepEqual(k.efi.violations, [], "every request the connector sent met Efí's rules");
  await k.close();
});
beforeEach(() => {
  k.efi.behaviour.settleAfterMs = 0;
  k.efi.behaviour.notify = 'normal';
});

test('the webhook is registered at start: the paying key, the URL with the hmac and ignorar=, x-skip-mtls-checking', async () => {
  await k.edges.start!();
  const hook = k.efi.webhooks.get(k.efi.payingKey);
  assert.equal(hook?.webhookUrl, `${k.baseUrl}/api/psp/efi/webhook?hmac=efi-webhook-secret-0123456789&ignorar=`);
  assert.equal(hook?.skipMtls, true);
  // Efí called the URL (with /pix appended) and the route answered 200 for the right hmac.
  assert.deepEqual(k.answered.at(-1), { path: '/api/psp/efi/webhook', status: 200 });
  const registrations = k.efi.calls('PUT', '/v2/webhook/').length;
  await k.edges.start!();
  await k.edges.sweeps[0].run(new Date());
  assert.equal(k.efi.calls('PUT', '/v2/webhook/').length, registrations, 'once per process');
});

test('to a Pix key: PUT /v3/gn/pix/{idEnvio} with valor, pagador (key, infoPagador) and favorecido.chave; SENT with the e2eId, then REALIZADO', async () => {
  k.efi.behaviour.settleAfterMs = null;
  const sent = await k.connector.sendPayout(payout('w1key', 12345, { key: 'ana@example.com' }));
  assert.equal(sent.status, 'SENT');
  const p = k.efi.sends.get('w1key')!;
  assert.deepEqual(sent, { status: 'SENT', providerId: p.e2eId });
  const body = k.efi.calls('PUT', '/v3/gn/pix/w1key')[0].body;
  assert.deepEqual(body, { valor: '123.45', pagador: { chave: k.efi.payingKey, infoPagador: 'Saque Cofre' }, favorecido: { chave: 'ana@example.com' } });
  assert.deepEqual(await k.connector.findPayout('w1key'), { status: 'PROCESSING', providerId: p.e2eId });
  await k.efi.settle('w1key');
  assert.deepEqual(await k.connector.findPayout('w1key'), { status: 'COMPLETED', providerId: p.e2eId });
  assert.equal(k.efi.paidTo('ana@example.com'), 12345);
});

test("to account data: favorecido.contaBanco with nome, cpf or cnpj, codigoBanco (ISPB), agencia, conta, tipoConta (cacc, svgs)", async () => {
  await k.connector.sendPayout(payout('w2acc', 5000, { account: { account: '998877', accountType: 'checking' } }));
  assert.deepEqual(k.efi.calls('PUT', '/v3/gn/pix/w2acc')[0].body, {
    valor: '50.00',
    pagador: { chave: k.efi.payingKey, infoPagador: 'Saque Cofre' },
    favorecido: { contaBanco: { nome: 'Ana Souza', cpf: '52998224725', codigoBanco: '60701190', agencia: '0001', conta: '998877', tipoConta: 'cacc' } },
  });
  await k.connector.sendPayout(payout('w2sav', 700, { account: { account: '554433', accountType: 'savings', holderName: 'Loja Ltda', holderDocument: '11222333000181' } }));
  const fav = (k.efi.calls('PUT', '/v3/gn/pix/w2sav')[0].body as { favorecido: { contaBanco: Record<string, string> } }).favorecido.contaBanco;
  assert.deepEqual([fav.cnpj, fav.cpf, fav.tipoConta], ['11222333000181', undefined, 'svgs']);
  await until(async () => (await k.connector.findPayout('w2sav'))?.status === 'COMPLETED');
});

test('account kinds Efí does not document (payment, salary) fail before anything is sent', async () => {
  const before = k.efi.requests.length;
  const sent = await k.connector.sendPayout(payout('w3pay', 700, { account: { accountType: 'payment' } }));
  assert.deepEqual([sent.status, sent.status === 'FAILED' && sent.reason], ['FAILED', 'PAYOUT_REJECTED']);
  assert.equal(k.efi.requests.length, before);
});

test('NAO_REALIZADO for a key or an account: the lookup says FAILED (PAYOUT_REJECTED) and the balance comes back', async () => {
  k.efi.behaviour.failKeys.add('bounce@example.com');
  k.efi.behaviour.failAccounts.add('404404');
  const balance = k.efi.balanceCents;
  assert.equal((await k.connector.sendPayout(payout('w4nao', 2500, { key: 'bounce@example.com' }))).status, 'SENT');
  assert.equal((await k.connector.sendPayout(payout('w4acc', 2600, { account: { account: '404404' } }))).status, 'SENT');
  await until(async () => (await k.connector.findPayout('w4acc'))?.status === 'FAILED');
  assert.deepEqual(await k.connector.findPayout('w4nao'), { status: 'FAILED', reason: 'PAYOUT_REJECTED', message: 'The payout provider or the receiving bank refused the Pix' });
  assert.equal(k.efi.balanceCents, balance);
});

test('refusals at the request: an unknown key is PIX_KEY_NOT_FOUND; account refusals by their names; anything else PAYOUT_REJECTED', async () => {
  k.efi.behaviour.refuseKeys.set('nobody@example.com', { nome: 'chave_nao_encontrada', mensagem: 'A chave informada não foi encontrada' });
  k.efi.behaviour.refuseAccounts.set('111', { nome: 'conta_encerrada', mensagem: 'Conta encerrada' });
  k.efi.behaviour.refuseAccounts.set('222', { nome: 'conta_inexistente', mensagem: 'Conta inexistente' });
  k.efi.behaviour.refuseAccounts.set('333', { nome: 'cpf_divergente', mensagem: 'Documento não confere com o titular' });
  k.efi.behaviour.refuseKeys.set('odd@example.com', { nome: 'operacao_nao_permitida', mensagem: 'Operação não permitida' });
  const reason = async (id: string, to: Parameters<typeof payout>[2]) => {
    const sent = await k.connector.sendPayout(payout(id, 1000, to));
    return sent.status === 'FAILED' ? sent.reason : sent.status;
  };
  assert.equal(await reason('w5a', { key: 'nobody@example.com' }), 'PIX_KEY_NOT_FOUND');
  assert.equal(await reason('w5b', { account: { account: '111' } }), 'ACCOUNT_CLOSED');
  assert.equal(await reason('w5c', { account: { account: '222' } }), 'ACCOUNT_NOT_FOUND');
  assert.equal(await reason('w5d', { account: { account: '333' } }), 'DOCUMENT_MISMATCH');
  assert.equal(await reason('w5e', { key: 'odd@example.com' }), 'PAYOUT_REJECTED');
  assert.equal(await k.connector.findPayout('w5a'), null, 'nothing was sent');
});

test("the platform's balance lacking: HELD, nothing sent; the same idEnvio sent again once topped up pays once", async () => {
  const balance = k.efi.balanceCents;
  k.efi.balanceCents = 999;
  const held = await k.connector.sendPayout(payout('w6held', 1000, { key: 'held@example.com' }));
  assert.deepEqual([held.status, held.status === 'HELD' && held.reason], ['HELD', 'PLATFORM_FUNDS']);
  assert.equal(await k.connector.findPayout('w6held'), null);
  // Efí's name for it is not in the pages read: a refusal that does not say "saldo" is HELD by the balance.
  k.efi.behaviour.fundsRefusal = { nome: 'operacao_recusada', mensagem: 'Operação recusada' };
  assert.equal((await k.connector.sendPayout(payout('w6held', 1000, { key: 'held@example.com' }))).status, 'HELD');
  k.efi.balanceCents = balance;
  assert.equal((await k.connector.sendPayout(payout('w6held', 1000, { key: 'held@example.com' }))).status, 'SENT');
  await until(async () => (await k.connector.findPayout('w6held'))?.status === 'COMPLETED');
  assert.equal(k.efi.paidTo('held@example.com'), 1000);
});

test("the platform's account blocked (documento_bloqueado) is the platform's problem: no FAILED for the merchant, an error logged", async () => {
  k.efi.behaviour.refuseKeys.set('platform@example.com', { nome: 'documento_bloqueado', mensagem: 'O documento desta conta tem bloqueios que impedem a emissão' });
  await assert.rejects(k.connector.sendPayout(payout('w7plat', 1000, { key: 'platform@example.com' })));
  assert.ok(k.logs.some((l) => l.includes('documento_bloqueado') && l.includes('"level":50')));
});

test('payoutHealth: the balance of GET /v2/gn/saldo in cents; without the scope gn.balance.read it throws', async () => {
  const balance = k.efi.balanceCents;
  k.efi.balanceCents = 12_345_678;
  assert.deepEqual(await k.connector.payoutHealth(), { balanceCents: 12_345_678 });
  k.efi.balanceCents = balance;
  k.efi.grantable.delete('gn.balance.read');
  k.efi.unauthorizedOnce(); // the next token is the application's new scopes
  await assert.rejects(k.connector.payoutHealth(), (e: Error & { kind?: string }) => e.kind === 'auth');
  k.efi.grantable.add('gn.balance.read');
  k.efi.unauthorizedOnce();
  assert.deepEqual(await k.connector.payoutHealth(), { balanceCents: balance });
});

test('findPayout: an idEnvio Efí never saw is null (404); a reference Efí cannot hold is null without asking', async () => {
  assert.equal(await k.connector.findPayout('neverSent123'), null);
  const before = k.efi.requests.length;
  assert.equal(await k.connector.findPayout('not-an-id-envio'), null);
  assert.equal(k.efi.requests.length, before);
});
