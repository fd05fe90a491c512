// Card helpers: Luhn, brand detection (including Brazilian brands Elo and
// Hipercard), input validation and instalment plans (Price table).
// Pure functions, no I/O.

export type CardBrand = 'VISA' | 'MASTERCARD' | 'ELO' | 'AMEX' | 'HIPERCARD' | 'DINERS';

export interface CardInput {
  /** PAN; spaces and hyphens are ignored by validateCard. */
  number: string;
  holderName: string;
  /** 1..12 */
  expMonth: number | string;
  /** 2 digits (yy, meaning 20yy) or 4 digits (yyyy). */
  expYear: number | string;
  cvv: string;
}

export type CardField = 'number' | 'holderName' | 'expMonth' | 'expYear' | 'cvv';

export type CardValidation =
  | { ok: true; brand: CardBrand; last4: string }
  | { ok: false; field: CardField; reason: string };

/** Luhn (mod 10) check; `number` must be 12..19 digits and nothing else. */
export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  // From the rightmost digit, double every second digit (subtract 9 when > 9).
  for (let i = 0; i < number.length; i++) {
    let d = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Inclusive 6-digit BIN ranges; single BINs are [x, x]. */
type BinRange = readonly [number, number];

const ELO_BINS: readonly BinRange[] = [
  [401178, 401179], [431274, 431274], [438935, 438935], [451416, 451416],
  [457393, 457393], [457631, 457632], [504175, 504175], [506699, 506778],
  [509000, 509999], [627780, 627780], [636297, 636297], [636368, 636368],
  [650031, 650033], [650035, 650051], [650405, 650439], [650485, 650538],
  [650541, 650598], [650700, 650718], [650720, 650727], [650901, 650978],
  [651652, 651679], [655000, 655019], [655021, 655058],
];

const HIPERCARD_BINS: readonly BinRange[] = [
  [606282, 606282], [384100, 384100], [384140, 384140], [384160, 384160],
  [637095, 637095], [637568, 637568], [637599, 637599], [637609, 637609], [637612, 637612],
];

function inRanges(bin: number, ranges: readonly BinRange[]): boolean {
  return ranges.some(([lo, hi]) => bin >= lo && bin <= hi);
}

/**
 * Brand from the number's prefix (`number`: digits only, else null).
 * Order matters: Elo and Hipercard BINs overlap Visa (4), Diners (38) and
 * other prefixes, so the 6-digit BIN tables are checked first.
 * Amex additionally requires 15 digits; other brands are prefix-only.
 */
export function detectBrand(number: string): CardBrand | null {
  if (!/^\d+$/.test(number)) return null;
  const bin6 = number.length >= 6 ? Number(number.slice(0, 6)) : -1;
  const p2 = Number(number.slice(0, 2));
  const p3 = Number(number.slice(0, 3));
  const p4 = Number(number.slice(0, 4));
  if (inRanges(bin6, ELO_BINS)) return 'ELO';
  if (inRanges(bin6, HIPERCARD_BINS)) return 'HIPERCARD';
  if ((p2 === 34 || p2 === 37) && number.length === 15) return 'AMEX';
  if ((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38 || p2 === 39) return 'DINERS';
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return 'MASTERCARD';
  if (number[0] === '4') return 'VISA';
  return null;
}

/** Last 4 characters of the number, ignoring spaces and hyphens. */
export function last4(number: string): string {
  return number.replace(/[\s-]/g, '').slice(-4);
}

/** Parses an integer field given as number or string of digits; NaN otherwise. */
function parseIntField(v: number | string): { value: number; digits: number } {
  const s = typeof v === 'number' ? (Number.isInteger(v) && v >= 0 ? String(v) : '') : v.trim();
  return /^\d+$/.test(s) ? { value: Number(s), digits: s.length } : { value: NaN, digits: 0 };
}

/**
 * Validates card input, stopping at the first bad field, in the order
 * number, holderName, expMonth, expYear, cvv.
 *
 * Expiry: a card is valid through the last day of its expiry month; the
 * comparison uses the UTC year/month of `now`. A 2-digit year yy means 20yy.
 */
export function validateCard(input: CardInput, now: Date = new Date()): CardValidation {
  const number = input.number.replace(/[\s-]/g, '');
  if (!luhnValid(number)) return { ok: false, field: 'number', reason: 'Invalid card number' };
  const brand = detectBrand(number);
  if (!brand) return { ok: false, field: 'number', reason: 'Unsupported card brand' };

  const holderLength = [...input.holderName.trim()].length;
  if (holderLength < 2 || holderLength > 100) {
    return { ok: false, field: 'holderName', reason: 'Holder name must have 2 to 100 characters' };
  }

  const month = parseIntField(input.expMonth).value;
  if (!(month >= 1 && month <= 12)) return { ok: false, field: 'expMonth', reason: 'Invalid expiry month' };
  const y = parseIntField(input.expYear);
  if (y.digits !== 2 && y.digits !== 4) return { ok: false, field: 'expYear', reason: 'Invalid expiry year' };
  const year = y.digits === 2 ? 2000 + y.value : y.value;
  const nowYear = now.getUTCFullYear();
  const nowMonth = now.getUTCMonth() + 1;
  if (year < nowYear) return { ok: false, field: 'expYear', reason: 'Card expired' };
  if (year === nowYear && month < nowMonth) return { ok: false, field: 'expMonth', reason: 'Card expired' };

  const cvvLength = brand === 'AMEX' ? 4 : 3;
  if (!new RegExp(`^\\d{${cvvLength}}$`).test(input.cvv)) {
    return { ok: false, field: 'cvv', reason: `CVV must have ${cvvLength} digits` };
  }
  return { ok: true, brand, last4: number.slice(-4) };
}

export interface InstallmentInput {
  /** Principal, positive integer cents. */
  amountCents: number;
  /** Number of instalments, integer >= 1. */
  installments: number;
  /** Plans with installments <= this are interest free. Integer >= 0. */
  interestFreeInstallments: number;
  /** Monthly rate in percent (2.99 means 2.99% a month), finite, >= 0. */
  monthlyInterestRatePercent: number;
}

export interface InstallmentPlan {
  installments: number;
  /** Regular instalment value. In interest-free plans the first instalment may be up to n-1 cents larger. */
  installmentCents: number;
  /** Sum of the schedule. */
  totalCents: number;
  /** totalCents - amountCents (>= 0). */
  interestCents: number;
  /** One entry per instalment, integer cents. */
  schedule: number[];
}

/** Splits `total` into `n` integer parts summing exactly to `total`, remainder on the first. */
function splitEvenly(total: number, n: number): number[] {
  const base = Math.floor(total / n);
  const schedule = new Array<number>(n).fill(base);
  schedule[0] += total - base * n;
  return schedule;
}

/** round(num / den) half up, for non-negative BigInts. */
function divRoundHalfUp(num: bigint, den: bigint): bigint {
  return (2n * num + den) / (2n * den);
}

/**
 * The monthly rate i = percent / 100 as an exact fraction p/q, read from the
 * number's shortest decimal form (2.99 -> "2.99" -> 299/10000), so rates are
 * taken exactly as written rather than as their binary approximation.
 */
function rateFraction(percent: number): { p: bigint; q: bigint } {
  const [mantissa, exp = '0'] = String(percent).split('e');
  const [int, frac = ''] = mantissa.split('.');
  const scale = frac.length - Number(exp) + 2; // i = digits * 10^-scale
  const digits = BigInt(int + frac);
  return scale >= 0 ? { p: digits, q: 10n ** BigInt(scale) } : { p: digits * 10n ** BigInt(-scale), q: 1n };
}

/**
 * Instalment plan.
 *
 * - Interest free (installments <= interestFreeInstallments, or rate 0): the
 *   total is the amount, split into integer cents with the remainder on the
 *   first instalment.
 * - Otherwise Price table (French amortisation, constant instalments):
 *   PMT = PV * i / (1 - (1+i)^-n), rewritten as PV * i * (1+i)^n / ((1+i)^n - 1).
 *   With i = p/q this is PV * p * (q+p)^n / (q * ((q+p)^n - q^n)), evaluated
 *   exactly with BigInt (see rateFraction) and rounded half up to cents;
 *   every instalment equals PMT and the total is n * PMT.
 *   Edge case: when the interest is smaller than the rounding loss (tiny rate
 *   or tiny amount) n * PMT could fall below the amount; the plan then falls
 *   back to the interest-free split so the principal is always covered.
 *
 * Throws RangeError on invalid input.
 */
export function priceTableInstallments(input: InstallmentInput): InstallmentPlan {
  const { amountCents, installments: n, interestFreeInstallments, monthlyInterestRatePercent: rate } = input;
  if (!Number.isSafeInteger(amountCents) || amountCents < 1) throw new RangeError('amountCents must be a positive integer');
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError('installments must be a positive integer');
  if (!Number.isSafeInteger(interestFreeInstallments) || interestFreeInstallments < 0) {
    throw new RangeError('interestFreeInstallments must be a non-negative integer');
  }
  if (!Number.isFinite(rate) || rate < 0) throw new RangeError('monthlyInterestRatePercent must be >= 0');

  const interestFree = (): InstallmentPlan => {
    const schedule = splitEvenly(amountCents, n);
    return { installments: n, installmentCents: schedule[n - 1], totalCents: amountCents, interestCents: 0, schedule };
  };

  if (n <= interestFreeInstallments || rate === 0) return interestFree();

  const { p, q } = rateFraction(rate);
  const growth = (q + p) ** BigInt(n); // (1+i)^n scaled by q^n
  const qn = q ** BigInt(n);
  const pmt = Number(divRoundHalfUp(BigInt(amountCents) * p * growth, q * (growth - qn)));
  const totalCents = pmt * n;
  if (!Number.isSafeInteger(totalCents)) throw new RangeError('Instalment total exceeds the safe integer range');
  if (totalCents < amountCents) return interestFree();
  return {
    installments: n,
    installmentCents: pmt,
    totalCents,
    interestCents: totalCents - amountCents,
    schedule: new Array<number>(n).fill(pmt),
  };
}
