// The boleto's public pages beyond its numbers (payments-pages.test.ts has those): the hybrid
// boleto's Pix (its QR image and the "Pague com Pix" section), the bank's PDF, the page of a boleto
// the bank is still registering, how a paid one was paid; and on the checkout, the payer's address a
// registered boleto needs and the payment step while the bank registers it. The sandbox's boletos
// (development keys) and a production bank standing in for Inter (test/kit/fake-boleto-bank.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { App } from '../src/deps.ts';
import { formatDigitableLine } from '../src/payments/boleto.ts';
import { CHECKOUT_SCRIPT_URL } from '../src/web/assets.ts';
import { call, cpf } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { FakeBoletoBank, withFakeBank } from './kit/fake-boleto-bank.ts';
import { pngEncodes } from './kit/qr.ts';

const T = '/api/v1/transactions';
const ADDRESS = { zipCode: '01310-100', street: 'Avenida Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' };
const page = (app: App, url: string) => app.inject({ method: 'GET', url });
const path = (url: string) => new URL(url).pathname;
const status = async (app: App, id: string) => (await call(app, 'GET', `/api/checkout/transactions/${id}/status`)).body;

let seq = 0;
function sale(over: Record<string, unknown> = {}) {
  seq++;
  return { product: `Curso ${seq}`, amountCents: 15_990, clientName: 'Helena Rocha', clientEmail: `helena.${seq}@example.com`, clientDocument: cpf(), paymentMethod: 'BOLETO', ...over };
}

