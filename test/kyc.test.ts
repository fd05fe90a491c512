// KYC: submission rules (person/company, documents by magic bytes, sizes, the 25 MB route limit),
// states (SUBMITTED -> APPROVED | REJECTED, resubmission after a rejection), the operator's review
// and file download, events in both environments, and what approved KYC unlocks (production keys).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { call, emailedCode, merchant, operator, type Merchant } from './helpers.ts';
import { assert400, assertMessageOnly, UUID } from './kit/assert.ts';
import { ready, useApp, useBefore } from './kit/app.ts';
import { doc, eventsOf, JPEG, kycBody, PDF, PNG, WEBP } from './wallet-helpers.ts';

const ctx = useApp();
const op = useBefore('an operator', async () => operator((await ready(ctx)).app));

const submit = (m: Merchant, body: unknown) => call(ctx.app, 'POST', '/api/kyc', { token: m.token, body });
const status = async (m: Merchant) => (await call(ctx.app, 'GET', '/api/kyc', { token: m.token })).body;
const admin = (method: string, url: string, body?: unknown, token = op.token) => call(ctx.app, method, url, { token, body });

describe('submit', () => {
  test('before anything: NOT_SUBMITTED; a PF submission: 201 SUBMITTED with the documents’ metadata, never their contents', async () => {
    const m = await merchant(ctx.app);
    assert.deepEqual(await status(m), { message: 'OK', status: 'NOT_SUBMITTED', kyc: null });
    const body = kycBody({ document: '529.982.247-25' });
    const res = await submit(m, body);
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.status, 'SUBMITTED');
    const k = res.body.kyc;
    assert.match(k.id, UUID);
    assert.equal(k.userId, m.id);
    assert.equal(k.status, 'SUBMITTED');
    assert.equal(k.personType, 'PF');
    assert.equal(k.legalName, 'Maria da Silva');
    assert.equal(k.document, '52998224725');
    assert.equal(k.birthDate, '1988-04-12');
    assert.equal(k.foundingDate, null);
    assert.deepEqual(k.address, { street: 'Avenida Paulista', number: '1000', complement: 'Sala 12', district: 'Bela Vista', city: 'São Paulo', state: 'SP', zipCode: '01310100' });
    assert.equal(k.reviewReason, null);
    assert.equal(k.documents.length, 2);
    assert.deepEqual(
      k.documents.map((d: Record<string, unknown>) => [d.type, d.fileName, d.contentType, d.sizeBytes, d.sha256]),
      [
        ['IDENTITY_FRONT', 'rg-frente.png', 'image/png', PNG.length, createHash('sha256').update(PNG).digest('hex')],
        ['SELFIE', 'selfie.jpg', 'image/jpeg', JPEG.length, createHash('sha256').update(JPEG).digest('hex')],
      ],
    );
    assert.ok(!res.raw.includes(PNG.toString('base64')), 'file contents are not echoed');
    const now = await status(m);
    assert.equal(now.status, 'SUBMITTED');
    assert.deepEqual(now.kyc, k);
    // kyc.submitted, in both environments, with the document masked.
    const events = (await eventsOf(ctx, m.id)).filter((e) => e.type.startsWith('kyc.'));
    assert.deepEqual(events.map((e) => [e.type, e.livemode]).sort(), [['kyc.submitted', false], ['kyc.submitted', true]]);
    assert.equal(events[0].data.document, '***.982.247-**');
    assert.ok(!JSON.stringify(events).includes('52998224725'));
    // Under review: a second submission is refused.
    assert400(await submit(m, kycBody()), 'INVALID_STATE_TRANSITION', ['status']);
  });

  test('PJ: CNPJ and foundingDate; WebP and PDF documents', async () => {
    const m = await merchant(ctx.app);
    const res = await submit(m, kycBody({ personType: 'PJ', legalName: 'Loja Exemplo LTDA', document: '11.222.333/0001-81', birthDate: undefined, foundingDate: '2015-06-01', documents: [doc('COMPANY_REGISTRATION', PDF, 'application/pdf', 'contrato.pdf'), doc('IDENTITY_FRONT', WEBP, 'image/webp', 'socio.webp')] }));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.kyc.document, '11222333000181');
    assert.equal(res.body.kyc.foundingDate, '2015-06-01');
    assert.equal(res.body.kyc.birthDate, null);
    assert.deepEqual(res.body.kyc.documents.map((d: { contentType: string }) => d.contentType), ['application/pdf', 'image/webp']);
  });

  test('identity rules: the document matches the person type, dates make sense', async () => {
    const m = await merchant(ctx.app);
    assert400(await submit(m, kycBody({ document: '11.222.333/0001-81' })), 'VALIDATION_ERROR', ['document']);
    assert400(await submit(m, kycBody({ personType: 'PJ', document: '529.982.247-25', birthDate: undefined, foundingDate: '2015-01-01' })), 'VALIDATION_ERROR', ['document']);
    assert400(await submit(m, kycBody({ document: '529.982.247-24' })), 'INVALID_DOCUMENT', ['document']);
    assert400(await submit(m, kycBody({ birthDate: undefined })), 'VALIDATION_ERROR', ['birthDate']);
    assert400(await submit(m, kycBody({ foundingDate: '2000-01-01' })), 'VALIDATION_ERROR', ['foundingDate']);
    const sixteen = new Date(Date.now() - 16 * 365.25 * 86_400_000).toISOString().slice(0, 10);
    assert400(await submit(m, kycBody({ birthDate: sixteen })), 'VALIDATION_ERROR', ['birthDate']);
    assert400(await submit(m, kycBody({ birthDate: '1990-02-30' })), 'VALIDATION_ERROR');
    assert400(await submit(m, kycBody({ birthDate: '12/04/1988' })), 'VALIDATION_ERROR');
    const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    assert400(await submit(m, kycBody({ personType: 'PJ', document: '11.222.333/0001-81', birthDate: undefined, foundingDate: tomorrow })), 'VALIDATION_ERROR', ['foundingDate']);
    assert400(await submit(m, kycBody({ legalName: '<b></b>' })), 'VALIDATION_ERROR', ['legalName']);
    assert400(await submit(m, kycBody({ address: { street: 'R', number: '1', district: 'C', city: 'X', state: 'São', zipCode: '0131' } })), 'VALIDATION_ERROR');
    assert400(await submit(m, kycBody({ personType: 'ME' })), 'VALIDATION_ERROR', ['personType']);
    assert.equal((await status(m)).status, 'NOT_SUBMITTED');
  });

  test('documents: PNG, JPEG, WebP or PDF by their first bytes, matching the declared type, 5 MB each, 1 to 10', async () => {
    const m = await merchant(ctx.app);
    const one = (d: unknown) => kycBody({ documents: [d] });
    assert400(await submit(m, one(doc('SELFIE', PNG, 'image/jpeg'))), 'VALIDATION_ERROR', ['documents.0.contentType']);
    assert400(await submit(m, one(doc('SELFIE', Buffer.from('just some text, not an image'), 'image/png'))), 'VALIDATION_ERROR', ['documents.0.contentBase64']);
    assert400(await submit(m, one(doc('SELFIE', Buffer.from('GIF89a....'), 'image/png'))), 'VALIDATION_ERROR', ['documents.0.contentBase64']);
    assert400(await submit(m, one(doc('SELFIE', Buffer.from('MZ\x90\x00 executable'), 'application/pdf'))), 'VALIDATION_ERROR', ['documents.0.contentBase64']);
    assert400(await submit(m, one(doc('SELFIE', Buffer.from('GIF89a....'), 'image/gif'))), 'VALIDATION_ERROR');
    assert400(await submit(m, one({ ...doc('SELFIE', PNG, 'image/png'), contentBase64: 'not base64!!' })), 'VALIDATION_ERROR', ['documents.0.contentBase64']);
    assert400(await submit(m, one({ ...doc('SELFIE', PNG, 'image/png'), contentBase64: PNG.toString('base64').slice(0, -2) + '\n==' })), 'VALIDATION_ERROR', ['documents.0.contentBase64']);
    assert400(await submit(m, one(doc('PASSPORT_SCAN', PNG, 'image/png'))), 'VALIDATION_ERROR');
    assert400(await submit(m, kycBody({ documents: [] })), 'VALIDATION_ERROR', ['documents']);
    assert400(await submit(m, kycBody({ documents: Array.from({ length: 11 }, () => doc('OTHER', PDF, 'application/pdf')) })), 'VALIDATION_ERROR', ['documents']);
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 + 1 - PNG.length)]);
    assert400(await submit(m, one(doc('SELFIE', big, 'image/png'))), 'VALIDATION_ERROR', ['documents.0.contentBase64']);
    // A file name cannot smuggle a path or markup.
    const named = await submit(m, one(doc('SELFIE', PNG, 'image/png', '../../etc/<b>passwd</b>.png')));
    assert.equal(named.status, 201, named.raw);
    assert.equal(named.body.kyc.documents[0].fileName, '.._.._etc_passwd.png');
  });

  test('file names lose control characters (CR/LF, tabs), line separators and bidi overrides', async () => {
    const m = await merchant(ctx.app);
    const res = await submit(m, kycBody({ documents: [doc('SELFIE', PNG, 'image/png', 'foto\r\nX-Injected: 1\t\u0085\u2028selfie\u202Egnp.png')] }));
    assert.equal(res.status, 201, res.raw);
    assert.equal(res.body.kyc.documents[0].fileName, 'fotoX-Injected: 1selfiegnp.png');
    const row = await ctx.database.db.selectFrom('kyc_documents').select('file_name').where('user_id', '=', m.id).executeTakeFirstOrThrow();
    assert.equal(row.file_name, 'fotoX-Injected: 1selfiegnp.png');
  });

  test('this route alone accepts bodies up to 25 MB (three 5 MB documents); larger is 413; other routes stay at 1 MB', async () => {
    const m = await merchant(ctx.app);
    const five = Buffer.concat([PDF, Buffer.alloc(5 * 1024 * 1024 - PDF.length, 0x20)]);
    const res = await submit(m, kycBody({ documents: [doc('IDENTITY_FRONT', five, 'application/pdf'), doc('IDENTITY_BACK', five, 'application/pdf'), doc('PROOF_OF_ADDRESS', five, 'application/pdf')] }));
    assert.equal(res.status, 201, res.raw.slice(0, 500));
    assert.deepEqual(res.body.kyc.documents.map((d: { sizeBytes: number }) => d.sizeBytes), [five.length, five.length, five.length]);
    const other = await merchant(ctx.app);
    const tooBig = JSON.stringify(kycBody({ documents: Array.from({ length: 4 }, () => doc('OTHER', five, 'application/pdf')) }));
    assert.ok(tooBig.length > 25 * 1024 * 1024);
    const refused = await call(ctx.app, 'POST', '/api/kyc', { token: other.token, raw: tooBig, headers: { 'content-type': 'application/json' } });
    assertMessageOnly(refused, 413);
    const elsewhere = await call(ctx.app, 'POST', '/api/v1/transactions', { key: other.devKey, raw: JSON.stringify({ product: 'x'.repeat(2 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } });
    assertMessageOnly(elsewhere, 413);
  });

  test('dashboard token only: an API key is a 401; no credentials 401', async () => {
    const m = await merchant(ctx.app);
    assertMessageOnly(await call(ctx.app, 'POST', '/api/kyc', { key: m.devKey, body: kycBody() }), 401);
    assertMessageOnly(await call(ctx.app, 'GET', '/api/kyc', { key: m.devKey }), 401);
    assertMessageOnly(await call(ctx.app, 'GET', '/api/kyc'), 401);
  });
});

