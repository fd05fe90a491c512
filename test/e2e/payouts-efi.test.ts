// Production withdrawals paid by Pix through Efí, end to end on real PostgreSQL: 500 withdrawals of
// 50 merchants asked of two gateways, sent by two `worker` processes to the fake Efí, one worker
// killed with SIGKILL a third of the way and a fresh one started; Efí settles each send (a tenth of
// them NAO_REALIZADO), a third of its notifications are lost and some come twice, one is forged.
// Every withdrawal must end paid exactly once at Efí (or failed with its money back in the wallet),
// the ledger balanced. PostgreSQL only: PGlite is one in-process connection, no second process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { efiEnv } from '../fake-efi/env.ts';
import { startFakeEfi, type FakeEfi } from '../fake-efi/server.ts';
import { freePort, merchant, onPostgres, secondInstance, startApp } from '../helpers.ts';
import { assertLedgerBalanced } from '../ledger-check.ts';
import { balance, paidCard, req, settleAll } from '../wallet-helpers.ts';
import { cleanups, sleep, startWorker, until } from './workers-kit.ts';

const MERCHANTS = 50;
const PER_MERCHANT = 10;
const FUNDS = 60_000;
const FEE = 350;

/**
 * Plays Efí's side: each new send is settled once (REALIZADO, or NAO_REALIZADO for the failing
 * keys); of its notifications a third are lost, a fifth sent twice. Before settling the 20th, a
 * forged REALIZADO for it (and one for an idEnvio Efí never saw) is posted with the right hmac.
 */
