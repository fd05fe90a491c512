import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  formatDocument,
  generateCnpj,
  generateCpf,
  isValidCnpj,
  isValidCpf,
  maskDocument,
  onlyDigitsAndLetters,
  validateDocument,
} from '../../src/payments/documents.ts';

const DIGITS = '0123456789';
const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A deterministic `rand` fed by fast-check values (cycled if the generator asks for more). */
const randArb = fc
  .array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 12, maxLength: 12 })
  .map((values) => {
    let i = 0;
    return () => values[i++ % values.length];
  });

const value = (c: string): number => c.charCodeAt(0) - 48;
const replaceAt = (s: string, i: number, c: string): string => s.slice(0, i) + c + s.slice(i + 1);

describe('onlyDigitsAndLetters', () => {
  it('strips formatting and uppercases', () => {
    assert.equal(onlyDigitsAndLetters(' 12.abc.345/01de-35 '), '12ABC34501DE35');
    assert.equal(onlyDigitsAndLetters('123.456.789-09'), '12345678909');
    assert.equal(onlyDigitsAndLetters('12_34'), '12_34'); // other characters are kept
  });
});

describe('CPF', () => {
  it('accepts known valid CPFs, with or without punctuation', () => {
    for (const cpf of ['12345678909', '123.456.789-09', '529.982.247-25', '11144477735', ' 111 444 777 35 ']) {
      assert.equal(isValidCpf(cpf), true, cpf);
    }
    assert.deepEqual(validateDocument('529.982.247-25'), { ok: true, kind: 'CPF', normalized: '52998224725' });
  });

  it('rejects wrong check digits, repeated digits, bad length and letters', () => {
    for (const cpf of ['12345678900', '12345678919', '52998224752', '1234567890', '123456789091', '1234567890A', '123.456.789_09']) {
      assert.equal(isValidCpf(cpf), false, cpf);
    }
    for (const d of DIGITS) assert.equal(isValidCpf(d.repeat(11)), false, d.repeat(11));
    assert.deepEqual(validateDocument('123.456.789-00'), { ok: false, reason: 'Invalid CPF check digits' });
    assert.deepEqual(validateDocument('111.111.111-11'), { ok: false, reason: 'CPF with all digits equal' });
    assert.equal(validateDocument('1234567890A').ok, false);
  });
});

describe('CNPJ', () => {
  it('accepts known valid numeric CNPJs', () => {
    for (const cnpj of ['11222333000181', '11.222.333/0001-81', '11.444.777/0001-61']) {
      assert.equal(isValidCnpj(cnpj), true, cnpj);
    }
  });

  it('accepts the Receita Federal alphanumeric example, formatted and lowercase', () => {
    for (const cnpj of ['12ABC34501DE35', '12.ABC.345/01DE-35', '12abc34501de35', '12.abc.345/01de-35']) {
      assert.equal(isValidCnpj(cnpj), true, cnpj);
      assert.deepEqual(validateDocument(cnpj), { ok: true, kind: 'CNPJ', normalized: '12ABC34501DE35' });
    }
  });

  it('rejects wrong check digits, repeated characters, letters in check digits, bad length', () => {
    for (const cnpj of ['11222333000182', '12ABC34501DE36', '12ABC34501DE53', '12ABC34501DE3A', '1222333000181', '112223330001811', '12ABC34501DE3$']) {
      assert.equal(isValidCnpj(cnpj), false, cnpj);
    }
    for (const c of ALPHANUMERIC) assert.equal(isValidCnpj(c.repeat(14)), false, c.repeat(14));
    assert.deepEqual(validateDocument('00000000000000'), { ok: false, reason: 'CNPJ with all characters equal' });
    assert.deepEqual(validateDocument('11111111111111'), { ok: false, reason: 'CNPJ with all characters equal' });
    assert.deepEqual(validateDocument('12ABC34501DE36'), { ok: false, reason: 'Invalid CNPJ check digits' });
    assert.equal(validateDocument('12ABC34501DE3A').ok, false);
  });
});

describe('validateDocument', () => {
  it('rejects other lengths and characters', () => {
    for (const s of ['', '123', '123456789012', '1234567890123456', '529.982.247-2#', '52998224725+']) {
      assert.equal(validateDocument(s).ok, false, s);
    }
    // CPF and CNPJ are never cross-validated
    assert.equal(isValidCnpj('52998224725'), false);
    assert.equal(isValidCpf('11222333000181'), false);
  });
});

