// Public pages and assets that need no credentials: the PIX QR image and the printable boleto.
import { Type } from '@sinclair/typebox';
import QRCode from 'qrcode';
import { UUID } from '../db/ids.ts';
import type { HttpApp } from '../http/app-type.ts';
import type { Db } from '../db/index.ts';
import { boletoForPage, pixCodeByTxid } from '../modules/transactions/queries.ts';
import { BOLETO_CSP, formatBoletoDocument } from './boleto-page.ts';

/** Rendering a QR PNG costs ~4 ms of CPU: render on first request, then serve from memory. */
class QrCache {
  private map = new Map<string, Buffer>();
  private max: number;
  constructor(max: number) {
    this.max = max;
  }
  async get(key: string, text: string): Promise<Buffer> {
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit); // most recently used goes last
      return hit;
    }
    const png = await QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 280 });
    this.map.set(key, png);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
    return png;
  }
}

/** The options of webRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface WebRouteDeps {
  db: Db;
}

export default async function webRoutes(app: HttpApp, deps: WebRouteDeps) {
  const { db } = deps;
  const qr = new QrCache(2000);

  app.get(
    '/pix/:txid/qr.png',
    {
      schema: {
        tags: ['Public'],
        operationId: 'getPixQrImage',
        summary: 'QR code image (PNG) of a PIX charge',
        params: Type.Object({ txid: Type.String({ pattern: '^[A-Za-z0-9]{25,35}$' }) }),
        response: { 200: Type.Unsafe({ type: 'string', contentMediaType: 'image/png', description: 'PNG image' }), 404: Type.Ref('Error') },
      },
    },
    async (req, reply) => {
      const code = await pixCodeByTxid(db, req.params.txid);
      if (!code) return reply.code(404).send({ message: 'PIX charge not found' });
      const png = await qr.get(req.params.txid, code);
      return reply.type('image/png').header('Cache-Control', 'public, max-age=86400, immutable').send(png);
    },
  );

  app.get(
    '/boleto/:id',
    {
      schema: {
        tags: ['Public'],
        operationId: 'getBoletoPage',
        summary: 'Printable boleto page (HTML)',
        // Any text: a person who opened a mistyped address gets the page's "not found", not a JSON 400.
        params: Type.Object({ id: Type.String({ maxLength: 64, description: "The boleto transaction's id (a UUID)" }) }),
        response: { 200: Type.String({ description: 'HTML page' }), 404: Type.String({ description: 'HTML page' }) },
      },
    },
    async (req, reply) => {
      const tx = UUID.test(req.params.id) ? await boletoForPage(db, req.params.id.toLowerCase()) : undefined;
      reply.type('text/html; charset=utf-8').header('Content-Security-Policy', BOLETO_CSP);
      reply.serializer((x: unknown) => x as string);
      if (!tx?.boleto_barcode || !tx.boleto_line || !tx.due_date) {
        return reply.code(404).send(formatBoletoDocument(null));
      }
      return reply.send(
        formatBoletoDocument({
          displayId: tx.display_id,
          product: tx.product,
          amountCents: tx.charged_cents,
          status: tx.status,
          barcode: tx.boleto_barcode,
          digitableLine: tx.boleto_line,
          dueDate: tx.due_date,
          payerName: tx.client_name,
          payerDocument: tx.client_document,
          merchantName: tx.merchant_name,
          sandbox: !tx.livemode,
        }),
      );
    },
  );
}
