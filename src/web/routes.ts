// Public pages and assets that need no credentials: the PIX QR image, the printable boleto, its Pix
// QR and its bank's PDF.
import { spDate } from '../payments/calendar.ts';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import QRCode from 'qrcode';
import { UUID } from '../db/ids.ts';
import type { HttpApp } from '../http/app-type.ts';
import type { Db } from '../db/index.ts';
import type { RateLimiter } from '../http/ratelimit.ts';
import { boletoForPage, pixCodeByTxid } from '../modules/transactions/queries.ts';
import type { ConnectorRegistry } from '../payments/registry.ts';
import { send } from './checkout-routes.ts';
import { BOLETO_CSP, boletoIssuing, boletoMessage, boletoNotFound, boletoNotIssued, formatBoletoDocument, type BoletoSummary } from './boleto-page.ts';

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
  /** Which connector made a boleto, and whether it renders the bank's PDF. */
  connectors: ConnectorRegistry;
  limiter: RateLimiter;
}

type BoletoRow = NonNullable<Awaited<ReturnType<typeof boletoForPage>>>;

/** Each PDF is a call to the bank, whose API counts calls: a person needs a few, a loop gets 429. */
const PDFS_PER_IP_PER_MINUTE = 20;

const HTML_PAGE = Type.String({ description: 'HTML page' });
const BoletoId = Type.Object({ id: Type.String({ maxLength: 64, description: "The boleto transaction's id (a UUID)" }) });

/** An HTML page of the boleto's, with the hosted pages' headers and the boleto's CSP. */
const html = (reply: FastifyReply, status: number, body: string) => send(reply, status, { html: body, csp: BOLETO_CSP });

function summary(tx: BoletoRow): BoletoSummary {
  return { id: tx.id, displayId: tx.display_id, product: tx.product, amountCents: tx.charged_cents, status: tx.status, merchantName: tx.merchant_name, sandbox: !tx.livemode };
}

/** A PDF's file name: the order's display id, kept to characters every browser saves as they are. */
const pdfName = (displayId: string) => `boleto-${displayId.replace(/[^A-Za-z0-9_-]/g, '') || 'cofre'}.pdf`;

export default async function webRoutes(app: HttpApp, deps: WebRouteDeps) {
  const { db, connectors, limiter } = deps;
  const qr = new QrCache(2000);
  const boleto = async (id: string) => (UUID.test(id) ? await boletoForPage(db, id.toLowerCase()) : undefined);
  /** The connector that renders this boleto's PDF at its bank, if any (none for the sandbox's). */
  const pdfOf = (tx: BoletoRow) => {
    const c = tx.boleto_ref && tx.boleto_barcode ? connectors.find(tx.provider) : undefined;
    return c?.boletoPdf ? (ref: string) => c.boletoPdf!(ref) : null;
  };

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
    '/boleto/:id/qr.png',
    {
      schema: {
        tags: ['Public'],
        operationId: 'getBoletoPixQrImage',
        summary: "QR code image (PNG) of a hybrid boleto's Pix",
        params: BoletoId,
        response: { 200: Type.Unsafe({ type: 'string', contentMediaType: 'image/png', description: 'PNG image' }), 404: Type.Ref('Error') },
      },
    },
    async (req, reply) => {
      const tx = await boleto(req.params.id);
      if (!tx?.boleto_pix) return reply.code(404).send({ message: 'Boleto Pix not found' });
      // The prefix keeps boleto keys apart from Pix txids (letters and digits only) in the one cache.
      const png = await qr.get(`boleto:${tx.id}`, tx.boleto_pix);
      return reply.type('image/png').header('Cache-Control', 'public, max-age=86400, immutable').send(png);
    },
  );

  app.get(
    '/boleto/:id.pdf',
    {
      // A HEAD (a link preview) would run the handler and ask the bank for a PDF it then drops.
      exposeHeadRoute: false,
      schema: {
        tags: ['Public'],
        operationId: 'getBoletoPdf',
        summary: "The boleto's PDF as its bank renders it (production boletos of a bank connector)",
        description: '404 (HTML) when the boleto has no PDF at its bank (a sandbox boleto, one still being registered); 503 (HTML) when the bank does not answer.',
        params: BoletoId,
        response: { 200: Type.Unsafe({ type: 'string', contentMediaType: 'application/pdf', description: 'PDF file' }), 404: HTML_PAGE, 429: HTML_PAGE, 503: HTML_PAGE },
      },
    },
    async (req, reply) => {
      const tx = await boleto(req.params.id);
      if (!tx) return html(reply, 404, boletoNotFound());
      const pdf = pdfOf(tx);
      if (!pdf || !tx.boleto_ref) {
        return html(reply, 404, boletoMessage({ title: 'PDF do banco indisponível', text: 'Este boleto não tem um PDF do banco. Na página do boleto, use “Imprimir ou salvar em PDF”.', boleto: summary(tx), back: true }));
      }
      const hit = await limiter.hit(`boleto-pdf:ip:${req.ip}`, 60_000);
      if (hit.count > PDFS_PER_IP_PER_MINUTE) {
        reply.header('Retry-After', String(Math.ceil(hit.resetMs / 1000)));
        return html(reply, 429, boletoMessage({ title: 'Muitos downloads seguidos', text: 'Aguarde um minuto e tente de novo.', boleto: summary(tx), back: true }));
      }
      let file: Buffer;
      try {
        file = await pdf(tx.boleto_ref);
      } catch (err) {
        req.log.warn({ err, transactionId: tx.id, provider: tx.provider }, "the bank did not render a boleto's PDF");
        reply.header('Retry-After', '60');
        return html(reply, 503, boletoMessage({ title: 'O banco não respondeu', text: 'Não foi possível baixar o PDF do banco agora. Tente de novo em alguns minutos, ou volte ao boleto e use “Imprimir ou salvar em PDF”.', boleto: summary(tx), back: true }));
      }
      return reply
        .type('application/pdf')
        .header('Content-Disposition', `attachment; filename="${pdfName(tx.display_id)}"`)
        .header('Cache-Control', 'private, no-store')
        .header('X-Content-Type-Options', 'nosniff')
        .send(file);
    },
  );

  app.get(
    '/boleto/:id',
    {
      schema: {
        tags: ['Public'],
        operationId: 'getBoletoPage',
        summary: 'Printable boleto page (HTML)',
        description: 'While the bank registers the boleto, a page that reloads itself every few seconds (200).',
        // Any text: a person who opened a mistyped address gets the page's "not found", not a JSON 400.
        params: BoletoId,
        response: { 200: HTML_PAGE, 404: HTML_PAGE },
      },
    },
    async (req, reply) => {
      const tx = await boleto(req.params.id);
      if (!tx) return html(reply, 404, boletoNotFound());
      if (!tx.boleto_barcode || !tx.boleto_line || !tx.due_date) {
        return html(reply, 200, tx.status === 'PENDING' ? boletoIssuing(summary(tx)) : boletoNotIssued(summary(tx)));
      }
      return html(
        reply,
        200,
        formatBoletoDocument({
          ...summary(tx),
          barcode: tx.boleto_barcode,
          digitableLine: tx.boleto_line,
          dueDate: tx.due_date,
          lastDay: tx.expires_at ? spDate(tx.expires_at) : tx.due_date,
          payerName: tx.client_name,
          payerDocument: tx.client_document,
          pixCode: tx.boleto_pix,
          paidWith: tx.paid_with,
          bankPdf: pdfOf(tx) !== null,
        }),
      );
    },
  );
}
