import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  barcodeToLine,
  buildBoleto,
  dateFromFactor,
  dueFactor,
  formatDigitableLine,
  interleaved2of5,
  lineToBarcode,
  parseBarcode,
  validateDigitableLine,
} from '../../src/payments/boleto.ts';

const LINE = '03399632906400000000600125201020456140000017832';
const BARCODE = '03394561400000178329632964000000000012520102';
const DAY = 86_400_000;
const utcDay = (ymd: string) => Date.parse(`${ymd}T00:00:00Z`) / DAY;

test('public vector: line <-> barcode', () => {
  assert.equal(lineToBarcode(LINE), BARCODE);
  assert.equal(barcodeToLine(BARCODE), LINE);
  assert.equal(validateDigitableLine(LINE), true);
  assert.deepEqual(parseBarcode(BARCODE), {
    bankCode: '033',
    currency: '9',
    checkDigit: '4',
    dueFactor: 5614,
    amountCents: 17832,
    freeField: '9632964000000000012520102',
    valid: true,
  });
  assert.equal(formatDigitableLine(LINE), '03399.63290 64000.000006 00125.201020 4 56140000017832');
  assert.equal(lineToBarcode(formatDigitableLine(LINE)), BARCODE);
  assert.equal(validateDigitableLine(formatDigitableLine(LINE)), true);
  // Rebuilding it from its parts gives the same codes.
  assert.deepEqual(
    buildBoleto({ bankCode: '033', dueDate: dateFromFactor(5614, '2013-01-01'), amountCents: 17832, freeField: '9632964000000000012520102' }),
    { barcode: BARCODE, digitableLine: LINE },
  );
});

test('dueFactor', () => {
  assert.equal(dueFactor('1997-10-07'), 0);
  assert.equal(dueFactor('1997-10-08'), 1);
  assert.equal(dueFactor('2025-02-21'), 9999);
  assert.equal(dueFactor('2025-02-22'), 1000);
  assert.equal(dueFactor('2026-11-21'), 1000 + (Date.UTC(2026, 10, 21) - Date.UTC(2025, 1, 22)) / DAY);
  assert.equal(dueFactor('2026-11-21'), 1637);
  // Next wrap, 9000 days after 2025-02-22.
  const wrap = new Date(Date.UTC(2025, 1, 22) + 9000 * DAY).toISOString().slice(0, 10);
  assert.equal(dueFactor(wrap), 1000);
  // Dates are São Paulo calendar dates: 02:00Z on the 22nd is still the 21st there.
  assert.equal(dueFactor(new Date('2025-02-22T02:00:00Z')), 9999);
  assert.equal(dueFactor(new Date('2025-02-22T03:00:00Z')), 1000);
  assert.throws(() => dueFactor('1997-10-06'), RangeError);
  assert.throws(() => dueFactor('2025-02-30'), RangeError);
  assert.throws(() => dueFactor('2025-2-3'), RangeError);
});

test('dateFromFactor picks the date closest to the reference', () => {
  assert.equal(dateFromFactor(9999, '2025-03-01'), '2025-02-21');
  assert.equal(dateFromFactor(1000, '2025-03-01'), '2025-02-22');
  assert.equal(dateFromFactor(1000, '2000-01-01'), '2000-07-03');
  assert.equal(dateFromFactor(5614, '2013-01-01'), '2013-02-19');
  assert.equal(dateFromFactor(1637, '2026-01-01'), '2026-11-21');
  assert.equal(dateFromFactor(0, '2026-01-01'), '1997-10-07');
  assert.equal(dateFromFactor(1637, new Date('2026-06-01T12:00:00Z')), '2026-11-21');
  assert.throws(() => dateFromFactor(10000), RangeError);
});

test('buildBoleto validates its input', () => {
  const ok = { bankCode: '001', dueDate: '2026-11-21', amountCents: 100, freeField: '0'.repeat(25) };
  assert.doesNotThrow(() => buildBoleto(ok));
  assert.throws(() => buildBoleto({ ...ok, bankCode: '01' }), RangeError);
  assert.throws(() => buildBoleto({ ...ok, freeField: '0'.repeat(24) }), RangeError);
  assert.throws(() => buildBoleto({ ...ok, amountCents: -1 }), RangeError);
  assert.throws(() => buildBoleto({ ...ok, amountCents: 1.5 }), RangeError);
  assert.throws(() => buildBoleto({ ...ok, amountCents: 10_000_000_000 }), RangeError);
  assert.throws(() => buildBoleto({ ...ok, dueDate: '21/11/2026' }), RangeError);
  assert.equal(validateDigitableLine('123'), false);
  assert.equal(validateDigitableLine(LINE.slice(0, 46) + 'x'), false);
});

// ---- properties --------------------------------------------------------------------

const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: n, maxLength: n });
// From the first 1000 factor (2000-07-03) to ~2070.
const dateArb = fc.integer({ min: utcDay('2000-07-03'), max: utcDay('2070-12-31') }).map((d) => new Date(d * DAY).toISOString().slice(0, 10));
const boletoArb = fc.record({
  bankCode: digits(3),
  dueDate: dateArb,
  amountCents: fc.integer({ min: 0, max: 9_999_999_999 }),
  freeField: digits(25),
});