describe('sandbox boletos (hybrid: a Pix code too)', () => {
  const ctx = useApp();
  const m = useMerchant(ctx);
  const create = async (over: Record<string, unknown> = {}) => {
    const res = await call(ctx.app, 'POST', T, { key: m.devKey, body: sale(over) });
    assert.equal(res.status, 201, res.raw);
    return res.body.transaction;
  };

  test('/boleto/{id}/qr.png: a PNG of the boleto\'s Pix code, at the address its view gives; 404 { message } for no Pix', async () => {
    const t = await create();
    assert.equal(t.boleto.status, 'ISSUED');
    assert.match(t.boleto.pixCode, /^000201/);
    assert.equal(t.boleto.pixQrCodeImage, `${ctx.config.checkoutUrl}/boleto/${t.id}/qr.png`);
    const res = await page(ctx.app, path(t.boleto.pixQrCodeImage));
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^image\/png/);
    assert.ok(pngEncodes(res.rawPayload, t.boleto.pixCode), 'the image is a QR code of the Pix code');
    assert.ok(!pngEncodes(res.rawPayload, (await create()).boleto.pixCode), "and not of another boleto's");

    const pix = (await call(ctx.app, 'POST', T, { key: m.devKey, body: sale({ paymentMethod: 'PIX' }) })).body.transaction;
    const noPix = await create();
    await ctx.database.db.updateTable('transactions').set({ boleto_pix: null }).where('id', '=', noPix.id).execute();
    for (const url of [`/boleto/${pix.id}/qr.png`, `/boleto/${noPix.id}/qr.png`, '/boleto/01900000-0000-7000-8000-000000000000/qr.png', '/boleto/nao-existe/qr.png']) {
      const r = await call(ctx.app, 'GET', url);
      assert.equal(r.status, 404, url);
      assert.deepEqual(Object.keys(r.body), ['message'], url);
    }
  });

  test('the page of a payable hybrid boleto has "Pague com Pix": the QR, the copia e cola and its copy button', async () => {
    const t = await create();
    const res = await page(ctx.app, path(t.boleto.url));
    assert.equal(res.statusCode, 200);
    const html = res.body;
    assert.match(html, /<h2 id="pix-title">Pague com Pix<\/h2>/);
    assert.ok(html.includes(`<textarea id="pix-code" rows="5" readonly>${t.boleto.pixCode}</textarea>`), 'the copia e cola');
    assert.match(html, /<button type="button" data-copy="pix-code" hidden>Copiar código Pix<\/button>/);
    assert.ok(html.includes(`<img class="qr" src="/boleto/${t.id}/qr.png"`), 'the QR, from the route above');
    assert.ok(html.indexOf('Pague com Pix') < html.indexOf('Linha digitável'), 'the Pix before the line: it is paid at once');
    // No bank behind the sandbox: no PDF link.
    assert.ok(!html.includes('Baixar PDF do banco'));
    assert.ok(!html.includes('.pdf'));

    const noPix = await create();
    await ctx.database.db.updateTable('transactions').set({ boleto_pix: null }).where('id', '=', noPix.id).execute();
    const plain = (await page(ctx.app, `/boleto/${noPix.id}`)).body;
    assert.ok(!plain.includes('Pague com Pix') && !plain.includes('<img'), 'a boleto without a Pix code has no Pix section');
    assert.ok(plain.includes(formatDigitableLine(noPix.boleto.digitableLine)));
  });

  test('a paid boleto says how it was paid, and offers its Pix no more', async () => {
    for (const [paidWith, text] of [
      ['PIX', 'Pago com Pix'],
      ['BOLETO', 'Pago com boleto'],
    ] as const) {
      const t = await create();
      const sim = await call(ctx.app, 'POST', `${T}/${t.id}/simulate`, { key: m.devKey, body: { outcome: 'PAID', paidWith } });
      assert.equal(sim.status, 200, sim.raw);
      const html = (await page(ctx.app, `/boleto/${t.id}`)).body;
      assert.ok(html.includes(`<p id="status" class="status ok" role="status">${text}</p>`), text);
      assert.ok(html.includes(`<dt>Situação</dt><dd>${text}</dd>`), text);
      assert.ok(!html.includes('Pague com Pix'), 'no Pix to pay once paid');
    }
  });

  test('/boleto/{id}.pdf: 404 pages (never JSON) for a sandbox boleto, an unknown one and a mistyped address; beside /boleto/{id}', async () => {
    const t = await create();
    assert.equal(t.boleto.pdfUrl, undefined, 'the sandbox has no bank PDF');
    const res = await page(ctx.app, `/boleto/${t.id}.pdf`);
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /PDF do banco indisponível/);
    assert.ok(res.body.includes(`href="/boleto/${t.id}"`), 'a way back to the printable boleto');
    for (const url of ['/boleto/01900000-0000-7000-8000-000000000000.pdf', '/boleto/nao-existe.pdf']) {
      const r = await page(ctx.app, url);
      assert.equal(r.statusCode, 404, url);
      assert.match(r.body, /Boleto não encontrado/, url);
    }
    // The two routes side by side: the page is still the page.
    assert.equal((await page(ctx.app, `/boleto/${t.id}`)).statusCode, 200);
  });

  test('a boleto without its numbers yet (ISSUING): a 200 page that polls its status (a 5 s meta refresh without JavaScript); one that ended so: "Boleto não emitido"', async () => {
    const t = await create();
    await ctx.database.db.updateTable('transactions').set({ boleto_barcode: null, boleto_line: null, boleto_pix: null }).where('id', '=', t.id).execute();
    const res = await page(ctx.app, `/boleto/${t.id}`);
    assert.equal(res.statusCode, 200);
    // Refreshed by the script only once issued; every 5 s only where scripts do not run.
    assert.match(res.body, /<noscript><meta http-equiv="refresh" content="5"><\/noscript>/);
    assert.equal(res.body.match(/http-equiv="refresh"/g)?.length, 1);
    assert.deepEqual(res.body.match(/<script[^>]*>/gi), [`<script src="${CHECKOUT_SCRIPT_URL}" defer>`], 'the hosted pages\' file, nothing inline (CSP)');
    assert.ok(res.body.includes(`<div id="app" data-page="boleto-issuing" data-tx="${t.id}">`));
    assert.match(res.body, /Seu boleto está sendo registrado no banco/);
    assert.match(res.body, /R\$\s159,90/);
    assert.ok(!res.body.includes('Linha digitável'), 'no numbers yet');
    assert.equal(res.headers['cache-control'], 'private, no-cache');
    assert.deepEqual(await status(ctx.app, t.id), { status: 'PENDING', boleto: 'ISSUING' });

    await ctx.database.db.updateTable('transactions').set({ status: 'FAILED', failure_reason: 'BOLETO_REFUSED' }).where('id', '=', t.id).execute();
    const ended = await page(ctx.app, `/boleto/${t.id}`);
    assert.equal(ended.statusCode, 200);
    assert.match(ended.body, /Boleto não emitido/);
    assert.ok(!ended.body.includes('http-equiv="refresh"') && !ended.body.includes('data-page'), 'nothing left to wait for');
    assert.deepEqual(await status(ctx.app, (await create()).id), { status: 'PENDING', boleto: 'ISSUED' });
  });

  test('the checkout\'s boleto step shows the Pix (QR and copia e cola) before the line; the sandbox asks no address', async () => {
    const t = await create();
    const html = (await page(ctx.app, `/checkout/${t.id}`)).body;
    assert.match(html, /<h1 id="heading" tabindex="-1">Pague com Pix ou boleto<\/h1>/);
    assert.ok(html.includes(`<textarea id="boleto-pix" rows="5" readonly>${t.boleto.pixCode}</textarea>`));
    assert.ok(html.includes('data-copy="boleto-pix"') && html.includes(`src="/boleto/${t.id}/qr.png"`));
    assert.ok(html.indexOf('boleto-pix') < html.indexOf('boleto-line'));
    assert.ok(!html.includes('data-boleto='), 'issued: no wait for the bank');
    const link = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Curso', amountCents: 5000 } });
    const pay = (await page(ctx.app, `/pay/${link.body.paymentLink.slug}`)).body;
    assert.ok(!pay.includes('id="zip"'), 'the sandbox registers no boleto: no address');
  });
});

