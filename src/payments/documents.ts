// Brazilian taxpayer documents: CPF (people) and CNPJ (companies).
// Pure functions: normalisation, check-digit validation, masking, formatting
// and generators of valid values for tests and the sandbox.
//
// Both documents use mod-11 check digits: sum(value_i * weight_i), r = sum % 11,
// check digit = r < 2 ? 0 : 11 - r. The second check digit is computed over the
// body plus the first check digit.
//
// CNPJ may be alphanumeric (Receita Federal, from July 2026): the first 12
// positions are [A-Z0-9], the last two (check digits) are always digits. A
// character's value is its ASCII code minus 48 ('0'..'9' -> 0..9, 'A' -> 17,
// 'Z' -> 42); numeric CNPJs are the special case where every value is a digit.

export type DocumentKind = 'CPF' | 'CNPJ';

export type DocumentValidation =
  | { ok: true; kind: DocumentKind; normalized: string }
  | { ok: false; reason: string };

const CPF_RE = /^\d{11}$/;
const CNPJ_RE = /^[A-Z0-9]{12}\d{2}$/;

const CPF_WEIGHTS_1 = [10, 9, 8, 7, 6, 5, 4, 3, 2];
const CPF_WEIGHTS_2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

const DIGITS = '0123456789';
const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Removes formatting (`.`, `-`, `/`, whitespace) and uppercases. Other characters are kept (and later rejected). */
export function onlyDigitsAndLetters(s: string): string {
  return s.replace(/[.\-/\s]/g, '').toUpperCase();
}

/** Mod-11 check digit over `chars`; each character is worth its char code minus 48. */
function mod11CheckDigit(chars: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += (chars.charCodeAt(i) - 48) * weights[i];
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

/** Appends the two check digits to a CPF body (9 digits). */
function cpfWithCheckDigits(body: string): string {
  const withFirst = body + mod11CheckDigit(body, CPF_WEIGHTS_1);
  return withFirst + mod11CheckDigit(withFirst, CPF_WEIGHTS_2);
}

/** Appends the two check digits to a CNPJ body (12 chars [A-Z0-9]). */
function cnpjWithCheckDigits(body: string): string {
  const withFirst = body + mod11CheckDigit(body, CNPJ_WEIGHTS_1);
  return withFirst + mod11CheckDigit(withFirst, CNPJ_WEIGHTS_2);
}

function allSameChar(s: string): boolean {
  return s.split('').every((c) => c === s[0]);
}

/** CPF: 11 digits (formatting accepted), valid check digits, not all digits equal. */
export function isValidCpf(s: string): boolean {
  const v = onlyDigitsAndLetters(s);
  return CPF_RE.test(v) && !allSameChar(v) && cpfWithCheckDigits(v.slice(0, 9)) === v;
}

/** CNPJ, numeric or alphanumeric: 12 chars [A-Z0-9] + 2 check digits, not all characters equal. */
export function isValidCnpj(s: string): boolean {
  const v = onlyDigitsAndLetters(s);
  return CNPJ_RE.test(v) && !allSameChar(v) && cnpjWithCheckDigits(v.slice(0, 12)) === v;
}

/** Validates a CPF (11 chars after normalisation) or a CNPJ (14 chars). */
export function validateDocument(s: string): DocumentValidation {
  const v = onlyDigitsAndLetters(s);
  if (!/^[A-Z0-9]*$/.test(v)) return { ok: false, reason: 'Document contains invalid characters' };
  if (v.length === 11) {
    if (!CPF_RE.test(v)) return { ok: false, reason: 'CPF must contain only digits' };
    if (allSameChar(v)) return { ok: false, reason: 'CPF with all digits equal' };
    if (cpfWithCheckDigits(v.slice(0, 9)) !== v) return { ok: false, reason: 'Invalid CPF check digits' };
    return { ok: true, kind: 'CPF', normalized: v };
  }
  if (v.length === 14) {
    if (!CNPJ_RE.test(v)) return { ok: false, reason: 'CNPJ check digits must be numeric' };
    if (allSameChar(v)) return { ok: false, reason: 'CNPJ with all characters equal' };
    if (cnpjWithCheckDigits(v.slice(0, 12)) !== v) return { ok: false, reason: 'Invalid CNPJ check digits' };
    return { ok: true, kind: 'CNPJ', normalized: v };
  }
  return { ok: false, reason: 'Document must have 11 (CPF) or 14 (CNPJ) characters' };
}

/**
 * Masks a document for payloads and logs (the document need not be valid).
 *
 * - 11 characters (CPF): hide the first 3 and the last 2 (the check digits),
 *   keep the middle 6: `123.456.789-09` -> `***.456.789-**`.
 * - 14 characters (CNPJ): hide the first 2 and the last 2 (the check digits),
 *   keep the middle 10: `12.ABC.345/01DE-35` -> `**.ABC.345/01DE-**`.
 * - Anything else: every character becomes `*` (nothing is revealed).
 *
 * The hidden check digits cannot be recomputed without the hidden prefix,
 * so the full document is never recoverable from the mask alone.
 */
export function maskDocument(s: string): string {
  const v = onlyDigitsAndLetters(s);
  if (v.length === 11) return formatDocument('***' + v.slice(3, 9) + '**');
  if (v.length === 14) return formatDocument('**' + v.slice(2, 12) + '**');
  return '*'.repeat(v.length);
}

/**
 * Pretty prints by length after normalisation: 11 -> `123.456.789-09`,
 * 14 -> `12.ABC.345/01DE-35`. Any other length is returned normalised, unformatted.
 * Does not validate.
 */
export function formatDocument(s: string): string {
  const v = onlyDigitsAndLetters(s);
  if (v.length === 11) return `${v.slice(0, 3)}.${v.slice(3, 6)}.${v.slice(6, 9)}-${v.slice(9)}`;
  if (v.length === 14) return `${v.slice(0, 2)}.${v.slice(2, 5)}.${v.slice(5, 8)}/${v.slice(8, 12)}-${v.slice(12)}`;
  return v;
}

/** `n` characters drawn from `alphabet` with `rand` (a `Math.random`-like function, [0, 1)). */
function randomChars(rand: () => number, alphabet: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) {
    out += alphabet[Math.min(alphabet.length - 1, Math.floor(rand() * alphabet.length))];
  }
  return out;
}

/** Replaces the last body character by the next one in `alphabet`, so the body is no longer all-equal. */
function bumpLast(body: string, alphabet: string): string {
  const next = alphabet[(alphabet.indexOf(body[body.length - 1]) + 1) % alphabet.length];
  return body.slice(0, -1) + next;
}

/** A valid CPF (11 digits, unformatted). `rand` is called 9 times. Never all digits equal. */
export function generateCpf(rand: () => number): string {
  let body = randomChars(rand, DIGITS, 9);
  if (allSameChar(body)) body = bumpLast(body, DIGITS);
  return cpfWithCheckDigits(body);
}

/**
 * A valid CNPJ (14 chars, unformatted). With `alphanumeric: true` the 12 body
 * characters are drawn from [0-9A-Z]; otherwise digits only. `rand` is called 12 times.
 */
export function generateCnpj(rand: () => number, opts: { alphanumeric?: boolean } = {}): string {
  const alphabet = opts.alphanumeric ? ALPHANUMERIC : DIGITS;
  let body = randomChars(rand, alphabet, 12);
  if (allSameChar(body)) body = bumpLast(body, alphabet);
  return cnpjWithCheckDigits(body);
}