test('property: build -> parse back equal; line <-> barcode round-trip', () => {
  fc.assert(
    fc.property(boletoArb, fc.integer({ min: -4000, max: 4000 }), (input, shift) => {
      const { barcode, digitableLine } = buildBoleto(input);
      assert.match(barcode, /^\d{44}$/);
      assert.match(digitableLine, /^\d{47}$/);
      const p = parseBarcode(barcode);
      assert.equal(p.valid, true);
      assert.equal(p.bankCode, input.bankCode);
      assert.equal(p.currency, '9');
      assert.equal(p.amountCents, input.amountCents);
      assert.equal(p.freeField, input.freeField);
      const reference = new Date((utcDay(input.dueDate) + shift) * DAY).toISOString().slice(0, 10);
      assert.equal(dateFromFactor(p.dueFactor, reference), input.dueDate);
      assert.equal(lineToBarcode(digitableLine), barcode);
      assert.equal(barcodeToLine(barcode), digitableLine);
      assert.equal(validateDigitableLine(digitableLine), true);
    }),
    { numRuns: 1000 },
  );
});

// Independent mod-11 remainder of a barcode (weights 2..9 from the right, skipping the dv).
function remainder(barcode: string): number {
  const d = barcode.slice(0, 4) + barcode.slice(5);
  let sum = 0;
  for (let i = 0; i < 43; i++) sum += Number(d[42 - i]) * (2 + (i % 8));
  return sum % 11;
}

test('property: any single changed digit of the line is rejected', () => {
  // FEBRABAN maps remainders 0, 1 and 10 all to dv 1, so a change inside field 5
  // (positions 33..46, protected only by the general dv) that moves the remainder
  // between those values cannot be detected by any validator. Fields 1-4 are
  // always caught (mod 10 is exact for single substitutions; field 4 is the dv).
  const COLLAPSE = new Set([0, 1, 10]);
  fc.assert(
    fc.property(boletoArb, fc.integer({ min: 0, max: 46 }), fc.integer({ min: 1, max: 9 }), (input, pos, delta) => {
      const { barcode, digitableLine } = buildBoleto(input);
      const changed = String((Number(digitableLine[pos]) + delta) % 10);
      const mutated = digitableLine.slice(0, pos) + changed + digitableLine.slice(pos + 1);
      const undetectable = pos >= 33 && COLLAPSE.has(remainder(barcode)) && COLLAPSE.has(remainder(lineToBarcode(mutated)));
      assert.equal(validateDigitableLine(mutated), undetectable, `position ${pos}`);
    }),
    { numRuns: 5000 },
  );
});

test('the mod-11 collapse is real: some single-digit field-5 changes are undetectable', () => {
  // Demonstrates the limitation documented above with concrete lines.
  const { digitableLine } = buildBoleto({ bankCode: '001', dueDate: '2026-11-21', amountCents: 0, freeField: '0'.repeat(25) });
  const undetected: string[] = [];
  for (let pos = 33; pos < 47; pos++) {
    for (let d = 0; d <= 9; d++) {
      const mutated = digitableLine.slice(0, pos) + d + digitableLine.slice(pos + 1);
      if (mutated !== digitableLine && validateDigitableLine(mutated)) undetected.push(mutated);
    }
  }
  assert.ok(undetected.length > 0);
  for (const line of undetected) assert.equal(lineToBarcode(line)[4], '1');
});

test('interleaved2of5 SVG', () => {
  const svg = interleaved2of5(BARCODE);
  const rects = svg.match(/<rect /g) ?? [];
  assert.equal(rects.length, 2 + (44 / 2) * 5 + 2);
  assert.ok(svg.startsWith('<svg '));
  assert.ok(svg.endsWith('</svg>'));
  assert.ok(svg.includes(`aria-label="${BARCODE}"`));
  assert.ok(svg.includes(`<title>${BARCODE}</title>`));
  // Width: 10+10 quiet, start 4, stop 3+1+1, each digit 3 narrow + 2 wide (3 each) = 9.
  assert.ok(svg.includes(`width="${20 + 4 + 44 * 9 + 5}" height="50"`));
  // Bars: start n,n; the stop's wide bar then narrow bar; wide bars are 3x narrow.
  const widths = [...svg.matchAll(/<rect x="\d+" y="0" width="(\d+)"/g)].map((m) => Number(m[1]));
  assert.deepEqual(widths.slice(0, 2), [1, 1]);
  assert.deepEqual(widths.slice(-2), [3, 1]);
  assert.deepEqual(new Set(widths), new Set([1, 3]));
  // Each digit pair has exactly 2 wide bars (the first digit's pattern).
  assert.equal(widths.filter((w) => w === 3).length, 22 * 2 + 1);
  // Pair "12": bars = digit 1 (wnnnw); spaces = digit 2 (nwnnw).
  const one = interleaved2of5('12', { narrow: 2, height: 60 });
  const xs = [...one.matchAll(/<rect x="(\d+)" y="0" width="(\d+)" height="60"/g)].map((m) => [Number(m[1]), Number(m[2])]);
  assert.deepEqual(xs, [[20, 2], [24, 2], [28, 6], [36, 2], [44, 2], [48, 2], [52, 6], [64, 6], [72, 2]]);
  assert.throws(() => interleaved2of5('123'), RangeError);
  assert.throws(() => interleaved2of5(''), RangeError);
});
