// TOTP against RFC 6238's published test vectors (Appendix B, SHA-1, 8 digits) and RFC 4226's HOTP
// values (Appendix D), plus the window and replay rules the login relies on.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { base32Decode, base32Encode, hotp, matchStep, otpauthUri, stepAt, totp } from '../src/modules/auth/totp.ts';

const SECRET = Buffer.from('12345678901234567890', 'ascii');

describe('TOTP (RFC 6238)', () => {
  test('Appendix B: SHA-1, 8 digits', () => {
    const vectors: [number, string][] = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [seconds, code] of vectors) assert.equal(totp(SECRET, seconds * 1000, 8), code, `T=${seconds}`);
  });

  test('RFC 4226 Appendix D: HOTP, 6 digits', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expected.forEach((code, counter) => assert.equal(hotp(SECRET, counter), code));
  });

  test('base32 round trip and the RFC 4648 example', () => {
    assert.equal(base32Encode(Buffer.from('foobar')), 'MZXW6YTBOI');
    assert.deepEqual(base32Decode('mzxw 6ytb oi======'), Buffer.from('foobar'));
    assert.throws(() => base32Decode('MZ1'));
    assert.equal(base32Encode(SECRET), 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  });

  test('a code is accepted one step either side, not two', () => {
    const t = 1111111111_000;
    const now = stepAt(t);
    assert.equal(matchStep(SECRET, totp(SECRET, t), t, null), now);
    assert.equal(matchStep(SECRET, totp(SECRET, t - 30_000), t, null), now - 1);
    assert.equal(matchStep(SECRET, totp(SECRET, t + 30_000), t, null), now + 1);
    assert.equal(matchStep(SECRET, totp(SECRET, t - 60_000), t, null), null);
    assert.equal(matchStep(SECRET, 'abcdef', t, null), null);
    assert.equal(matchStep(SECRET, '12345', t, null), null);
  });

  test('a step already used (or an earlier one) is refused', () => {
    const t = 1234567890_000;
    const code = totp(SECRET, t);
    assert.equal(matchStep(SECRET, code, t, stepAt(t)), null);
    assert.equal(matchStep(SECRET, totp(SECRET, t - 30_000), t, stepAt(t)), null);
    assert.equal(matchStep(SECRET, totp(SECRET, t + 30_000), t, stepAt(t)), stepAt(t) + 1);
  });

  test('otpauth URI carries the secret, issuer and parameters', () => {
    const uri = new URL(otpauthUri('JBSWY3DPEHPK3PXP', 'ana@example.com', 'Cofre'));
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.host, 'totp');
    assert.equal(decodeURIComponent(uri.pathname), '/Cofre:ana@example.com');
    assert.equal(uri.searchParams.get('secret'), 'JBSWY3DPEHPK3PXP');
    assert.equal(uri.searchParams.get('issuer'), 'Cofre');
    assert.equal(uri.searchParams.get('digits'), '6');
    assert.equal(uri.searchParams.get('period'), '30');
  });
});
