import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  detectBrand,
  last4,
  luhnValid,
  priceTableInstallments,
  validateCard,
  type CardInput,
} from '../../src/payments/card.ts';

/** Appends the Luhn check digit to `partial` (independent of the module's implementation). */
function withLuhn(partial: string): string {
  for (let d = 0; d <= 9; d++) {
    const candidate = partial + d;
    const sum = [...candidate]
      .reverse()
      .map((c, i) => (i % 2 ? [0, 2, 4, 6, 8, 1, 3, 5, 7, 9][Number(c)] : Number(c)))
      .reduce((a, b) => a + b, 0);
    if (sum % 10 === 0) return candidate;
  }
  throw new Error('unreachable');
}

describe('luhnValid', () => {
  it('known vectors', () => {
    for (const n of ['4242424242424242', '4000000000000002', '4000000000009995', '378282246310005', '36227206271667']) {
      assert.equal(luhnValid(n), true, n);
    }
    for (const n of ['4242424242424241', '4000000000000001', '']) assert.equal(luhnValid(n), false, n);
  });

  it('digits only, 12..19 long', () => {
    assert.equal(luhnValid('4242 4242 4242 4242'), false);
    assert.equal(luhnValid(withLuhn('4'.repeat(10))), false); // 11 digits
    assert.equal(luhnValid(withLuhn('4'.repeat(11))), true); // 12 digits
    assert.equal(luhnValid(withLuhn('4'.repeat(18))), true); // 19 digits
    assert.equal(luhnValid(withLuhn('4'.repeat(19))), false); // 20 digits
  });

  it('property: the appended check digit is the only valid one', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 11, maxLength: 18 }), (partial) => {
        const good = withLuhn(partial);
        assert.equal(luhnValid(good), true);
        for (let d = 0; d <= 9; d++) if (String(d) !== good.at(-1)) assert.equal(luhnValid(partial + d), false);
      }),
    );
  });
});

describe('detectBrand', () => {
  it('typical numbers', () => {
    const cases: Array<[string, string | null]> = [
      ['4242424242424242', 'VISA'],
      ['4000000000000002', 'VISA'],
      ['5555555555554444', 'MASTERCARD'],
      ['2223003122003222', 'MASTERCARD'],
      ['378282246310005', 'AMEX'],
      ['341111111111111', 'AMEX'],
      ['36227206271667', 'DINERS'],
      ['30569309025904', 'DINERS'],
      ['6362970000457013', 'ELO'],
      ['5067224275805500', 'ELO'],
      ['6062825624254001', 'HIPERCARD'],
      ['3841001111222233', 'HIPERCARD'], // 384100 is Hipercard, not Diners (38)
      ['6011111111111117', null], // Discover: not accepted
      ['9999999999999995', null],
      ['4242-4242', null],
    ];
    for (const [n, brand] of cases) assert.equal(detectBrand(n), brand, n);
  });

  it('Elo BINs inside the Visa range are Elo', () => {
    for (const bin of ['401178', '401179', '431274', '438935', '451416', '457393', '457631', '457632']) {
      const n = withLuhn(bin + '000000000');
      assert.equal(luhnValid(n), true);
      assert.equal(detectBrand(n), 'ELO', n);
    }
    assert.equal(detectBrand(withLuhn('438936000000000')), 'VISA');
  });

  it('Elo range boundaries', () => {
    for (const bin of ['506699', '506778', '509000', '509999', '650031', '650033', '650035', '650051', '655021', '655058']) {
      assert.equal(detectBrand(bin + '0000000000'), 'ELO', bin);
    }
    assert.equal(detectBrand('6506980000000000'), null); // 650698: outside every Elo range
    assert.equal(detectBrand('6500340000000000'), null); // 650034: gap between 650033 and 650035
    assert.equal(detectBrand('5066980000000000'), null); // 506698: just below the Elo range, not Mastercard
  });

  it('Mastercard 2-series and Amex length', () => {
    assert.equal(detectBrand('2221000000000009'), 'MASTERCARD');
    assert.equal(detectBrand('2720990000000000'), 'MASTERCARD');
    assert.equal(detectBrand('2220990000000000'), null);
    assert.equal(detectBrand('2721000000000000'), null);
    assert.equal(detectBrand('3782822463100050'), null); // 16 digits starting with 37
  });
});

