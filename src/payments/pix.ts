// PIX BR Code (EMV® Merchant-Presented Mode, BACEN "Manual do BR Code").
// Pure functions: building, parsing and CRC checking of the "copia e cola" payload.
//
// Layout: a flat list of TLV fields, each `ID(2 digits) + LEN(2 digits) + VALUE`.
// Templates 26 (merchant account) and 62 (additional data) contain nested TLVs.
// The payload ends with field 63 (CRC16), computed over everything before the
// CRC value, including the literal "6304".

import { randomInt } from 'node:crypto';

export const PIX_GUI = 'br.gov.bcb.pix';

export interface BrCodeInput {
  /** PIX key: e-mail, phone (+55...), CPF/CNPJ digits or random key (EVP). */
  pixKey: string;
  /** Sanitised to ASCII and truncated to 25 characters. */
  merchantName: string;
  /** Sanitised to ASCII and truncated to 15 characters. */
  merchantCity: string;
  /** Positive integer amount in cents. */
  amountCents: number;
  /** Exactly 25 characters [A-Za-z0-9]; see newTxid(). */
  txid: string;
  /** Optional free text shown to the payer (sanitised to ASCII). */
  description?: string;
}

export interface ParsedBrCode {
  /** Top-level fields, id -> raw value (templates 26/62 kept as raw TLV text). */
  fields: Record<string, string>;
  merchantAccount: { gui: string; key?: string; url?: string; description?: string };
  /** undefined when field 54 is absent (payer chooses the amount). */
  amountCents?: number;
  merchantName: string;
  merchantCity: string;
  /** Field 62/05; "***" means "no txid". undefined when absent. */
  txid?: string;
  /** Field 63 is the last field and matches the CRC16 of the rest of the payload. */
  crcValid: boolean;
}

const TXID_RE = /^[A-Za-z0-9]{25}$/;
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * CRC16-CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor)
 * over the UTF-8 bytes of `payload`, as 4 uppercase hex characters.
 */
export function crc16(payload: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(payload, 'utf8')) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[(crc >> 8) ^ byte];
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** The CRC of each byte value alone (the bit loop done once, not 8 times per byte of every BR Code). */
const CRC16_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

/**
 * Strips accents (NFKD + drop combining marks), collapses whitespace, drops anything that is not
 * printable ASCII and truncates to `max` characters.
 */
export function toPixText(value: string, max: number): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/\s+/g, ' ')
    .replace(/[^\x20-\x7E]/g, '')
    .trim()
    .slice(0, max)
    .trimEnd();
}

/** One TLV field. Lengths are in characters; every value we emit is ASCII. */
function tlv(id: string, value: string): string {
  if (value.length > 99) throw new RangeError(`BR Code field ${id} is longer than 99 characters`);
  return id + String(value.length).padStart(2, '0') + value;
}

function formatAmount(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents <= 0) {
    throw new RangeError('amountCents must be a positive integer');
  }
  const value = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  if (value.length > 13) throw new RangeError('amount does not fit field 54 (max 13 characters)');
  return value;
}

/** Builds a one-time (point of initiation 12) PIX "copia e cola" payload. */
export function buildBrCode(input: BrCodeInput): string {
  const { pixKey, merchantName, merchantCity, amountCents, txid, description } = input;
  if (!TXID_RE.test(txid)) throw new RangeError('txid must be exactly 25 characters [A-Za-z0-9]');
  if (!/^[\x21-\x7E]+$/.test(pixKey)) throw new RangeError('pixKey must be non-empty printable ASCII');
  const name = toPixText(merchantName, 25);
  const city = toPixText(merchantCity, 15);
  if (!name) throw new RangeError('merchantName is empty');
  if (!city) throw new RangeError('merchantCity is empty');
  const desc = description === undefined ? '' : toPixText(description, 99);

  const account = tlv('00', PIX_GUI) + tlv('01', pixKey) + (desc ? tlv('02', desc) : '');
  const payload =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('26', account) +
    tlv('52', '0000') +
    tlv('53', '986') +
    tlv('54', formatAmount(amountCents)) +
    tlv('58', 'BR') +
    tlv('59', name) +
    tlv('60', city) +
    tlv('62', tlv('05', txid)) +
    '6304';
  return payload + crc16(payload);
}

/** 25 random characters [A-Za-z0-9] from the CSPRNG (randomInt is unbiased). */
export function newTxid(): string {
  let out = '';
  for (let i = 0; i < 25; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** Parses a TLV list into an ordered list of [id, value]; throws if malformed. */
function parseTlv(text: string, where: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const seen = new Set<string>();
  let pos = 0;
  while (pos < text.length) {
    const header = text.slice(pos, pos + 4);
    if (!/^\d{4}$/.test(header)) throw new SyntaxError(`${where}: malformed TLV header at ${pos}`);
    const id = header.slice(0, 2);
    const len = Number(header.slice(2));
    const value = text.slice(pos + 4, pos + 4 + len);
    if (value.length !== len) throw new SyntaxError(`${where}: field ${id} overruns the payload`);
    if (seen.has(id)) throw new SyntaxError(`${where}: duplicate field ${id}`);
    seen.add(id);
    out.push([id, value]);
    pos += 4 + len;
  }
  return out;
}

function parseAmount(value: string): number {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(value);
  if (!m) throw new SyntaxError(`invalid amount "${value}"`);
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/**
 * Parses a BR Code. Throws on malformed TLV or missing mandatory fields; the
 * CRC is reported (crcValid), not enforced. Lengths are counted in UTF-16 code
 * units, which equals characters for the ASCII content BR Codes carry.
 */
export function parseBrCode(code: string): ParsedBrCode {
  const list = parseTlv(code, 'BR Code');
  const fields: Record<string, string> = Object.fromEntries(list);

  // The PIX account may sit in any merchant-account template 26..51; find it by GUI.
  let merchantAccount: ParsedBrCode['merchantAccount'] | undefined;
  for (const [id, value] of list) {
    const n = Number(id);
    if (n < 26 || n > 51) continue;
    const sub = Object.fromEntries(parseTlv(value, `field ${id}`));
    if (sub['00']?.toLowerCase() !== PIX_GUI) continue;
    merchantAccount = { gui: sub['00'] };
    if (sub['01'] !== undefined) merchantAccount.key = sub['01'];
    if (sub['25'] !== undefined) merchantAccount.url = sub['25'];
    if (sub['02'] !== undefined) merchantAccount.description = sub['02'];
    break;
  }
  if (!merchantAccount) throw new SyntaxError(`BR Code has no ${PIX_GUI} merchant account`);
  if (fields['59'] === undefined || fields['60'] === undefined) {
    throw new SyntaxError('BR Code lacks merchant name (59) or city (60)');
  }

  const additional = fields['62'] === undefined ? {} : Object.fromEntries(parseTlv(fields['62'], 'field 62'));

  // CRC: 63 must be the last field, 4 hex characters, over everything before its value.
  const last = list[list.length - 1];
  const crcValid =
    last[0] === '63' && last[1].length === 4 && crc16(code.slice(0, -4)) === last[1];

  const parsed: ParsedBrCode = {
    fields,
    merchantAccount,
    merchantName: fields['59'],
    merchantCity: fields['60'],
    crcValid,
  };
  if (fields['54'] !== undefined) parsed.amountCents = parseAmount(fields['54']);
  if (additional['05'] !== undefined) parsed.txid = additional['05'];
  return parsed;
}
