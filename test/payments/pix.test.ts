import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildBrCode, crc16, newTxid, parseBrCode, type BrCodeInput } from '../../src/payments/pix.ts';

const VECTOR =
  '00020126650014br.gov.bcb.pix0119nubank@thalesog.com0220Gerado por Pix-Utils52040000530398654041.005802BR5914Thales Ogliari6009Sao Paulo62070503***63046069';

const TXID = 'ABCDEFGHIJKLMNOPQRSTUVWXY';
const base: BrCodeInput = {
  pixKey: 'loja@example.com',
  merchantName: 'Loja Exemplo',
  merchantCity: 'Curitiba',
  amountCents: 1050,
  txid: TXID,
};

test('crc16 is CCITT-FALSE (check value of "123456789" is 29B1)', () => {
  assert.equal(crc16('123456789'), '29B1');
  assert.equal(crc16(''), 'FFFF');
});

test('public vector: CRC and parse', () => {
  assert.equal(crc16(VECTOR.slice(0, -4)), '6069');
  const p = parseBrCode(VECTOR);
  assert.equal(p.crcValid, true);
  assert.deepEqual(p.merchantAccount, {
    gui: 'br.gov.bcb.pix',
    key: 'nubank@thalesog.com',
    description: 'Gerado por Pix-Utils',
  });
  assert.equal(p.amountCents, 100);
  assert.equal(p.merchantName, 'Thales Ogliari');
  assert.equal(p.merchantCity, 'Sao Paulo');
  assert.equal(p.txid, '***');
  assert.equal(p.fields['00'], '01');
  assert.equal(p.fields['52'], '0000');
  assert.equal(p.fields['53'], '986');
  assert.equal(p.fields['58'], 'BR');
  assert.equal(p.fields['63'], '6069');
});

test('built code has the expected layout and round-trips', () => {
  const code = buildBrCode({ ...base, description: 'Pedido 42' });
  assert.equal(
    code.slice(0, -4),
    '000201010212' +
      '2651' + '0014br.gov.bcb.pix' + '0116loja@example.com' + '0209Pedido 42' +
      '52040000' + '5303986' + '540510.50' + '5802BR' + '5912Loja Exemplo' + '6008Curitiba' +
      '6229' + '0525' + TXID +
      '6304',
  );
  const p = parseBrCode(code);
  assert.equal(p.crcValid, true);
  assert.deepEqual(p.merchantAccount, { gui: 'br.gov.bcb.pix', key: base.pixKey, description: 'Pedido 42' });
  assert.equal(p.amountCents, 1050);
  assert.equal(p.merchantName, 'Loja Exemplo');
  assert.equal(p.merchantCity, 'Curitiba');
  assert.equal(p.txid, TXID);
  assert.equal(p.fields['01'], '12');
  // Without description, subfield 02 is omitted.
  assert.deepEqual(parseBrCode(buildBrCode(base)).merchantAccount, { gui: 'br.gov.bcb.pix', key: base.pixKey });
});

test('amount formatting', () => {
  for (const [cents, text] of [[1, '0.01'], [100, '1.00'], [1050, '10.50'], [123456789, '1234567.89']] as const) {
    const p = parseBrCode(buildBrCode({ ...base, amountCents: cents }));
    assert.equal(p.fields['54'], text);
    assert.equal(p.amountCents, cents);
  }
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => buildBrCode({ ...base, amountCents: bad }), RangeError);
  }
});

test('name > 25 and city > 15 are truncated; accents are stripped', () => {
  const p = parseBrCode(
    buildBrCode({ ...base, merchantName: 'Padaria e Confeitaria São João do Açaí', merchantCity: 'São José dos Campos' }),
  );
  assert.equal(p.merchantName, 'Padaria e Confeitaria Sao');
  assert.equal(p.merchantName.length, 25);
  assert.equal(p.merchantCity, 'Sao Jose dos Ca');
  assert.equal(p.merchantCity.length, 15);
  const q = parseBrCode(buildBrCode({ ...base, merchantName: 'Açaí Ñandú Ôça', merchantCity: 'Maceió', description: 'Lição nº 1' }));
  assert.equal(q.merchantName, 'Acai Nandu Oca');
  assert.equal(q.merchantCity, 'Maceio');
  assert.equal(q.merchantAccount.description, 'Licao no 1');
  assert.equal(q.crcValid, true);
});

test('invalid txid throws', () => {
  for (const txid of ['', '***', TXID.slice(1), TXID + 'Z', TXID.slice(1) + '-', TXID.slice(1) + 'ç']) {
    assert.throws(() => buildBrCode({ ...base, txid }), RangeError, txid);
  }
});

test('field values longer than 99 throw', () => {
  assert.throws(() => buildBrCode({ ...base, pixKey: 'k'.repeat(100) }), RangeError);
  // Template 26 overflows even though each subfield fits.
  assert.throws(() => buildBrCode({ ...base, pixKey: 'k'.repeat(60), description: 'd'.repeat(30) }), RangeError);
});

