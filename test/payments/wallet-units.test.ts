// Pure pieces of the wallet: PIX key validation, file sniffing, the advance fee and quote, the
// sandbox payout provider.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { advanceFee, daysUntil, quote, type Candidate } from '../../src/modules/advances/service.ts';
import { decodeBase64, sniffContentType } from '../../src/modules/kyc/files.ts';
import { generateCnpj, generateCpf } from '../../src/payments/documents.ts';
import { buildRegistry } from '../../src/payments/catalogue.ts';
import { SANDBOX_PAYOUT_FAILURES, SandboxConnector } from '../../src/payments/sandbox/connector.ts';
import { validatePixKey } from '../../src/payments/pix-keys.ts';
import { dropSchema, openDatabase, testConfig } from '../helpers.ts';

const DAY = 86_400_000;

describe('validatePixKey', () => {
  it('accepts every generated CPF and CNPJ, formatted or not, and normalises to the bare value', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 12, maxLength: 12 }), (values) => {
        let i = 0;
        const rand = () => values[i++ % values.length];
        const cpf = generateCpf(rand);
        const cnpj = generateCnpj(rand, { alphanumeric: values[0] > 0.5 });
        assert.deepEqual(validatePixKey('cpf', cpf), { ok: true, normalized: cpf });
        assert.deepEqual(validatePixKey('cpf', `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`), { ok: true, normalized: cpf });
        assert.deepEqual(validatePixKey('cnpj', cnpj.toLowerCase()), { ok: true, normalized: cnpj });
        assert.equal(validatePixKey('cnpj', cpf).ok, false);
        assert.equal(validatePixKey('cpf', cnpj).ok, false);
      }),
    );
  });

  it('e-mail: lowercased, at most 77 characters, a real address shape', () => {
    assert.deepEqual(validatePixKey('email', ' Financeiro@Loja.COM.br '), { ok: true, normalized: 'financeiro@loja.com.br' });
    assert.equal(validatePixKey('email', `${'a'.repeat(65)}@example.com`).ok, true); // 77
    assert.equal(validatePixKey('email', `${'a'.repeat(66)}@example.com`).ok, false); // 78
    for (const bad of ['plain', 'a@b', '@example.com', 'a@.com', 'a..b@example.com', 'a b@example.com', 'a@exa mple.com']) assert.equal(validatePixKey('email', bad).ok, false, bad);
  });

  it('phone: +55, a two-digit area code without zeros, a 9-digit mobile number', () => {
    assert.deepEqual(validatePixKey('phone', '+55 (11) 98765-4321'), { ok: true, normalized: '+5511987654321' });
    assert.deepEqual(validatePixKey('phone', '+55.21.99999.0000'), { ok: true, normalized: '+5521999990000' });
    for (const bad of ['11987654321', '5511987654321', '+5511887654321', '+551198765432', '+55119876543210', '+5510987654321', '+5501987654321', '+1 555 987 6543']) assert.equal(validatePixKey('phone', bad).ok, false, bad);
  });

  it('random: a UUID (EVP), lowercased', () => {
    assert.deepEqual(validatePixKey('random', 'F47AC10B-58CC-4372-A567-0E02B2C3D479'), { ok: true, normalized: 'f47ac10b-58cc-4372-a567-0e02b2c3d479' });
    for (const bad of ['f47ac10b58cc4372a5670e02b2c3d479', 'f47ac10b-58cc-4372-a567-0e02b2c3d47', 'g47ac10b-58cc-4372-a567-0e02b2c3d479', '']) assert.equal(validatePixKey('random', bad).ok, false, bad);
  });
});

describe('sniffContentType and decodeBase64', () => {
  it('knows PNG, JPEG, WebP and PDF by their first bytes, and nothing else', () => {
    assert.equal(sniffContentType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1])), 'image/png');
    assert.equal(sniffContentType(Buffer.from([0xff, 0xd8, 0xff, 0xdb])), 'image/jpeg');
    assert.equal(sniffContentType(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')])), 'image/webp');
    assert.equal(sniffContentType(Buffer.from('%PDF-1.4')), 'application/pdf');
    for (const other of [Buffer.from('GIF89a'), Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE')]), Buffer.from('<svg>'), Buffer.from([0x89, 0x50]), Buffer.alloc(0), Buffer.from('PK\x03\x04')]) {
      assert.equal(sniffContentType(other), null, other.toString('latin1'));
    }
  });

  it('base64: strict, padded, no whitespace; round trip', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => assert.deepEqual(decodeBase64(Buffer.from(bytes).toString('base64')), Buffer.from(bytes))));
    for (const bad of ['abc', 'ab=c', 'YWJj\n', 'YW Jj', 'YWJj!', 'YWJ-', 'YWJ_']) assert.equal(decodeBase64(bad), null, bad);
  });
});

