// What the payer gets: the PIX BR Code and its QR image, the boleto's barcode and digitable line,
// and the printable boleto page. Runs on PGlite (default) and on PostgreSQL (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import QRCode from 'qrcode';
import { lineToBarcode, parseBarcode, validateDigitableLine } from '../src/payments/boleto.ts';
import { CHECKOUT_SCRIPT_URL } from '../src/web/assets.ts';
import { parseBrCode } from '../src/payments/pix.ts';
import { call, cpf } from './helpers.ts';
import { assertFieldError } from './kit/assert.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { pngEncodes } from './kit/qr.ts';

const T = '/api/v1/transactions';
const DAY = 86_400_000;
const SP_OFFSET = 3 * 3600_000; // São Paulo is UTC-3 all year (no DST since 2019)

const ctx = useApp();
const m = useMerchant(ctx);

// Count QR renderings: the image must be rendered on demand (not when the charge is created) and cached.
const qr = QRCode as unknown as { toBuffer: (...args: unknown[]) => Promise<Buffer> };
const realToBuffer = qr.toBuffer;
let renders = 0;

before(() => {
  qr.toBuffer = (...args: unknown[]) => {
    renders++;
    return realToBuffer.apply(QRCode, args);
  };
});
after(() => {
  qr.toBuffer = realToBuffer;
});