describe('review', () => {
  test('operators list the queue (oldest first), read a submission and download its files', async () => {
    const a = await merchant(ctx.app);
    const b = await merchant(ctx.app);
    const ka = (await submit(a, kycBody())).body.kyc;
    const kb = (await submit(b, kycBody())).body.kyc;
    const queue = await admin('GET', '/api/admin/kyc?limit=100');
    assert.equal(queue.status, 200, queue.raw);
    const ids = queue.body.data.map((k: { id: string }) => k.id);
    assert.ok(ids.indexOf(ka.id) >= 0 && ids.indexOf(ka.id) < ids.indexOf(kb.id));
    assert.ok(queue.body.data.every((k: { status: string }) => k.status === 'SUBMITTED'));
    assert.deepEqual(Object.keys(queue.body.meta).sort(), ['limit', 'page', 'total', 'totalPages']);
    const mine = await admin('GET', `/api/admin/kyc?userId=${a.id}`);
    assert.deepEqual(mine.body.data.map((k: { id: string }) => k.id), [ka.id]);
    const one = await admin('GET', `/api/admin/kyc/${ka.id}`);
    assert.deepEqual(one.body.data, ka);
    const file = await ctx.app.inject({ method: 'GET', url: `/api/admin/kyc/${ka.id}/documents/${ka.documents[0].id}`, headers: { authorization: `Bearer ${op.token}` } });
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'image/png');
    assert.equal(file.headers['x-content-type-options'], 'nosniff');
    assert.match(String(file.headers['content-disposition']), /^attachment; filename="rg-frente.png"$/);
    assert.deepEqual(file.rawPayload, PNG);
    assertMessageOnly(await admin('GET', `/api/admin/kyc/${ka.id}/documents/${kb.documents[0].id}`), 404);
    assertMessageOnly(await admin('GET', `/api/admin/kyc/00000000-0000-4000-8000-000000000000`), 404);
  });

  test('approve: SUBMITTED -> APPROVED once, kyc.approved in both environments; then production keys can be created', async () => {
    const m = await merchant(ctx.app);
    const k = (await submit(m, kycBody())).body.kyc;
    assertMessageOnly(await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'live', environment: 'PRODUCTION' }, headers: { 'x-second-factor': await emailedCode(ctx.app, m.token, m.id) } }), 403);
    const res = await admin('POST', `/api/admin/kyc/${k.id}/approve`);
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.data.status, 'APPROVED');
    assert.equal(res.body.data.reviewReason, null);
    assert.ok(res.body.data.reviewedAt);
    assert.equal((await status(m)).status, 'APPROVED');
    const events = (await eventsOf(ctx, m.id)).filter((e) => e.type === 'kyc.approved');
    assert.deepEqual(events.map((e) => e.livemode).sort(), [false, true]);
    assert400(await admin('POST', `/api/admin/kyc/${k.id}/approve`), 'INVALID_STATE_TRANSITION');
    assert400(await admin('POST', `/api/admin/kyc/${k.id}/reject`, { reason: 'late' }), 'INVALID_STATE_TRANSITION');
    // Approved: no resubmission; production keys now work.
    assert400(await submit(m, kycBody()), 'INVALID_STATE_TRANSITION', ['status']);
    const live = await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'live', environment: 'PRODUCTION' }, headers: { 'x-second-factor': await emailedCode(ctx.app, m.token, m.id) } });
    assert.equal(live.status, 201, live.raw);
    assert.equal((await call(ctx.app, 'GET', '/api/v1/products', { key: live.body.key })).status, 200);
  });

  test("an operator cannot decide on their own account (KYC, fees): 403, and another operator can", async () => {
    const self = await operator(ctx.app);
    const own = await call(ctx.app, 'POST', '/api/kyc', { token: self.token, body: kycBody() });
    assert.equal(own.status, 201, own.raw);
    assertMessageOnly(await admin('POST', `/api/admin/kyc/${own.body.kyc.id}/approve`, {}, self.token), 403);
    assertMessageOnly(await admin('POST', `/api/admin/kyc/${own.body.kyc.id}/reject`, { reason: 'x' }, self.token), 403);
    assertMessageOnly(await admin('PUT', `/api/admin/merchants/${self.id}/fees`, { pixPercentBp: 0 }, self.token), 403);
    assert.equal((await admin('POST', `/api/admin/kyc/${own.body.kyc.id}/approve`)).status, 200);
  });

  test('reject needs a reason; the merchant sees it and may submit again', async () => {
    const m = await merchant(ctx.app);
    const k = (await submit(m, kycBody())).body.kyc;
    assert400(await admin('POST', `/api/admin/kyc/${k.id}/reject`), 'VALIDATION_ERROR', ['reason']);
    assert400(await admin('POST', `/api/admin/kyc/${k.id}/reject`, { reason: '' }), 'VALIDATION_ERROR', ['reason']);
    assert400(await admin('POST', `/api/admin/kyc/${k.id}/reject`, { reason: '<i></i>' }), 'VALIDATION_ERROR', ['reason']);
    const res = await admin('POST', `/api/admin/kyc/${k.id}/reject`, { reason: 'Selfie ilegível' });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.data.status, 'REJECTED');
    const seen = await status(m);
    assert.equal(seen.status, 'REJECTED');
    assert.equal(seen.kyc.reviewReason, 'Selfie ilegível');
    const rejected = (await eventsOf(ctx, m.id)).filter((e) => e.type === 'kyc.rejected');
    assert.equal(rejected.length, 2);
    assert.equal(rejected[0].data.reason, 'Selfie ilegível');
    assertMessageOnly(await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'live', environment: 'PRODUCTION' }, headers: { 'x-second-factor': await emailedCode(ctx.app, m.token, m.id) } }), 403);
    const again = await submit(m, kycBody());
    assert.equal(again.status, 201, again.raw);
    assert.notEqual(again.body.kyc.id, k.id);
    assert.equal((await status(m)).status, 'SUBMITTED');
    assert.equal((await admin('GET', `/api/admin/kyc?status=REJECTED&userId=${m.id}`)).body.data[0].id, k.id);
  });

  test('operator routes: merchants (token or key) are refused; unknown ids 404', async () => {
    const m = await merchant(ctx.app);
    const k = (await submit(m, kycBody())).body.kyc;
    for (const [method, url, body] of [
      ['GET', '/api/admin/kyc', undefined],
      ['GET', `/api/admin/kyc/${k.id}`, undefined],
      ['GET', `/api/admin/kyc/${k.id}/documents/${k.documents[0].id}`, undefined],
      ['POST', `/api/admin/kyc/${k.id}/approve`, {}],
      ['POST', `/api/admin/kyc/${k.id}/reject`, { reason: 'x' }],
      ['GET', '/api/admin/advances', undefined],
      ['POST', `/api/admin/advances/${k.id}/approve`, {}],
      ['POST', `/api/admin/advances/${k.id}/reject`, { reason: 'x' }],
      ['GET', '/api/admin/withdrawals', undefined],
      ['POST', `/api/admin/withdrawals/${k.id}/complete`, {}],
      ['POST', `/api/admin/withdrawals/${k.id}/fail`, { reason: 'x' }],
    ] as const) {
      assertMessageOnly(await call(ctx.app, method, url, { token: m.token, body }), 403);
      assertMessageOnly(await call(ctx.app, method, url, { key: m.devKey, body }), 401);
      assertMessageOnly(await call(ctx.app, method, url, { body }), 401);
    }
    assert.equal((await status(m)).status, 'SUBMITTED');
    assertMessageOnly(await admin('POST', `/api/admin/kyc/00000000-0000-4000-8000-000000000000/approve`), 404);
  });
});