describe('advance fee and quote', () => {
  it('fee = amount x rate x days / 30, half up; 30 days at 2.99% is 2.99%', () => {
    assert.equal(advanceFee(100_000, 299, 30), 2990);
    assert.equal(advanceFee(100_000, 299, 60), 5980);
    assert.equal(advanceFee(100_000, 299, 15), 1495);
    assert.equal(advanceFee(100_000, 299, 1), 100); // 99.67 -> 100
    assert.equal(advanceFee(1, 299, 30), 0);
    assert.equal(advanceFee(17, 299, 30), 1); // 0.508 -> 1
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000 }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: 400 }), (a, bp, d) => {
        const fee = advanceFee(a, bp, d);
        const exact = (a * bp * d) / 300_000;
        assert.ok(Number.isSafeInteger(fee));
        assert.ok(Math.abs(fee - exact) <= 0.5 + 1e-9, `${a} ${bp} ${d}: ${fee} vs ${exact}`);
      }),
    );
  });

  it('days until settlement: each started day counts, at least one', () => {
    const now = new Date('2026-01-01T12:00:00Z');
    assert.equal(daysUntil(new Date(now.getTime() + 30 * DAY), now), 30);
    assert.equal(daysUntil(new Date(now.getTime() + 30 * DAY - 1), now), 30);
    assert.equal(daysUntil(new Date(now.getTime() + 30 * DAY + 1), now), 31);
    assert.equal(daysUntil(new Date(now.getTime() + 1000), now), 1);
  });

  it('covers the amount nearest first, splitting only the last instalment; totals add up', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const candidates: Candidate[] = [1, 2, 3].map((i) => ({ id: `r${i}`, transaction_id: 't', installment_number: i, amount_cents: 10_000, settle_at: new Date(now.getTime() + 30 * i * DAY) }));
    const q = quote(candidates, 25_000, 299, now);
    assert.deepEqual(
      q.items.map((i) => [i.receivableId, i.amountCents, i.days, i.feeCents, i.whole]),
      [
        ['r1', 10_000, 30, 299, true],
        ['r2', 10_000, 60, 598, true],
        ['r3', 5_000, 90, 449, false], // 448.5 -> 449
      ],
    );
    assert.equal(q.amountCents, 25_000);
    assert.equal(q.feeCents, 299 + 598 + 449);
    assert.equal(q.netAmountCents, 25_000 - q.feeCents);
    assert.equal(q.feePercentage, 5.38);
    const short = quote(candidates, 40_000, 299, now);
    assert.equal(short.amountCents, 30_000, 'never more than the candidates hold');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 12_000_000 }), (amounts, target) => {
        const cs = amounts.map((a, i) => ({ id: `r${i}`, transaction_id: 't', installment_number: i + 1, amount_cents: a, settle_at: new Date(now.getTime() + (i + 1) * DAY) }));
        const r = quote(cs, target, 299, now);
        const sum = amounts.reduce((s, a) => s + a, 0);
        assert.equal(r.amountCents, Math.min(target, sum));
        assert.equal(r.items.reduce((s, i) => s + i.amountCents, 0), r.amountCents);
        assert.ok(r.items.slice(0, -1).every((i) => i.whole), 'only the last part may be partial');
        assert.equal(r.feeCents, r.items.reduce((s, i) => s + i.feeCents, 0));
      }),
    );
  });
});

