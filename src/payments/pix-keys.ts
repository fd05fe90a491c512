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
