// PIX keys (chaves PIX) a payout can be sent to: CPF, CNPJ, e-mail, mobile phone (+55) or a
// random key (EVP, a UUID). Pure functions: validation with normalisation to the form the DICT
// (the central bank's key directory) stores.
import type { PixKeyType } from '../db/types.ts';
import { isValidCnpj, isValidCpf, onlyDigitsAndLetters } from './documents.ts';

export const PIX_KEY_TYPES: PixKeyType[] = ['cpf', 'cnpj', 'email', 'phone', 'random'];

export type PixKeyCheck = { ok: true; normalized: string } | { ok: false; reason: string };

/** DICT limit for e-mail keys. */
const EMAIL_MAX = 77;
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
/** +55, area code (two digits 1-9), mobile number: 9 then 8 digits. */
const PHONE = /^\+55[1-9]{2}9\d{8}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function validatePixKey(type: PixKeyType, raw: string): PixKeyCheck {
  const key = raw.trim();
  switch (type) {
    case 'cpf': {
      const v = onlyDigitsAndLetters(key);
      return isValidCpf(v) ? { ok: true, normalized: v } : { ok: false, reason: 'must be a valid CPF (11 digits with correct check digits)' };
    }
    case 'cnpj': {
      const v = onlyDigitsAndLetters(key);
      return isValidCnpj(v) ? { ok: true, normalized: v } : { ok: false, reason: 'must be a valid CNPJ (14 characters with correct check digits)' };
    }
    case 'email': {
      if (key.length > EMAIL_MAX) return { ok: false, reason: `must be an e-mail address of at most ${EMAIL_MAX} characters` };
      if (!EMAIL.test(key) || key.includes('..')) return { ok: false, reason: 'must be an e-mail address' };
      return { ok: true, normalized: key.toLowerCase() };
    }
    case 'phone': {
      // Spaces, dashes, dots and parentheses are formatting.
      const v = key.replace(/[\s().-]/g, '');
      return PHONE.test(v) ? { ok: true, normalized: v } : { ok: false, reason: 'must be a Brazilian mobile number in the form +55DD9XXXXXXXX' };
    }
    case 'random': {
      const v = key.toLowerCase();
      return UUID.test(v) ? { ok: true, normalized: v } : { ok: false, reason: 'must be a random key (EVP): a UUID such as 123e4567-e89b-42d3-a456-426614174000' };
    }
  }
}

/** How origin clients spell key types: upper case, and EVP for the random key. */
const TYPE_SPELLINGS: Record<string, PixKeyType> = { CPF: 'cpf', CNPJ: 'cnpj', EMAIL: 'email', PHONE: 'phone', RANDOM: 'random', EVP: 'random' };

/** Our key type for a spelling of it (`CPF`, `evp`, ...), or the value unchanged when it is none. */
export function pixKeyTypeSpelling(value: string): string {
  return TYPE_SPELLINGS[value.toUpperCase()] ?? value;
}

/**
 * The type of a key given without one, as the DICT's formats tell them apart: an e-mail has an @, a
 * phone starts with + (the DICT stores +55...), a random key is a UUID, 11 digits are a CPF and 14
 * characters a CNPJ (punctuation ignored). A phone written without +55 is 11 digits too: it is taken
 * for a CPF, as only the + form is a phone key. Null when the key looks like none of them. The key
 * is then validated as usual (validatePixKey): a CPF with wrong check digits is INVALID_DOCUMENT.
 */
export function inferPixKeyType(raw: string): PixKeyType | null {
  const key = raw.trim();
  if (key.includes('@')) return 'email';
  if (key.startsWith('+')) return 'phone';
  if (UUID.test(key.toLowerCase())) return 'random';
  if (!/^[0-9A-Za-z.\-/ ]+$/.test(key)) return null;
  const compact = onlyDigitsAndLetters(key);
  if (compact.length === 11 && /^\d+$/.test(compact)) return 'cpf';
  if (compact.length === 14) return 'cnpj';
  return null;
}
