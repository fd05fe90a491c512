// Boleto bancário (FEBRABAN "cobrança"): barcode, digitable line, due-date
// factor and an Interleaved 2 of 5 SVG rendering. Pure functions.
//
// Barcode, 44 digits:
//   [0,3) bank  [3] currency (9 = BRL)  [4] general check digit (mod 11)
//   [5,9) due-date factor  [9,19) amount in cents  [19,44) free field (bank-defined)
//
// Digitable line, 47 digits (what people type):
//   field 1: bank + currency + free[0,5)  + mod-10 dv    (10 digits)
//   field 2: free[5,15)                   + mod-10 dv    (11 digits)
//   field 3: free[15,25)                  + mod-10 dv    (11 digits)
//   field 4: general check digit                         (1 digit)
//   field 5: factor + amount                             (14 digits)
//
// Limitation of the FEBRABAN scheme: the general dv maps remainders 0, 1 and 10
// all to "1", so a few single-digit changes inside field 5 go undetected.

export interface BoletoInput {
  /** 3-digit bank code, '000'..'999'. */
  bankCode: string;
  /** Calendar due date 'YYYY-MM-DD' (America/Sao_Paulo). */
  dueDate: string;
  /** Integer amount in cents, 0..9_999_999_999. */
  amountCents: number;
  /** 25 digits, layout defined by the issuing bank. */
  freeField: string;
}

export interface ParsedBarcode {
  bankCode: string;
  currency: string;
  checkDigit: string;
  dueFactor: number;
  amountCents: number;
  freeField: string;
  /** The general check digit matches the other 43 digits. */
  valid: boolean;
}

import { DAY_MS } from './calendar.ts';
const SAO_PAULO = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/Sao_Paulo',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** Days since 1970-01-01 of a 'YYYY-MM-DD' calendar date; throws if invalid. */
function dayNumber(ymd: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== ymd) {
    throw new RangeError(`invalid calendar date "${ymd}" (expected YYYY-MM-DD)`);
  }
  return ms / DAY_MS;
}

