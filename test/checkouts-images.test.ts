// Branding images through the SSRF guard as in production (WEBHOOK_ALLOW_PRIVATE_TARGETS off): the
// checkout and payment-link routes refuse loopback, private and metadata addresses and plain http
// with a 400 on the field, and write nothing (issue 37).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assertFieldError } from './kit/assert.ts';

const ctx = useApp();
const m = useMerchant(ctx);

describe('branding images as in production', () => {
  test('loopback, private, metadata and http addresses are refused on the field; nothing is saved', async () => {
    const before = await ctx.database.db.selectFrom('checkouts').select('id').where('user_id', '=', m.id).execute();
    for (const url of ['https://127.0.0.1/logo.png', 'https://localhost/logo.png', 'https://10.0.0.5/logo.png', 'https://169.254.169.254/latest/meta-data', 'http://example.com/logo.png']) {
      assertFieldError(await call(ctx.app, 'POST', '/api/v1/checkouts', { key: m.devKey, body: { name: 'x', customization: { logoUrl: url } } }), 'customization.logoUrl');
      assertFieldError(await call(ctx.app, 'POST', '/api/v1/checkouts', { key: m.devKey, body: { name: 'x', checkoutConfig: { theme: { bannerUrl: url } } } }), 'checkoutConfig.theme.bannerUrl');
      assertFieldError(await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'x', amountCents: 100, checkoutConfig: { theme: { logoUrl: url } } } }), 'checkoutConfig.theme.logoUrl');
    }
    assert.deepEqual(await ctx.database.db.selectFrom('checkouts').select('id').where('user_id', '=', m.id).execute(), before);
    assert.equal((await ctx.database.db.selectFrom('media_images').select('id').where('user_id', '=', m.id).execute()).length, 0);
  });
});