describe('validateCard', () => {
  const now = new Date('2026-07-15T12:00:00Z');
  const base: CardInput = { number: '4242 4242 4242 4242', holderName: 'Maria Silva', expMonth: 12, expYear: 2030, cvv: '123' };

  it('accepts a valid card', () => {
    assert.deepEqual(validateCard(base, now), { ok: true, brand: 'VISA', last4: '4242' });
    assert.deepEqual(validateCard({ ...base, number: '378282246310005', cvv: '1234' }, now), {
      ok: true,
      brand: 'AMEX',
      last4: '0005',
    });
  });

  it('rejects number problems', () => {
    assert.equal(fieldOf(validateCard({ ...base, number: '4242424242424241' }, now)), 'number');
    assert.equal(fieldOf(validateCard({ ...base, number: '6011111111111117' }, now)), 'number'); // unknown brand
    assert.equal(fieldOf(validateCard({ ...base, number: '4242x4242424242424' }, now)), 'number');
  });

  it('holder name 2..100 characters', () => {
    assert.equal(fieldOf(validateCard({ ...base, holderName: ' A ' }, now)), 'holderName');
    assert.equal(fieldOf(validateCard({ ...base, holderName: 'x'.repeat(101) }, now)), 'holderName');
    assert.equal(validateCard({ ...base, holderName: 'Jo' }, now).ok, true);
    assert.equal(validateCard({ ...base, holderName: 'x'.repeat(100) }, now).ok, true);
  });

  it('expiry: valid through the end of the expiry month, 2 or 4 digit years', () => {
    assert.equal(validateCard({ ...base, expMonth: 7, expYear: 2026 }, now).ok, true);
    assert.equal(validateCard({ ...base, expMonth: '07', expYear: '26' }, now).ok, true);
    assert.equal(validateCard({ ...base, expMonth: 7, expYear: 26 }, new Date('2026-07-31T23:59:59Z')).ok, true);
    assert.equal(fieldOf(validateCard({ ...base, expMonth: 7, expYear: 26 }, new Date('2026-08-01T00:00:00Z'))), 'expMonth');
    assert.equal(fieldOf(validateCard({ ...base, expMonth: 6, expYear: 2026 }, now)), 'expMonth');
    assert.equal(fieldOf(validateCard({ ...base, expMonth: 12, expYear: 2025 }, now)), 'expYear');
    assert.equal(fieldOf(validateCard({ ...base, expMonth: 1, expYear: 25 }, now)), 'expYear');
    for (const m of [0, 13, 1.5, -1, 'ab', '']) assert.equal(fieldOf(validateCard({ ...base, expMonth: m }, now)), 'expMonth', String(m));
    for (const y of [202, 20300, '2a', '', 2030.5]) assert.equal(fieldOf(validateCard({ ...base, expYear: y }, now)), 'expYear', String(y));
  });

  it('cvv: 3 digits, 4 for Amex', () => {
    for (const cvv of ['12', '1234', '12a', '']) assert.equal(fieldOf(validateCard({ ...base, cvv }, now)), 'cvv', cvv);
    const amex = { ...base, number: '378282246310005' };
    assert.equal(fieldOf(validateCard({ ...amex, cvv: '123' }, now)), 'cvv');
    assert.equal(validateCard({ ...amex, cvv: '1234' }, now).ok, true);
  });

  it('last4', () => {
    assert.equal(last4('4242 4242 4242 4242'), '4242');
    assert.equal(last4('378282246310005'), '0005');
  });
});

function fieldOf(r: ReturnType<typeof validateCard>): string | undefined {
  return r.ok ? undefined : r.field;
}