describe('sandbox payout connector', () => {
  it('pays every key but the magic ones, after its delay, once per reference; production only when configured', async () => {
    const { database, schema } = await openDatabase();
    try {
      const config = testConfig();
      const p = new SandboxConnector(config, database.db, 20);
      const started = Date.now();
      const payout = (externalId: string, pixKey: string) => ({ externalId, amountCents: 100, destination: { type: 'pix_key' as const, pixKeyType: 'email' as const, pixKey }, description: null });
      assert.deepEqual(await p.sendPayout(payout('x', 'a@example.com')), { status: 'SENT' });
      assert.ok(Date.now() - started >= 15);
      assert.deepEqual(await p.findPayout('x'), { status: 'COMPLETED' });
      assert.equal(await p.findPayout('never-sent'), null);
      for (const [key, outcome] of Object.entries(SANDBOX_PAYOUT_FAILURES)) {
        const r = await new SandboxConnector(config, database.db, 0).sendPayout(payout(`x-${key}`, key));
        assert.deepEqual(r, { status: 'FAILED', ...outcome });
        assert.deepEqual(await p.findPayout(`x-${key}`), { status: 'FAILED', ...outcome });
      }
      // The same reference again gets the first answer (a re-send never pays a second time).
      assert.deepEqual(await p.sendPayout(payout('x', '00000000191')), { status: 'SENT' });
      const log = { info() {}, warn() {}, error() {} };
      assert.equal(buildRegistry(testConfig(), database.db, log).offers(true, 'PAYOUT'), false);
      assert.equal(buildRegistry(testConfig({ PAYOUT_PROVIDER: 'sandbox' }), database.db, log).forNew(true, 'PAYOUT').name, 'sandbox');
    } finally {
      await database.close();
      await dropSchema(schema);
    }
  });

  it('every magic key is a valid key of its type (it can be requested)', () => {
    const typeOf = (k: string) => (k.includes('@') ? 'email' : k.startsWith('+') ? 'phone' : k.includes('-') ? 'random' : k.length === 11 ? 'cpf' : 'cnpj');
    for (const key of Object.keys(SANDBOX_PAYOUT_FAILURES)) {
      const check = validatePixKey(typeOf(key), key);
      assert.deepEqual(check, { ok: true, normalized: key }, key);
    }
  });
});

describe('payout configuration', () => {
  const base = { JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789' };
  it('defaults: no production payout connector, 2 s sandbox delay, 1 s payout job, review above R$ 5.000, no daily limit, new destinations held 24 h, 60 s janitor grace', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    const defaults = loadConfig(base);
    const review = { aboveCents: 500_000, dailyLimitCents: null, newDestinationHours: 24 };
    assert.deepEqual([defaults.payouts, defaults.connectors.PAYOUT, defaults.janitorGraceSeconds], [{ sandboxDelayMs: 2000, intervalMs: 1000, review }, [], 60]);
    const set = loadConfig({ ...base, PAYOUT_PROVIDER: 'sandbox', SANDBOX_PAYOUT_DELAY_MS: '0', JANITOR_GRACE_SECONDS: '5', PAYOUT_INTERVAL_MS: '250', PAYOUT_REVIEW_ABOVE_CENTS: '0', PAYOUT_DAILY_LIMIT_CENTS: '1000000', PAYOUT_NEW_DESTINATION_HOLD_HOURS: '0' });
    assert.deepEqual([set.payouts, set.connectors.PAYOUT, set.janitorGraceSeconds], [{ sandboxDelayMs: 0, intervalMs: 250, review: { aboveCents: 0, dailyLimitCents: 1_000_000, newDestinationHours: 0 } }, ['sandbox'], 5]);
  });
  it('refuses an unknown provider and bad numbers', async () => {
    const { loadConfig, ConfigError } = await import('../../src/config.ts');
    assert.throws(() => loadConfig({ ...base, PAYOUT_PROVIDER: 'banco-x' }), (e: Error) => e instanceof ConfigError && /PAYOUT_PROVIDER/.test(e.message));
    assert.throws(() => loadConfig({ ...base, SANDBOX_PAYOUT_DELAY_MS: '-1' }), /SANDBOX_PAYOUT_DELAY_MS/);
    assert.throws(() => loadConfig({ ...base, JANITOR_GRACE_SECONDS: '0' }), /JANITOR_GRACE_SECONDS/);
    assert.throws(() => loadConfig({ ...base, PAYOUT_REVIEW_ABOVE_CENTS: '-5' }), /PAYOUT_REVIEW_ABOVE_CENTS/);
    assert.throws(() => loadConfig({ ...base, PAYOUT_DAILY_LIMIT_CENTS: 'lots' }), /PAYOUT_DAILY_LIMIT_CENTS/);
    assert.throws(() => loadConfig({ ...base, PAYOUT_NEW_DESTINATION_HOLD_HOURS: '-1' }), /PAYOUT_NEW_DESTINATION_HOLD_HOURS/);
  });
});