describe('production boletos of a bank (address, ISSUING, the bank\'s PDF)', () => {
  const bank = new FakeBoletoBank();
  const ctx = useApp({ deps: { connectors: withFakeBank(bank) } });
  const m = useMerchant(ctx, { live: true });
  const create = async () => {
    const res = await call(ctx.app, 'POST', T, { key: m.liveKey!, body: sale({ clientAddress: ADDRESS }) });
    assert.equal(res.status, 201, res.raw);
    return res.body.transaction;
  };
  const issue = async (t: { id: string; chargedCents: number; boleto: { dueDate: string } }, ref = `ref-${t.id}`) => {
    await bank.issue(t.id, ref, t.chargedCents, t.boleto.dueDate);
    return (await call(ctx.app, 'GET', `${T}/${t.id}`, { key: m.liveKey! })).body.transaction;
  };

  test('ISSUING: the page waits and reloads, the checkout step polls; issued, both show the numbers and the Pix', async () => {
    const t = await create();
    assert.equal(t.boleto.status, 'ISSUING');
    assert.match((await page(ctx.app, `/boleto/${t.id}`)).body, /Seu boleto está sendo registrado no banco/);
    assert.equal((await page(ctx.app, `/boleto/${t.id}.pdf`)).statusCode, 404, 'no PDF before the bank has the boleto');
    const step = (await page(ctx.app, `/checkout/${t.id}`)).body;
    assert.match(step, /<h1 id="heading" tabindex="-1">Gerando seu boleto<\/h1>/);
    assert.match(step, /data-poll="1" data-boleto="ISSUING"/);
    assert.match(step, /Seu boleto está sendo registrado no banco/);

    const done = await issue(t);
    assert.equal(done.boleto.status, 'ISSUED');
    assert.deepEqual(await status(ctx.app, t.id), { status: 'PENDING', boleto: 'ISSUED' });
    const html = (await page(ctx.app, `/boleto/${t.id}`)).body;
    assert.ok(html.includes(formatDigitableLine(done.boleto.digitableLine)));
    assert.match(html, /Pague com Pix/);
    assert.ok(!html.includes('Ambiente de testes'), 'production: no sandbox notice');
    const issuedStep = (await page(ctx.app, `/checkout/${t.id}`)).body;
    assert.ok(issuedStep.includes(`>${done.boleto.pixCode}</textarea>`));
    assert.ok(!issuedStep.includes('data-boleto='));
  });

  test("/boleto/{id}.pdf: the bank's PDF as an attachment named by the order; the page links to it; 503 page when the bank fails", async () => {
    const t = await issue(await create(), 'inter-codigo-123');
    assert.equal(t.boleto.pdfUrl, `${ctx.config.checkoutUrl}/boleto/${t.id}.pdf`);
    const html = (await page(ctx.app, `/boleto/${t.id}`)).body;
    assert.ok(html.includes(`<a class="button secondary" href="/boleto/${t.id}.pdf" download>Baixar PDF do banco</a>`));

    const res = await page(ctx.app, path(t.boleto.pdfUrl));
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.equal(res.headers['content-disposition'], `attachment; filename="boleto-${t.displayId}.pdf"`);
    assert.equal(res.headers['cache-control'], 'private, no-store');
    assert.ok(res.rawPayload.equals(Buffer.from('%PDF-1.4\n% boleto inter-codigo-123\n%%EOF\n')), 'the bytes the bank gave');
    assert.equal(bank.pdfCalls.at(-1), 'inter-codigo-123', "asked by the bank's id");
    const asked = bank.pdfCalls.length;
    assert.notEqual((await ctx.app.inject({ method: 'HEAD', url: path(t.boleto.pdfUrl) })).statusCode, 200);
    assert.equal(bank.pdfCalls.length, asked, 'a HEAD (a link preview) does not ask the bank');

    bank.pdfFails = true;
    try {
      const down = await page(ctx.app, path(t.boleto.pdfUrl));
      assert.equal(down.statusCode, 503);
      assert.match(String(down.headers['content-type']), /^text\/html/);
      assert.match(down.body, /O banco não respondeu/);
      assert.ok(down.body.includes(`href="/boleto/${t.id}"`));
      assert.equal(down.headers['retry-after'], '60');
      assert.ok(ctx.logs.some((l) => l.includes("the bank did not render a boleto's PDF")), 'logged');
    } finally {
      bank.pdfFails = false;
    }
  });

  test('the bank is asked for at most 20 PDFs a minute per address: then a 429 page with Retry-After, the bank left alone', async () => {
    const t = await issue(await create());
    const before = bank.pdfCalls.length;
    const codes: number[] = [];
    let refused: Awaited<ReturnType<typeof page>> | undefined;
    for (let i = 0; i < 22; i++) {
      const res = await page(ctx.app, `/boleto/${t.id}.pdf`);
      codes.push(res.statusCode);
      if (res.statusCode === 429) refused ??= res;
    }
    assert.ok(codes.includes(200) && codes.at(-1) === 429, codes.join(' '));
    assert.equal(bank.pdfCalls.length - before, codes.filter((c) => c === 200).length, 'a refused download never reaches the bank');
    assert.ok(bank.pdfCalls.length <= 20, `the bank was asked ${bank.pdfCalls.length} times this minute`);
    assert.match(String(refused!.headers['content-type']), /^text\/html/);
    assert.match(refused!.body, /Muitos downloads seguidos/);
    assert.ok(Number(refused!.headers['retry-after']) > 0);
  });

  test('a boleto paid at the bank by its Pix says so', async () => {
    const t = await issue(await create());
    await bank.pay({ id: t.id, userId: m.id, livemode: true, chargedCents: t.chargedCents }, 'PIX');
    const html = (await page(ctx.app, `/boleto/${t.id}`)).body;
    assert.match(html, /<dd>Pago com Pix<\/dd>/);
    assert.ok(!html.includes('Pague com Pix'));
  });

  test("the link page asks the payer's address in the Boleto panel only (once, when the link asks it of everyone)", async () => {
    const link = async (settings: Record<string, unknown> = {}) => {
      const res = await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.liveKey!, body: { title: 'Mentoria', amountCents: 30_000, settings } });
      assert.equal(res.status, 201, res.raw);
      return (await page(ctx.app, `/pay/${res.body.paymentLink.slug}`)).body;
    };
    const html = await link();
    const panel = /<div id="panel-BOLETO" class="panel" hidden>([\s\S]*?)<\/fieldset><\/div>/.exec(html);
    assert.ok(panel, 'the address is inside the Boleto panel, hidden until Boleto is picked');
    assert.match(panel[1], /<legend>Endereço do pagador<\/legend>/);
    for (const id of ['zip', 'street', 'number', 'neighborhood', 'city', 'state']) assert.match(panel[1], new RegExp(`<input id="${id}"[^>]* required`), id);
    assert.match(panel[1], /<input id="complement"(?![^>]*required)[^>]*>/);

    const everyone = await link({ requireAddress: true });
    assert.equal(everyone.match(/id="zip"/g)?.length, 1, 'one set of address fields');
    assert.match(everyone, /<legend>Endereço de entrega<\/legend>/);
    assert.ok(!(await link({ boletoEnabled: false })).includes('id="zip"'), 'no boleto, no address');
  });
});