describe('priceTableInstallments', () => {
  it('R$ 1000.00 in 12x at 2.99% a month (Price table)', () => {
    // Independent float evaluation: PMT = PV * i / (1 - (1 + i)^-n) = 10040.2124... cents
    const pv = 100000;
    const i = 0.0299;
    const expected = Math.round((pv * i) / (1 - (1 + i) ** -12));
    assert.equal(expected, 10040);
    const plan = priceTableInstallments({ amountCents: pv, installments: 12, interestFreeInstallments: 1, monthlyInterestRatePercent: 2.99 });
    assert.deepEqual(plan, {
      installments: 12,
      installmentCents: 10040,
      totalCents: 120480,
      interestCents: 20480,
      schedule: new Array(12).fill(10040),
    });
  });

  it('uses the rate exactly as written in decimal', () => {
    // 1e8 cents at 10% in 12x: PMT = 14676331.51 -> 14676332 (float: 14676331.510028724)
    assert.equal(
      priceTableInstallments({ amountCents: 100_000_000, installments: 12, interestFreeInstallments: 0, monthlyInterestRatePercent: 10 })
        .installmentCents,
      14676332,
    );
    // Small rate: PMT ~ PV/n * (1 + i(n+1)/2) = 8333333.33 * (1 + 6.5e-7) = 8333338.75 -> 8333339.
    const small = { amountCents: 100_000_000, installments: 12, interestFreeInstallments: 0, monthlyInterestRatePercent: 1e-5 };
    assert.equal(priceTableInstallments(small).totalCents, 12 * 8333339);
    // Tinier: PMT = 8333333.39 rounds down and 12 x 8333333 < 1e8, so the principal is charged, no interest.
    const tiny = priceTableInstallments({ ...small, monthlyInterestRatePercent: 1e-7 });
    assert.equal(tiny.totalCents, 100_000_000);
    assert.equal(tiny.interestCents, 0);
  });

  it('1 instalment with interest charges one month of interest', () => {
    const plan = priceTableInstallments({ amountCents: 100000, installments: 1, interestFreeInstallments: 0, monthlyInterestRatePercent: 2.5 });
    assert.deepEqual(plan.schedule, [102500]);
  });

  it('interest-free split sums exactly, remainder on the first instalment', () => {
    const plan = priceTableInstallments({ amountCents: 100, installments: 3, interestFreeInstallments: 3, monthlyInterestRatePercent: 2.99 });
    assert.deepEqual(plan, { installments: 3, installmentCents: 33, totalCents: 100, interestCents: 0, schedule: [34, 33, 33] });
    const zeroRate = priceTableInstallments({ amountCents: 100001, installments: 12, interestFreeInstallments: 0, monthlyInterestRatePercent: 0 });
    assert.equal(zeroRate.totalCents, 100001);
    assert.equal(zeroRate.schedule.reduce((a, b) => a + b), 100001);
    assert.deepEqual(zeroRate.schedule.slice(0, 2), [8338, 8333]);
  });

  it('never charges less than the principal when the interest is below the rounding loss', () => {
    // PMT = 1.155 cents rounds to 1: 12 x 1 < 13, so the plan falls back to the interest-free split.
    const plan = priceTableInstallments({ amountCents: 13, installments: 12, interestFreeInstallments: 0, monthlyInterestRatePercent: 1 });
    assert.equal(plan.totalCents, 13);
    assert.equal(plan.interestCents, 0);
  });

  it('rejects invalid input', () => {
    const ok = { amountCents: 1000, installments: 2, interestFreeInstallments: 0, monthlyInterestRatePercent: 1 };
    for (const bad of [
      { amountCents: 0 },
      { amountCents: 10.5 },
      { installments: 0 },
      { installments: 1.5 },
      { interestFreeInstallments: -1 },
      { monthlyInterestRatePercent: -1 },
      { monthlyInterestRatePercent: Number.NaN },
      { monthlyInterestRatePercent: 1e21 }, // result beyond safe integers
    ]) {
      assert.throws(() => priceTableInstallments({ ...ok, ...bad }), RangeError, JSON.stringify(bad));
    }
  });

  it('property: integer schedule summing to total, total >= amount, close to the float formula', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 12 }),
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1000 }).map((x) => x / 100), fc.double({ min: 0, max: 10, noNaN: true })),
        (amountCents, installments, interestFreeInstallments, monthlyInterestRatePercent) => {
          const plan = priceTableInstallments({ amountCents, installments, interestFreeInstallments, monthlyInterestRatePercent });
          assert.equal(plan.installments, installments);
          assert.equal(plan.schedule.length, installments);
          assert.ok(plan.schedule.every((c) => Number.isSafeInteger(c) && c >= 0));
          assert.equal(plan.schedule.reduce((a, b) => a + b, 0), plan.totalCents);
          assert.ok(plan.totalCents >= amountCents);
          assert.equal(plan.interestCents, plan.totalCents - amountCents);
          if (installments <= interestFreeInstallments || monthlyInterestRatePercent === 0) {
            assert.equal(plan.totalCents, amountCents);
            assert.ok(Math.max(...plan.schedule) - Math.min(...plan.schedule) < installments);
          } else if (plan.interestCents > 0) {
            assert.ok(plan.schedule.every((c) => c === plan.installmentCents));
          }
          if (plan.interestCents > 0 && monthlyInterestRatePercent >= 0.001) {
            // Within half a cent of the float formula (which is unstable for tiny rates).
            const i = monthlyInterestRatePercent / 100;
            const pmt = (amountCents * i) / (1 - (1 + i) ** -installments);
            assert.ok(Math.abs(plan.installmentCents - pmt) <= 0.5 + 1e-4, `${plan.installmentCents} vs ${pmt}`);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
