import { randomFillSync } from 'node:crypto';

// Random bytes drawn from the CSPRNG 4 KiB at a time and handed out in slices: a creation draws
// several ids and codes, and one randomBytes call each cost more than the bytes themselves (the
// hot path's CPU profile, issue 17). Each slice is used once.
const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let poolOffset = POOL_SIZE;

/** `n` (<= 4096) fresh random bytes; a copy, so the caller may keep and change them. */
function random(n: number): Buffer {
  if (poolOffset + n > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + n));
  poolOffset += n;
  return out;
}

/** A UUID in its text form, any version, either case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** UUID v7: time-ordered, so new rows land at the right edge of indexes. */
export function uuidv7(now = Date.now()): string {
  const b = random(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | (b[6] & 0x0f);
  b[8] = 0x80 | (b[8] & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

let lastMs = 0;
let counter = 0;

/**
 * UUID v7 in generation order within this process (RFC 9562's monotonic counter in rand_a): ids
 * drawn in the same millisecond, or while the clock stepped back, still sort after the ones before.
 * For rows listed by (created_at, id) whose order within a millisecond means something: the ledger's
 * entries, whose balance after each follows the order they were written in.
 */
export function uuidv7Ordered(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = random(2).readUInt16BE(0) & 0x3ff; // room for 3,000 more in the millisecond
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  const b = random(16);
  b.writeUIntBE(lastMs, 0, 6);
  b[6] = 0x70 | (counter >> 8);
  b[7] = counter & 0xff;
  b[8] = 0x80 | (b[8] & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O, 1/I: read aloud over the phone

/** Short human-friendly code (display ids, referral codes). */
export function shortCode(length: number): string {
  const bytes = random(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i] & 31];
  return out;
}
