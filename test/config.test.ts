// Configuration from the environment: defaults, validation messages, the generated JWT secret.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

const SECRET = 'test-secret-test-secret-test-secret-0123456789';
const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cofre-config-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Loads a config expecting a ConfigError; returns its message. */
function refused(env: Record<string, string>): string {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ConfigError, `expected a ConfigError for ${JSON.stringify(env)}, got ${String(caught)}`);
  return caught.message;
}

describe('defaults', () => {
  test('port 3000, embedded PGlite in ./data, info logs, localhost URLs', () => {
    const dataDir = tempDir();
    const c = loadConfig({ DATA_DIR: dataDir });
    assert.equal(c.port, 3000);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.databaseUrl, null);
    assert.equal(c.redisUrl, null);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.baseUrl, 'http://localhost:3000');
    assert.equal(c.checkoutUrl, 'http://localhost:3000');
    assert.equal(c.dataDir, resolve(dataDir));
    assert.ok(c.jwtSecret.length >= 32);
    assert.deepEqual(c.checkoutLimits, { perIpPerMinute: 30, cardAttemptsPerIpPerHour: 10, cardDeclinesPerHour: 5, upsellMinutes: 15 });
  });

  test('DATA_DIR defaults to ./data', () => {
    const c = loadConfig({ JWT_SECRET: SECRET });
    assert.equal(c.dataDir, resolve('./data'));
  });

  test('given values are used', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://u:p@db:5432/cofre',
      REDIS_URL: 'redis://cache:6379',
      BASE_URL: 'https://api.cofre.com.br/',
      CHECKOUT_URL: 'https://pay.cofre.com.br',
      JWT_SECRET: SECRET,
      LOG_LEVEL: 'warn',
    });
    assert.equal(c.port, 8080);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.databaseUrl, 'postgres://u:p@db:5432/cofre');
    assert.equal(c.redisUrl, 'redis://cache:6379');
    assert.equal(c.baseUrl, 'https://api.cofre.com.br');
    assert.equal(c.checkoutUrl, 'https://pay.cofre.com.br');
    assert.equal(c.jwtSecret, SECRET);
    assert.equal(c.logLevel, 'warn');
  });

  test('BASE_URL follows PORT when not given; postgresql:// and rediss:// are accepted', () => {
    const c = loadConfig({ PORT: '4000', JWT_SECRET: SECRET, DATABASE_URL: 'postgresql://db/cofre', REDIS_URL: 'rediss://cache:6380' });
    assert.equal(c.baseUrl, 'http://localhost:4000');
    assert.equal(c.databaseUrl, 'postgresql://db/cofre');
    assert.equal(c.redisUrl, 'rediss://cache:6380');
  });
});

describe('bad values are refused with a message naming the variable', () => {
  const cases: Array<[string, Record<string, string>]> = [
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '80.5' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
    ['REDIS_URL', { REDIS_URL: 'http://x' }],
    ['BASE_URL', { BASE_URL: 'notaurl' }],
    ['BASE_URL', { BASE_URL: 'ftp://files.example.com' }],
    ['CHECKOUT_URL', { CHECKOUT_URL: 'checkout' }],
    ['JWT_SECRET', { JWT_SECRET: 'too-short' }],
  ];
  for (const [name, env] of cases) {
    test(`${name}=${Object.values(env)[0]}`, () => {
      const message = refused({ JWT_SECRET: SECRET, DATA_DIR: tempDir(), ...env });
      assert.ok(message.includes(name), `"${message}" does not name ${name}`);
    });
  }

  test('the message shows the bad value', () => {
    assert.match(refused({ JWT_SECRET: SECRET, PORT: 'abc' }), /abc/);
    assert.match(refused({ JWT_SECRET: SECRET, LOG_LEVEL: 'loud' }), /loud/);
  });

  test('JWT_SECRET is required with DATABASE_URL', () => {
    const message = refused({ DATABASE_URL: 'postgres://db/cofre', DATA_DIR: tempDir() });
    assert.match(message, /JWT_SECRET/);
    assert.match(message, /DATABASE_URL/);
  });

  test('every problem is reported at once', () => {
    const message = refused({ PORT: 'abc', LOG_LEVEL: 'loud', REDIS_URL: 'http://x', BASE_URL: 'notaurl', JWT_SECRET: 'short' });
    for (const name of ['PORT', 'LOG_LEVEL', 'REDIS_URL', 'BASE_URL', 'JWT_SECRET']) assert.ok(message.includes(name), `${name} missing from: ${message}`);
  });

  test('a refused configuration writes nothing to the data dir', () => {
    const dir = join(tempDir(), 'data');
    refused({ DATA_DIR: dir, PORT: 'abc' });
    assert.throws(() => statSync(join(dir, 'jwt-secret')), { code: 'ENOENT' });
  });
});