test('newTxid returns 25 random alphanumerics', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const t = newTxid();
    assert.match(t, /^[A-Za-z0-9]{25}$/);
    seen.add(t);
  }
  assert.equal(seen.size, 200);
  assert.doesNotThrow(() => buildBrCode({ ...base, txid: newTxid() }));
});

test('parser rejects malformed TLV', () => {
  assert.throws(() => parseBrCode(VECTOR.slice(0, -1)), SyntaxError); // last field too short
  assert.throws(() => parseBrCode('0002010'), SyntaxError); // truncated header
  assert.throws(() => parseBrCode('00020X'), SyntaxError);
  assert.throws(() => parseBrCode('000201000201'), SyntaxError); // duplicate id
  assert.throws(() => parseBrCode(VECTOR.replace('26650014', '26650015')), SyntaxError); // nested overrun
  assert.throws(() => parseBrCode(VECTOR.replace('br.gov.bcb.pix', 'br.gov.bcb.xip')), SyntaxError); // no PIX GUI
});

// ---- properties --------------------------------------------------------------------

const alnum = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.split(''));
const digit = fc.constantFrom(...'0123456789'.split(''));
const txidArb = fc.string({ unit: alnum, minLength: 25, maxLength: 25 });
const keyArb = fc.oneof(
  fc.emailAddress().filter((e) => e.length <= 40),
  fc.uuid(),
  fc.string({ unit: digit, minLength: 11, maxLength: 11 }).map((d) => `+55${d}`),
  fc.string({ unit: digit, minLength: 11, maxLength: 14 }),
);
// Words drawn from (accented, expected ASCII) pairs, so the expected sanitised text is
// computed here independently of the module under test.
const letter = fc.constantFrom<[string, string]>(
  ['a', 'a'], ['á', 'a'], ['ã', 'a'], ['â', 'a'], ['ç', 'c'], ['Ç', 'C'], ['é', 'e'], ['ê', 'e'],
  ['í', 'i'], ['ó', 'o'], ['õ', 'o'], ['ú', 'u'], ['ü', 'u'], ['Z', 'Z'], ['7', '7'], ['&', '&'],
);
const textArb = fc
  .array(fc.array(letter, { minLength: 1, maxLength: 9 }), { minLength: 1, maxLength: 6 })
  .map((words) => ({
    raw: words.map((w) => w.map(([r]) => r).join('')).join(' '),
    ascii: words.map((w) => w.map(([, a]) => a).join('')).join(' '),
  }));
const truncate = (s: string, max: number) => s.slice(0, max).trimEnd();

const inputArb = fc.record({
  pixKey: keyArb,
  name: textArb,
  city: textArb,
  amountCents: fc.integer({ min: 1, max: 99_999_999_99 }),
  txid: txidArb,
  description: fc.option(fc.string({ unit: alnum, minLength: 1, maxLength: 30 }), { nil: undefined }),
});

test('property: built codes parse back to the same values with a valid CRC', () => {
  fc.assert(
    fc.property(inputArb, (i) => {
      const code = buildBrCode({
        pixKey: i.pixKey,
        merchantName: i.name.raw,
        merchantCity: i.city.raw,
        amountCents: i.amountCents,
        txid: i.txid,
        description: i.description,
      });
      const p = parseBrCode(code);
      assert.equal(p.crcValid, true);
      assert.equal(p.merchantAccount.gui, 'br.gov.bcb.pix');
      assert.equal(p.merchantAccount.key, i.pixKey);
      assert.equal(p.merchantAccount.description, i.description);
      assert.equal(p.amountCents, i.amountCents);
      assert.equal(p.merchantName, truncate(i.name.ascii, 25));
      assert.equal(p.merchantCity, truncate(i.city.ascii, 15));
      assert.equal(p.txid, i.txid);
      assert.match(code, /^[\x20-\x7E]+$/);
    }),
    { numRuns: 500 },
  );
});

test('property: changing any one character breaks the CRC (or the parse)', () => {
  const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
  fc.assert(
    fc.property(inputArb, fc.nat(), printable, (i, at, ch) => {
      const code = buildBrCode({
        pixKey: i.pixKey,
        merchantName: i.name.raw,
        merchantCity: i.city.raw,
        amountCents: i.amountCents,
        txid: i.txid,
        description: i.description,
      });
      const pos = at % code.length;
      fc.pre(code[pos] !== ch);
      const mutated = code.slice(0, pos) + ch + code.slice(pos + 1);
      let valid = false;
      try {
        valid = parseBrCode(mutated).crcValid;
      } catch {
        valid = false;
      }
      assert.equal(valid, false, `mutation at ${pos} went undetected`);
    }),
    { numRuns: 2000 },
  );
});