let seq = 0;
function body(over: Record<string, unknown> = {}) {
  seq++;
  return { product: `Ingresso ${seq}`, amountCents: 12345, clientName: 'Diego Alves', clientEmail: `diego.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'PIX', ...over };
}
async function create(over: Record<string, unknown> = {}) {
  const res = await call(ctx.app, 'POST', T, { key: m.devKey, body: body(over) });
  assert.equal(res.status, 201, res.raw);
  return res.body.transaction;
}
const spDate = (ms: number) => new Date(ms - SP_OFFSET).toISOString().slice(0, 10);

// ---------------------------------------------------------------------------------------------
// Independent helpers: CRC16-CCITT-FALSE, the boleto due factor, I2of5 decoding (the PNG decoder: kit/qr.ts).

function crc16(text: string): string {
  let crc = 0xffff;
  for (const b of Buffer.from(text)) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** FEBRABAN due-date factor: days since 1997-10-07, restarting at 1000 on 2025-02-22. */
function dueFactor(ymd: string): number {
  const days = (Date.parse(`${ymd}T00:00:00Z`) - Date.parse('1997-10-07T00:00:00Z')) / DAY;
  return days < 1000 ? days : 1000 + ((days - 1000) % 9000);
}

const I25 = ['nnwwn', 'wnnnw', 'nwnnw', 'wwnnn', 'nnwnw', 'wnwnn', 'nwwnn', 'nnnww', 'wnnwn', 'nwnwn'];
/** Reads the digits an Interleaved 2 of 5 SVG (bars as <rect>) encodes. */
function decodeI25(svg: string): string {
  const bars = [...svg.matchAll(/<rect\b[^>]*\bx="([\d.]+)"[^>]*\bwidth="([\d.]+)"/g)].map((r) => ({ x: Number(r[1]), w: Number(r[2]) }));
  assert.ok(bars.length > 4, 'the SVG has bars');
  const widths: number[] = [];
  bars.forEach((b, i) => {
    widths.push(b.w);
    if (i + 1 < bars.length) widths.push(bars[i + 1].x - (b.x + b.w));
  });
  const narrow = Math.min(...widths);
  const els = widths.map((w) => (w > narrow * 1.5 ? 'w' : 'n')).join('');
  assert.equal(els.slice(0, 4), 'nnnn', 'start pattern');
  assert.equal(els.slice(-3), 'wnn', 'stop pattern');
  const data = els.slice(4, -3);
  assert.equal(data.length % 10, 0);
  let digits = '';
  for (let i = 0; i < data.length; i += 10) {
    const chunk = data.slice(i, i + 10);
    const barsPattern = [0, 2, 4, 6, 8].map((k) => chunk[k]).join('');
    const spacesPattern = [1, 3, 5, 7, 9].map((k) => chunk[k]).join('');
    assert.ok(I25.includes(barsPattern) && I25.includes(spacesPattern), `pair ${i / 10}`);
    digits += String(I25.indexOf(barsPattern)) + String(I25.indexOf(spacesPattern));
  }
  return digits;
}

// ---------------------------------------------------------------------------------------------

describe('PIX', () => {
  test('the independent CRC agrees with the public BR Code vector', () => {
    const vector = '00020126650014br.gov.bcb.pix0119nubank@thalesog.com0220Gerado por Pix-Utils52040000530398654041.005802BR5914Thales Ogliari6009Sao Paulo62070503***63046069';
    assert.equal(crc16(vector.slice(0, -4)), '6069');
    assert.equal(parseBrCode(vector).crcValid, true);
  });

  test('qrCode is a valid BR Code for the charged amount, with the platform key and a 25-character txid', async () => {
    for (const amountCents of [12345, 1, 100000000, 990]) {
      const t = await create({ amountCents });
      const code: string = t.pix.qrCode;
      const parsed = parseBrCode(code);
      assert.equal(parsed.crcValid, true);
      assert.match(code, /6304[0-9A-F]{4}$/);
      assert.equal(crc16(code.slice(0, -4)), code.slice(-4));
      assert.equal(parsed.fields['00'], '01');
      assert.equal(parsed.fields['01'], '12');
      assert.equal(parsed.merchantAccount.gui, 'br.gov.bcb.pix');
      assert.equal(parsed.merchantAccount.key, ctx.config.pix.key);
      assert.ok(parsed.fields['52'] !== undefined);
      assert.equal(parsed.fields['53'], '986');
      assert.equal(parsed.fields['58'], 'BR');
      assert.ok(parsed.merchantName.length >= 1 && parsed.merchantName.length <= 25);
      assert.ok(parsed.merchantCity.length >= 1 && parsed.merchantCity.length <= 15);
      assert.equal(parsed.amountCents, t.chargedCents);
      assert.equal(parsed.fields['54'], `${Math.floor(amountCents / 100)}.${String(amountCents % 100).padStart(2, '0')}`);
      assert.match(parsed.txid!, /^[A-Za-z0-9]{25}$/);
      assert.equal(parsed.txid, t.pix.txid);
      // Changing any one character of the amount breaks the CRC.
      const tampered = code.replace(`54${parsed.fields['54'].length.toString().padStart(2, '0')}${parsed.fields['54']}`, (s) => s.slice(0, -1) + (s.endsWith('9') ? '8' : '9'));
      assert.notEqual(tampered, code);
      assert.equal(parseBrCode(tampered).crcValid, false);
    }
    const a = await create();
    const b = await create();
    assert.notEqual(a.pix.txid, b.pix.txid);
  });

  test('expiresAt: 24 h by default; a dueDate date-time is honoured; a date means the end of that day in São Paulo; a past one -> 400', async () => {
    const t0 = Date.now();
    const t = await create();
    const t1 = Date.now();
    const exp = Date.parse(t.pix.expiresAt);
    assert.ok(exp >= t0 + DAY - 1000 && exp <= t1 + DAY + 1000, t.pix.expiresAt);
    assert.equal(t.expiresAt, t.pix.expiresAt);

    const due = new Date(Date.now() + 2 * DAY + 12345).toISOString();
    const d = await create({ dueDate: due });
    assert.equal(Date.parse(d.pix.expiresAt), Date.parse(due));
    assert.equal(Date.parse(d.expiresAt), Date.parse(due));

    const day = spDate(Date.now() + 5 * DAY);
    const e = await create({ dueDate: day });
    assert.equal(Date.parse(e.pix.expiresAt), Date.parse(`${day}T23:59:59.999-03:00`));

    for (const past of [new Date(Date.now() - 60_000).toISOString(), spDate(Date.now() - DAY)]) {
      assertFieldError(await call(ctx.app, 'POST', T, { key: m.devKey, body: body({ dueDate: past }) }), 'dueDate', 'VALIDATION_ERROR');
    }
    assertFieldError(await call(ctx.app, 'POST', T, { key: m.devKey, body: body({ dueDate: 'tomorrow' }) }), 'dueDate', 'VALIDATION_ERROR');
  });

  test('qrCodeImage serves a PNG of the BR Code, rendered on first request (not at creation) and cached', async () => {
    const before_ = renders;
    const t = await create({ amountCents: 4990 });
    assert.equal(renders, before_, 'creating a PIX charge renders no image');
    assert.ok(t.pix.qrCodeImage.startsWith(`${ctx.config.baseUrl}/`), t.pix.qrCodeImage);
    const path = new URL(t.pix.qrCodeImage).pathname;
    const first = await ctx.app.inject({ method: 'GET', url: path });
    assert.equal(first.statusCode, 200);
    assert.match(String(first.headers['content-type']), /^image\/png/);
    const png = first.rawPayload;
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(renders, before_ + 1);
    assert.ok(pngEncodes(png, t.pix.qrCode), 'the image is a QR code of the BR Code');
    assert.ok(!pngEncodes(png, (await create()).pix.qrCode), 'and not of another charge\'s');
    const second = await ctx.app.inject({ method: 'GET', url: path });
    assert.equal(second.statusCode, 200);
    assert.ok(second.rawPayload.equals(png), 'the second fetch is identical');
    assert.equal(renders, before_ + 1, 'the second fetch is served from the cache');
  });

  test('an unknown txid -> 404 { message }', async () => {
    const res = await call(ctx.app, 'GET', `/pix/${'A'.repeat(25)}/qr.png`);
    assert.equal(res.status, 404);
    assert.deepEqual(Object.keys(res.body), ['message']);
    const boleto = await create({ paymentMethod: 'BOLETO' });
    assert.equal(boleto.pix, undefined);
    assert.ok((await call(ctx.app, 'GET', '/pix/not-a-txid/qr.png')).status >= 400);
  });
});

describe('BOLETO', () => {
  function checkBoleto(t: any) {
    const { barcode, digitableLine, dueDate } = t.boleto;
    assert.match(barcode, /^\d{44}$/);
    assert.match(digitableLine, /^\d{47}$/);
    assert.equal(lineToBarcode(digitableLine), barcode);
    assert.equal(validateDigitableLine(digitableLine), true);
    const parsed = parseBarcode(barcode);
    assert.equal(parsed.valid, true);
    assert.equal(parsed.bankCode, ctx.config.boleto.bankCode);
    assert.equal(parsed.currency, '9');
    assert.equal(parsed.amountCents, t.chargedCents);
    assert.equal(parsed.dueFactor, dueFactor(dueDate));
    // Field 5 of the line is the factor and the value, as typed by the payer.
    assert.equal(digitableLine.slice(33), barcode.slice(5, 19));
  }

  test('the due factor helper follows the 2025 restart', () => {
    assert.equal(dueFactor('2025-02-21'), 9999);
    assert.equal(dueFactor('2025-02-22'), 1000);
    assert.equal(dueFactor('2000-07-03'), 1000);
  });

  test('barcode (44 digits) and digitable line (47 digits) agree, with valid check digits, the amount and the due date', async () => {
    for (const amountCents of [12345, 1, 100000000, 349]) {
      const t = await create({ paymentMethod: 'BOLETO', amountCents });
      checkBoleto(t);
    }
    const a = await create({ paymentMethod: 'BOLETO' });
    const b = await create({ paymentMethod: 'BOLETO' });
    assert.notEqual(a.boleto.barcode, b.boleto.barcode);
  });

  test('dueDate: 3 days ahead (São Paulo date) by default; a date is honoured; a date-time is read in São Paulo; past -> 400', async () => {
    const t0 = Date.now();
    const t = await create({ paymentMethod: 'BOLETO' });
    const t1 = Date.now();
    assert.ok([spDate(t0 + 3 * DAY), spDate(t1 + 3 * DAY)].includes(t.boleto.dueDate), t.boleto.dueDate);
    checkBoleto(t);
    assert.equal(Date.parse(t.expiresAt), Date.parse(`${t.boleto.dueDate}T23:59:59.999-03:00`));

    const day = spDate(Date.now() + 10 * DAY);
    const d = await create({ paymentMethod: 'BOLETO', dueDate: day });
    assert.equal(d.boleto.dueDate, day);
    checkBoleto(d);

    const today = await create({ paymentMethod: 'BOLETO', dueDate: spDate(Date.now()) });
    assert.equal(today.boleto.dueDate, spDate(Date.now()));

    // 01:00 UTC is still the previous day in São Paulo.
    const utcDay = new Date(Date.now() + 20 * DAY).toISOString().slice(0, 10);
    const late = await create({ paymentMethod: 'BOLETO', dueDate: `${utcDay}T01:00:00Z` });
    assert.equal(late.boleto.dueDate, new Date(Date.parse(`${utcDay}T00:00:00Z`) - DAY).toISOString().slice(0, 10));
    checkBoleto(late);

    assertFieldError(await call(ctx.app, 'POST', T, { key: m.devKey, body: body({ paymentMethod: 'BOLETO', dueDate: spDate(Date.now() - DAY) }) }), 'dueDate', 'VALIDATION_ERROR');
    assertFieldError(await call(ctx.app, 'POST', T, { key: m.devKey, body: body({ paymentMethod: 'BOLETO', dueDate: '2024-02-30' }) }), 'dueDate', 'VALIDATION_ERROR');
  });

  test('/boleto/{id}: a printable pt-BR page with the formatted line, an I2of5 SVG of the barcode, amount and due date; the payer\'s document masked', async () => {
    const doc = cpf();
    const day = spDate(Date.now() + 7 * DAY);
    const t = await create({ paymentMethod: 'BOLETO', amountCents: 123456, dueDate: day, clientDocument: doc, clientName: 'Helena <img src=x onerror=alert(1)>Rocha', product: 'Curso <script>alert(1)</script>online' });
    assert.equal(t.boleto.url, `${ctx.config.checkoutUrl}/boleto/${t.id}`);
    const res = await ctx.app.inject({ method: 'GET', url: new URL(t.boleto.url).pathname });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.ok(res.headers['content-security-policy'], 'a CSP is set');
    const html = res.body;
    assert.match(html, /<html lang="pt-BR">/);
    const l: string = t.boleto.digitableLine;
    const formatted = `${l.slice(0, 5)}.${l.slice(5, 10)} ${l.slice(10, 15)}.${l.slice(15, 21)} ${l.slice(21, 26)}.${l.slice(26, 32)} ${l[32]} ${l.slice(33)}`;
    assert.ok(html.includes(formatted), 'formatted digitable line');
    assert.match(html, /R\$\s1\.234,56/);
    assert.ok(html.includes(day.split('-').reverse().join('/')), 'due date as DD/MM/YYYY');
    assert.ok(html.includes('Loja Teste'), 'merchant name');
    const svg = /<svg[\s\S]*?<\/svg>/.exec(html);
    assert.ok(svg, 'an SVG barcode');
    assert.equal(decodeI25(svg[0]), t.boleto.barcode);
    const formattedDoc = `${doc.slice(0, 3)}.${doc.slice(3, 6)}.${doc.slice(6, 9)}-${doc.slice(9)}`;
    assert.ok(!html.includes(doc) && !html.includes(formattedDoc), 'the full document is not on a public page');
    // The one script is the hosted pages' own file; nothing the payer or merchant typed becomes markup.
    assert.deepEqual(html.match(/<script[^>]*>/gi), [`<script src="${CHECKOUT_SCRIPT_URL}" defer>`]);
    assert.ok(!/<script>|onerror/i.test(html), 'no injected markup');
    // The one image is the boleto's own Pix QR (a hybrid boleto, as the sandbox issues them).
    assert.deepEqual(html.match(/<img\b[^>]*>/gi), [`<img class="qr" src="/boleto/${t.id}/qr.png" width="240" height="240" alt="QR Code Pix do boleto de R$\u00a01.234,56">`]);
    assert.match(String(res.headers['content-security-policy']), /script-src 'self'(;|$)/);
  });

  test('/boleto/{id}: unknown id and a non-boleto transaction -> 404 page', async () => {
    const unknown = await ctx.app.inject({ method: 'GET', url: '/boleto/01900000-0000-7000-8000-000000000000' });
    assert.equal(unknown.statusCode, 404);
    assert.match(String(unknown.headers['content-type']), /^text\/html/);
    assert.match(unknown.body, /<html lang="pt-BR">/);
    const pix = await create();
    assert.equal((await ctx.app.inject({ method: 'GET', url: `/boleto/${pix.id}` })).statusCode, 404);
    // A mistyped address is the same page, never the API's JSON.
    const typo = await ctx.app.inject({ method: 'GET', url: '/boleto/not-a-uuid' });
    assert.equal(typo.statusCode, 404);
    assert.match(typo.body, /<html lang="pt-BR">/);
  });
});