function settler(efi: FakeEfi) {
  const settled = new Set<string>();
  let forged: string | null = null;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const [idEnvio, sent] of efi.sends) {
        if (settled.has(idEnvio) || sent.status !== 'EM_PROCESSAMENTO') continue;
        const k = settled.size;
        if (k === 20) {
          forged = idEnvio;
          const item = (id: string) => ({ endToEndId: sent.e2eId, chave: efi.payingKey, tipo: 'SOLICITACAO', status: 'REALIZADO', valor: sent.valor, horario: new Date().toISOString(), gnExtras: { idEnvio: id } });
          assert.equal(await efi.post([item(idEnvio), item('wforged000000000000000000000000000')]), 200);
        }
        efi.behaviour.notify = k % 3 === 0 ? 'none' : k % 5 === 1 ? 'twice' : 'normal';
        settled.add(idEnvio);
        await efi.settle(idEnvio);
      }
      await sleep(50);
    }
  })();
  return {
    settled,
    forged: () => forged,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

const skip = !onPostgres && 'PostgreSQL only (TEST_DATABASE_URL): two worker processes share the database';

test('500 withdrawals through Efí with two workers, one killed, lost and forged notifications: each paid once, failed ones back in the wallet, the ledger balanced', { skip, timeout: 420_000 }, async () => {
  // Every answer takes 15 ms, so a worker always has claimed payouts in flight when it is killed.
  const efi = await startFakeEfi({ balanceCents: 1_000_000_000, latencyMs: 15 });
  cleanups.push(() => efi.close());
  efi.behaviour.settleAfterMs = null;
  const port = await freePort();
  const env = { ...efiEnv(efi), BASE_URL: `http://127.0.0.1:${port}`, PAYMENT_PROVIDER: 'sandbox', PAYOUT_REVIEW_ABOVE_CENTS: '0', PAYOUT_NEW_DESTINATION_HOLD_HOURS: '0', JANITOR_GRACE_SECONDS: '2' };
  const ctx = await startApp({ env });
  cleanups.push(() => ctx.close());
  await ctx.app.listen({ port, host: '127.0.0.1' });
  const gateways = [ctx.app, await secondInstance(ctx)];
  cleanups.push(() => gateways[1].close());

  // 50 production merchants, each with FUNDS available; 10 withdrawals each, every tenth to a key Efí fails.
  const merchants = [];
  for (let i = 0; i < MERCHANTS; i++) {
    const m = await merchant(ctx.app, { live: true });
    const { net } = await paidCard(ctx.app, { key: m.liveKey! }, FUNDS, 1);
    merchants.push({ m, key: { key: m.liveKey! }, net });
  }
  await settleAll(ctx, 31);
  const withdrawals = new Map<string, { merchant: number; amount: number; fails: boolean }>();
  for (let j = 0; j < PER_MERCHANT; j++) {
    for (let i = 0; i < MERCHANTS; i++) {
      const amount = 1000 + ((i * 37 + j * 101) % 4000);
      const pixKey = `m${i}w${j}@example.com`;
      const fails = j === 9;
      if (fails) efi.behaviour.failKeys.add(pixKey);
      const res = await req(gateways[(i + j) % 2], 'POST', '/api/withdraws', merchants[i].key, { amountCents: amount, pixKeyType: 'email', pixKey });
      assert.equal(res.status, 201, res.raw);
      withdrawals.set(res.body.data.id, { merchant: i, amount, fails });
    }
  }

  const workerEnv = { ...env, PAYOUT_INTERVAL_MS: '200', JOB_INTERVAL_MS: '500' };
  const play = settler(efi);
  const a = startWorker(ctx, workerEnv, 'worker a');
  const b = startWorker(ctx, workerEnv, 'worker b');
  await Promise.all([a.started, b.started]);
  await until('a third of the sends', () => efi.sends.size >= 170, 180_000);
  a.child.kill('SIGKILL');
  const c = startWorker(ctx, workerEnv, 'worker c');
  await c.started;

  const db = ctx.app.deps.db;
  const open = async () => Number((await db.selectFrom('withdrawals').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'in', ['PENDING', 'PROCESSING']).executeTakeFirstOrThrow()).n);
  await until('every withdrawal settled', async () => (await open()) === 0, 300_000).catch((err) => {
    throw new Error(`${err.message}\nworker b:\n${b.output().slice(-3000)}`);
  });
  await play.stop();
  await efi.idle();

  const rows = await db.selectFrom('withdrawals').select(['id', 'status', 'payout_ref', 'external_id', 'net_amount_cents', 'failure_reason', 'payout_attempts']).execute();
  assert.equal(rows.length, MERCHANTS * PER_MERCHANT);
  assert.ok(rows.some((w) => w.payout_attempts >= 2), 'the killed worker left payouts the janitor sent again under the same reference');
  for (const w of rows) {
    const want = withdrawals.get(w.id)!;
    const sent = efi.sends.get(w.payout_ref!);
    assert.ok(sent, `${w.id} reached Efí under its reference`);
    assert.equal(sent.debits, 1, `${w.id} left the account once`);
    assert.equal(sent.cents, w.net_amount_cents);
    assert.equal(w.status, want.fails ? 'FAILED' : 'COMPLETED', `${w.id}: ${w.failure_reason}`);
    if (!want.fails) assert.equal(w.external_id, sent.e2eId, 'externalId is the end-to-end id');
  }
  assert.equal(efi.sends.size, rows.length, 'nothing else was sent');
  assert.deepEqual(efi.violations, [], "every request met Efí's rules");
  assert.ok(play.forged(), 'a forged notification was posted');
  assert.ok(efi.delivered.length < play.settled.size * 1.2, 'a third of the notifications were lost: the janitor completed those');

  // Each merchant: what completed left; what failed came back; nothing reserved.
  for (const [i, { key, net }] of merchants.entries()) {
    const mine = [...withdrawals.values()].filter((w) => w.merchant === i);
    const out = mine.filter((w) => !w.fails).reduce((s, w) => s + w.amount, 0);
    assert.deepEqual(await balance(ctx.app, key), { availableBalanceCents: net - out, pendingBalanceCents: 0, reservedCents: 0 });
  }
  const paid = [...efi.sends.values()].filter((s) => s.status === 'REALIZADO').reduce((s, p) => s + p.cents, 0);
  const completed = [...withdrawals.values()].filter((w) => !w.fails).reduce((s, w) => s + w.amount - FEE, 0);
  assert.equal(paid, completed, 'Efí paid exactly the completed withdrawals');
  await assertLedgerBalanced(db);
});