function ymdFromDayNumber(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** A Date becomes its calendar date in São Paulo; a string must already be 'YYYY-MM-DD'. */
function toYmd(date: Date | string): string {
  return typeof date === 'string' ? date : SAO_PAULO.format(date);
}

const FACTOR_BASE = dayNumber('1997-10-07');

/**
 * Due-date factor: days since 1997-10-07. It reached 9999 on 2025-02-21 and
 * restarted at 1000 on 2025-02-22, so for day counts d >= 1000 the factor
 * cycles through 1000..9999 with period 9000: factor = 1000 + (d - 1000) % 9000.
 */
export function dueFactor(date: Date | string): number {
  const d = dayNumber(toYmd(date)) - FACTOR_BASE;
  if (d < 0) throw new RangeError('due date is before 1997-10-07');
  return d < 1000 ? d : 1000 + ((d - 1000) % 9000);
}

/**
 * Inverse of dueFactor: of all dates carrying `factor`, the one closest to
 * `reference` (default: now), as 'YYYY-MM-DD'.
 */
export function dateFromFactor(factor: number, reference: Date | string = new Date()): string {
  if (!Number.isInteger(factor) || factor < 0 || factor > 9999) {
    throw new RangeError('factor must be an integer 0..9999');
  }
  if (factor < 1000) return ymdFromDayNumber(FACTOR_BASE + factor); // only before the first wrap
  // Candidates: d = factor + k * 9000 (k >= 0); pick k nearest to the reference.
  const ref = dayNumber(toYmd(reference)) - FACTOR_BASE;
  const k = Math.max(0, Math.round((ref - factor) / 9000));
  return ymdFromDayNumber(FACTOR_BASE + factor + k * 9000);
}

/** Mod 10 (weights 2,1,2,1… from the right; products' digits summed). */
export function mod10(digits: string): string {
  let sum = 0;
  for (let i = digits.length - 1, w = 2; i >= 0; i--, w = 3 - w) {
    const p = Number(digits[i]) * w;
    sum += p > 9 ? p - 9 : p; // digit sum of a two-digit product (max 18)
  }
  return String((10 - (sum % 10)) % 10);
}

/** General barcode dv: mod 11, weights 2..9 cycling from the right; 0/10/11 -> 1. */
export function mod11(digits: string): string {
  let sum = 0;
  for (let i = digits.length - 1, w = 2; i >= 0; i--, w = w === 9 ? 2 : w + 1) {
    sum += Number(digits[i]) * w;
  }
  const dv = 11 - (sum % 11);
  return String(dv === 0 || dv === 10 || dv === 11 ? 1 : dv);
}

function assertDigits(value: string, length: number, what: string): void {
  if (!new RegExp(`^\\d{${length}}$`).test(value)) throw new RangeError(`${what} must be ${length} digits`);
}

/** Removes the dots and spaces of a formatted digitable line. */
function stripLine(line: string): string {
  return line.replace(/[.\s]/g, '');
}

/** General dv of a barcode: mod 11 over the 43 digits other than position 5. */
function barcodeDv(barcode: string): string {
  return mod11(barcode.slice(0, 4) + barcode.slice(5));
}

export function buildBoleto(input: BoletoInput): { barcode: string; digitableLine: string } {
  const { bankCode, dueDate, amountCents, freeField } = input;
  assertDigits(bankCode, 3, 'bankCode');
  assertDigits(freeField, 25, 'freeField');
  if (!Number.isSafeInteger(amountCents) || amountCents < 0 || amountCents > 9_999_999_999) {
    throw new RangeError('amountCents must be an integer 0..9999999999');
  }
  const factor = String(dueFactor(dueDate)).padStart(4, '0');
  const body = bankCode + '9' + factor + String(amountCents).padStart(10, '0') + freeField;
  const barcode = body.slice(0, 4) + mod11(body) + body.slice(4);
  return { barcode, digitableLine: barcodeToLine(barcode) };
}

export function barcodeToLine(barcode: string): string {
  assertDigits(barcode, 44, 'barcode');
  const free = barcode.slice(19);
  const f1 = barcode.slice(0, 4) + free.slice(0, 5);
  const f2 = free.slice(5, 15);
  const f3 = free.slice(15, 25);
  return f1 + mod10(f1) + f2 + mod10(f2) + f3 + mod10(f3) + barcode[4] + barcode.slice(5, 19);
}

/** Rebuilds the barcode from a digitable line (dots/spaces allowed); does not validate dvs. */
export function lineToBarcode(line: string): string {
  const l = stripLine(line);
  assertDigits(l, 47, 'digitable line');
  const free = l.slice(4, 9) + l.slice(10, 20) + l.slice(21, 31);
  return l.slice(0, 4) + l[32] + l.slice(33, 47) + free;
}

export function parseBarcode(barcode: string): ParsedBarcode {
  assertDigits(barcode, 44, 'barcode');
  return {
    bankCode: barcode.slice(0, 3),
    currency: barcode[3],
    checkDigit: barcode[4],
    dueFactor: Number(barcode.slice(5, 9)),
    amountCents: Number(barcode.slice(9, 19)),
    freeField: barcode.slice(19),
    valid: barcodeDv(barcode) === barcode[4],
  };
}

/** Checks the three mod-10 field dvs and the barcode's general mod-11 dv (field 4). */
export function validateDigitableLine(line: string): boolean {
  const l = stripLine(line);
  if (!/^\d{47}$/.test(l)) return false;
  const fieldsOk =
    mod10(l.slice(0, 9)) === l[9] && mod10(l.slice(10, 20)) === l[20] && mod10(l.slice(21, 31)) === l[31];
  return fieldsOk && parseBarcode(lineToBarcode(l)).valid;
}

/** '00000.00000 00000.000000 00000.000000 0 00000000000000' */
export function formatDigitableLine(line: string): string {
  const l = stripLine(line);
  assertDigits(l, 47, 'digitable line');
  return (
    `${l.slice(0, 5)}.${l.slice(5, 10)} ${l.slice(10, 15)}.${l.slice(15, 21)} ` +
    `${l.slice(21, 26)}.${l.slice(26, 32)} ${l[32]} ${l.slice(33)}`
  );
}

// Interleaved 2 of 5: each digit is 5 elements, 2 of them wide (n = narrow, w = wide).
// A pair of digits is drawn together: the first digit's pattern on the 5 bars, the
// second digit's pattern on the 5 spaces between/after them.
const I25: readonly string[] = [
  'nnwwn', 'wnnnw', 'nwnnw', 'wwnnn', 'nnwnw', 'wnwnn', 'nwwnn', 'nnnww', 'wnnwn', 'nwnwn',
];

export interface I25Options {
  /** Narrow element width in px (wide = 3×). Default 1 (≈ 0.26 mm at 96 dpi). */
  narrow?: number;
  /** Bar height in px. Default 50. */
  height?: number;
}

/**
 * Renders an Interleaved 2 of 5 barcode (boleto: 44 digits) as an SVG string:
 * start nnnn, digit pairs, stop wnn, 10-narrow quiet zones, black bars on white.
 * Only bars are <rect> elements (the white background is a <path>).
 */
export function interleaved2of5(digits: string, options: I25Options = {}): string {
  if (!/^(\d\d)+$/.test(digits)) throw new RangeError('Interleaved 2 of 5 needs an even, non-zero number of digits');
  const narrow = options.narrow ?? 1;
  const height = options.height ?? 50;
  const quiet = 10 * narrow;

  // Elements alternate bar/space starting with a bar: start, pairs interleaved, stop.
  let elements = 'nnnn';
  for (let i = 0; i < digits.length; i += 2) {
    const bars = I25[Number(digits[i])];
    const spaces = I25[Number(digits[i + 1])];
    for (let j = 0; j < 5; j++) elements += bars[j] + spaces[j];
  }
  elements += 'wnn';

  let x = quiet;
  const rects: string[] = [];
  for (let i = 0; i < elements.length; i++) {
    const w = elements[i] === 'w' ? 3 * narrow : narrow;
    if (i % 2 === 0) rects.push(`<rect x="${x}" y="0" width="${w}" height="${height}"/>`);
    x += w;
  }
  const width = x + quiet;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" role="img" aria-label="${digits}" shape-rendering="crispEdges">` +
    `<title>${digits}</title>` +
    `<path fill="#fff" d="M0 0H${width}V${height}H0Z"/>` +
    `<g fill="#000">${rects.join('')}</g></svg>`
  );
}
