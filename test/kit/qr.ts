// Reads a QR code PNG back, independently of how the app renders it: an 8-bit PNG decoder and a
// comparison of its modules with the QR symbol of an expected text (qrcode's own encoder, any error
// correction level). What the PIX and the boleto's Pix QR tests check images with.
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import QRCode from 'qrcode';

/** Decodes an 8-bit greyscale/RGB/RGBA non-interlaced PNG into a dark-pixel predicate. */
function decodePng(png: Buffer) {
  let pos = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  let palette: Buffer | null = null;
  const idat: Buffer[] = [];
  while (pos < png.length) {
    const len = png.readUInt32BE(pos);
    const type = png.toString('ascii', pos + 4, pos + 8);
    const data = png.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.equal(data[8], 8, 'bit depth 8');
      colorType = data[9];
      assert.equal(data[12], 0, 'not interlaced');
    } else if (type === 'PLTE') palette = Buffer.from(data);
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[colorType];
  assert.ok(channels, `colour type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[y * stride + x - channels] : 0;
      const b = y > 0 ? out[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? out[(y - 1) * stride + x - channels] : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      const paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      const pred = [0, a, b, (a + b) >> 1, paeth][filter];
      assert.ok(pred !== undefined, `filter ${filter}`);
      out[y * stride + x] = (line[x] + pred) & 0xff;
    }
  }
  const luminance = (x: number, y: number) => {
    const i = y * stride + x * channels;
    if (colorType === 3) return palette![out[i] * 3];
    if (colorType === 0 || colorType === 4) return out[i];
    return (out[i] + out[i + 1] + out[i + 2]) / 3;
  };
  return { width, height, dark: (x: number, y: number) => luminance(x, y) < 128 };
}

/** The QR modules read off the image: bounding box of dark pixels split into size x size cells. */
function readModules(png: Buffer, size: number): boolean[] {
  const img = decodePng(png);
  let minX = img.width, minY = img.height, maxX = -1, maxY = -1;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      if (!img.dark(x, y)) continue;
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
  }
  const cw = (maxX - minX + 1) / size;
  const ch = (maxY - minY + 1) / size;
  const modules: boolean[] = [];
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) modules.push(img.dark(Math.floor(minX + (c + 0.5) * cw), Math.floor(minY + (r + 0.5) * ch)));
  return modules;
}

/** True when the PNG is a QR symbol of exactly `text` (at any error-correction level). */
export function pngEncodes(png: Buffer, text: string): boolean {
  return (['L', 'M', 'Q', 'H'] as const).some((level) => {
    const symbol = QRCode.create(text, { errorCorrectionLevel: level });
    const expected = Array.from(symbol.modules.data, (v) => !!v);
    const got = readModules(png, symbol.modules.size);
    return got.every((v, i) => v === expected[i]);
  });
}