describe('formatDocument / maskDocument', () => {
  it('formats CPF and CNPJ', () => {
    assert.equal(formatDocument('12345678909'), '123.456.789-09');
    assert.equal(formatDocument('12abc34501de35'), '12.ABC.345/01DE-35');
    assert.equal(formatDocument('123'), '123');
  });

  it('masks the first and last characters', () => {
    assert.equal(maskDocument('123.456.789-09'), '***.456.789-**');
    assert.equal(maskDocument('12.ABC.345/01DE-35'), '**.ABC.345/01DE-**');
    assert.equal(maskDocument('11222333000181'), '**.222.333/0001-**');
    assert.equal(maskDocument('12345'), '*****');
  });
});

describe('properties', () => {
  const kinds = [
    { name: 'CPF', gen: (r: () => number) => generateCpf(r), valid: isValidCpf, body: 9, alphabet: DIGITS },
    { name: 'numeric CNPJ', gen: (r: () => number) => generateCnpj(r), valid: isValidCnpj, body: 12, alphabet: DIGITS },
    {
      name: 'alphanumeric CNPJ',
      gen: (r: () => number) => generateCnpj(r, { alphanumeric: true }),
      valid: isValidCnpj,
      body: 12,
      alphabet: ALPHANUMERIC,
    },
  ];

  for (const k of kinds) {
    it(`generated ${k.name} is valid, well-formed and round-trips through formatting`, () => {
      fc.assert(
        fc.property(randArb, (rand) => {
          const doc = k.gen(rand);
          assert.equal(doc.length, k.body + 2);
          assert.match(doc.slice(0, k.body), new RegExp(`^[${k.alphabet}]+$`));
          assert.match(doc.slice(k.body), /^\d\d$/);
          assert.equal(k.valid(doc), true);
          assert.equal(k.valid(formatDocument(doc)), true);
          assert.equal(k.valid(doc.toLowerCase()), true);
          assert.deepEqual(validateDocument(doc), { ok: true, kind: k.body === 9 ? 'CPF' : 'CNPJ', normalized: doc });
        }),
      );
    });

    it(`${k.name}: changing a check digit always invalidates`, () => {
      fc.assert(
        fc.property(randArb, fc.integer({ min: 0, max: 1 }), fc.integer({ min: 1, max: 9 }), (rand, pos, shift) => {
          const doc = k.gen(rand);
          const i = k.body + pos;
          const mutated = replaceAt(doc, i, DIGITS[(DIGITS.indexOf(doc[i]) + shift) % 10]);
          assert.equal(k.valid(mutated), false, `${doc} -> ${mutated}`);
        }),
      );
    });

    // Mod-11 cannot catch every substitution: check digit = r < 2 ? 0 : 11 - r,
    // so remainders 0 and 1 collide, and (alphanumeric) characters whose values
    // are congruent mod 11 ('6' = 6, 'A' = 17, 'L' = 28, 'W' = 39) weigh the
    // same. A body substitution is guaranteed to be caught when the first
    // check digit is not 0 and the values differ mod 11 (all weights are in
    // 2..10, coprime with 11, so the first remainder must change).
    it(`${k.name}: changing a body character invalidates (outside the mod-11 blind spots)`, () => {
      fc.assert(
        fc.property(
          randArb,
          fc.integer({ min: 0, max: k.body - 1 }),
          fc.integer({ min: 1, max: k.alphabet.length - 1 }),
          (rand, i, shift) => {
            const doc = k.gen(rand);
            const c = k.alphabet[(k.alphabet.indexOf(doc[i]) + shift) % k.alphabet.length];
            fc.pre(doc[k.body] !== '0' && (value(c) - value(doc[i])) % 11 !== 0);
            const mutated = replaceAt(doc, i, c);
            assert.equal(k.valid(mutated), false, `${doc} -> ${mutated}`);
          },
        ),
      );
    });

    it(`${k.name}: the mask never reveals the full document`, () => {
      fc.assert(
        fc.property(randArb, (rand) => {
          const doc = k.gen(rand);
          const masked = maskDocument(doc);
          const visible = onlyDigitsAndLetters(masked.replaceAll('*', ''));
          assert.ok(!masked.includes(doc) && !masked.includes(formatDocument(doc)));
          assert.equal(visible.length, k.body + 2 - (k.body === 9 ? 5 : 4));
          assert.ok(doc.includes(visible)); // only a middle slice is shown
          assert.equal(masked.slice(-2), '**'); // check digits hidden
        }),
      );
    });
  }

  it('documents the known mod-11 blind spots (accepted by design of the official algorithm)', () => {
    // 'G' (71 - 48 = 23) is congruent to '1' mod 11.
    assert.equal(isValidCnpj('G2ABC34501DE35'), true);
    // First check digit 0 with remainder 0 -> 1 on the first CPF position.
    assert.equal(isValidCpf('10585074003'), true);
    assert.equal(isValidCpf('00585074003'), true);
  });
});
