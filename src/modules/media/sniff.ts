// What a file is, from its first bytes (magic numbers), never from the server's Content-Type: a
// server may call anything image/png. Only raster formats every browser shows are taken; SVG is
// refused because it is a document that can carry script and load other addresses.

export type ImageType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';

/** Bytes enough to tell an accepted image (WebP needs 12) and to name most other things. */
export const SNIFF_BYTES = 1024;

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
const startsWith = (b: Uint8Array, bytes: number[], at = 0) => b.length >= at + bytes.length && bytes.every((x, i) => b[at + i] === x);

/** The accepted image type the bytes start with, or null. */
export function sniffImage(b: Uint8Array): ImageType | null {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8)) return 'image/webp';
  return null;
}

/** Formats people upload that we do not take, by their magic numbers: [bytes, offset, name]. */
const OTHER_BINARY: [number[], number, string][] = [
  [ascii('ftypavif'), 4, 'an AVIF image'],
  [ascii('ftypheic'), 4, 'a HEIC image'],
  [ascii('ftypmif1'), 4, 'a HEIF image'],
  [ascii('BM'), 0, 'a BMP image'],
  [[0x49, 0x49, 0x2a, 0x00], 0, 'a TIFF image'],
  [[0x4d, 0x4d, 0x00, 0x2a], 0, 'a TIFF image'],
  [[0x00, 0x00, 0x01, 0x00], 0, 'an ICO icon'],
  [ascii('%PDF'), 0, 'a PDF document'],
];

/** What bytes that are not an accepted image look like, in a few English words for the merchant. */
export function describeOther(b: Uint8Array): string {
  if (b.length === 0) return 'an empty answer';
  for (const [magic, at, what] of OTHER_BINARY) if (startsWith(b, magic, at)) return what;
  // latin1 maps every byte to one character; a UTF-8 byte order mark reads as "ï»¿".
  const text = Buffer.from(b.subarray(0, SNIFF_BYTES)).toString('latin1').replace(/^ï»¿/, '').trimStart().toLowerCase();
  if (/<svg[\s>]/.test(text) || text.startsWith('<!doctype svg')) return 'an SVG image (refused: an SVG can carry scripts; export it as PNG)';
  if (/^<(!doctype html|html|head|body|meta|title|script)[\s>]/.test(text)) return 'an HTML page';
  if (text.startsWith('{') || text.startsWith('[')) return 'a JSON document';
  return 'a file of another type';
}