describe('generated JWT secret (embedded mode)', () => {
  test('is created in DATA_DIR with mode 600 and reused on the next start', () => {
    const dir = join(tempDir(), 'nested', 'data');
    const first = loadConfig({ DATA_DIR: dir });
    const file = join(dir, 'jwt-secret');
    const st = statSync(file);
    assert.equal(st.mode & 0o777, 0o600);
    assert.equal(readFileSync(file, 'utf8').trim(), first.jwtSecret);
    assert.ok(first.jwtSecret.length >= 32);
    const second = loadConfig({ DATA_DIR: dir });
    assert.equal(second.jwtSecret, first.jwtSecret);
    assert.equal(second.cursorSecret, first.cursorSecret);
  });

  test('differs between data dirs', () => {
    assert.notEqual(loadConfig({ DATA_DIR: tempDir() }).jwtSecret, loadConfig({ DATA_DIR: tempDir() }).jwtSecret);
  });

  test('a truncated secret file stops the start with a message naming the file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'jwt-secret'), 'short\n');
    assert.throws(() => loadConfig({ DATA_DIR: dir }), (err: Error) => err instanceof ConfigError && /jwt-secret/.test(err.message) && /32/.test(err.message));
  });

  test('an explicit JWT_SECRET wins and nothing is written', () => {
    const dir = tempDir();
    assert.equal(loadConfig({ DATA_DIR: dir, JWT_SECRET: SECRET }).jwtSecret, SECRET);
    assert.throws(() => statSync(join(dir, 'jwt-secret')), { code: 'ENOENT' });
  });
});

describe('referral program', () => {
  test('defaults: R$ 50,00 at R$ 1.000,00 of sales, 10% of the fee for 12 months, 7 guarantee days, BASE_URL/cadastro', () => {
    assert.deepEqual(loadConfig({ JWT_SECRET: SECRET, BASE_URL: 'https://api.cofre.com.br' }).referrals, {
      fixedRewardCents: 5000,
      salesThresholdCents: 100_000,
      commissionBp: 1000,
      commissionMonths: 12,
      guaranteeDays: 7,
      signupUrl: 'https://api.cofre.com.br/cadastro',
    });
    const c = loadConfig({ JWT_SECRET: SECRET, REFERRAL_FIXED_REWARD_CENTS: '0', REFERRAL_COMMISSION_BP: '2500', REFERRAL_COMMISSION_MONTHS: '6', REFERRAL_SIGNUP_URL: 'https://app.cofre.com.br/criar-conta' });
    assert.equal(c.referrals.fixedRewardCents, 0);
    assert.equal(c.referrals.commissionBp, 2500);
    assert.equal(c.referrals.commissionMonths, 6);
    assert.equal(c.referrals.signupUrl, 'https://app.cofre.com.br/criar-conta');
  });

  test('out-of-range values are refused, each named', () => {
    const msg = refused({ JWT_SECRET: SECRET, REFERRAL_COMMISSION_BP: '10001', REFERRAL_COMMISSION_MONTHS: '0', REFERRAL_SALES_THRESHOLD_CENTS: '0', REFERRAL_GUARANTEE_DAYS: '-1', REFERRAL_FIXED_REWARD_CENTS: 'x', REFERRAL_SIGNUP_URL: 'ftp://x' });
    for (const name of ['REFERRAL_COMMISSION_BP', 'REFERRAL_COMMISSION_MONTHS', 'REFERRAL_SALES_THRESHOLD_CENTS', 'REFERRAL_GUARANTEE_DAYS', 'REFERRAL_FIXED_REWARD_CENTS', 'REFERRAL_SIGNUP_URL']) assert.match(msg, new RegExp(name));
  });
});

describe('history retention', () => {
  test('defaults, given values, and a key kept less than its 24 h refused', () => {
    assert.deepEqual(loadConfig({ JWT_SECRET: SECRET }).retention, { eventDays: 90, webhookDeliveryDays: 30, emailDays: 90, idempotencyHours: 48 });
    const c = loadConfig({ JWT_SECRET: SECRET, EVENT_RETENTION_DAYS: '400', WEBHOOK_DELIVERY_RETENTION_DAYS: '7', EMAIL_RETENTION_DAYS: '30', IDEMPOTENCY_RETENTION_HOURS: '24' });
    assert.deepEqual(c.retention, { eventDays: 400, webhookDeliveryDays: 7, emailDays: 30, idempotencyHours: 24 });
    const msg = refused({ JWT_SECRET: SECRET, IDEMPOTENCY_RETENTION_HOURS: '12', EVENT_RETENTION_DAYS: '0' });
    for (const name of ['IDEMPOTENCY_RETENTION_HOURS', 'EVENT_RETENTION_DAYS']) assert.match(msg, new RegExp(name));
  });
});
