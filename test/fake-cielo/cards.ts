// Test card numbers for the fake Cielo: Luhn-valid, ending in the digit that picks the sandbox's
// outcome (0/1/4 authorised, 2 "05", 3 "57", 5 "78", 6 "99", 7 "77", 8 "70").
import { luhn } from './rules.ts';

/** A 16-digit number starting with `prefix` (14 digits; Visa by default) and ending in `last`. */
export function cardEnding(last: string, prefix = '40240071537631'): string {
  for (let x = 0; x < 10; x++) {
    const n = `${prefix}${x}${last}`;
    if (luhn(n)) return n;
  }
  throw new Error('unreachable: one digit always completes the check');
}
