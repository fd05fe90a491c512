// The development sandbox decides a card that is none of its fixed test cards by Cielo's sandbox
// last-digit table (src/payments/sandbox/cielo-table.ts), for a card charged at once, on the hosted
// page's route and as a kept card (a subscription's or a saved card's token); the fixed test cards
// decide as they always did, whatever their last digit.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { declineOf } from '../src/payments/cielo/mapping.ts';
import { CIELO_LAST_DIGIT } from '../src/payments/sandbox/cielo-table.ts';
import { SANDBOX_APPROVED, SANDBOX_CARDS, sandboxDecline } from '../src/payments/sandbox/connector.ts';
import { call, cpf } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';

const YEAR = new Date().getUTCFullYear();
const card = (number: string) => ({ number, holderName: 'ANA SOUZA', expMonth: 12, expYear: YEAR + 3, cvv: '123' });

/** A Luhn-valid Visa number per last digit (the 15th digit chosen so the check holds). */
const BY_DIGIT: Record<string, string> = {
  '0': '4532015112830390',
  '1': '4532015112830341',
  '2': '4532015112830382',
  '3': '4532015112830333',
  '4': '4532015112830374',
  '5': '4532015112830325',
  '6': '4532015112830366',
  '7': '4532015112830317',
  '8': '4532015112830358',
  '9': '4532015112830309',
};

/** What each last digit must give: Cielo's status mapped to Cofre's outcome (docs/sandbox.md). */
const EXPECTED: Record<string, { status: 'PAID' | 'FAILED'; reason: string | null }> = {
  '0': { status: 'PAID', reason: null },
  '1': { status: 'PAID', reason: null },
  '2': { status: 'FAILED', reason: 'CARD_DECLINED' }, // 05 Not Authorized
  '3': { status: 'FAILED', reason: 'EXPIRED_CARD' }, // 57 Expired Card
  '4': { status: 'PAID', reason: null },
  '5': { status: 'FAILED', reason: 'STOLEN_CARD' }, // 78 Blocked Card: a hard decline
  '6': { status: 'FAILED', reason: 'PROCESSING_ERROR' }, // 99 Time Out
  '7': { status: 'FAILED', reason: 'STOLEN_CARD' }, // 77 Canceled Card: a hard decline
  '8': { status: 'FAILED', reason: 'INVALID_CARD' }, // 70 Problems with the Credit Card
  '9': { status: 'PAID', reason: null }, // Cielo: random; here always approved
};

describe('the table', () => {
  test('every last digit has a row, and the decision is the expected one', () => {
    assert.deepEqual(Object.keys(CIELO_LAST_DIGIT).sort(), Object.keys(EXPECTED));
    for (const [digit, want] of Object.entries(EXPECTED)) {
      const decline = sandboxDecline(BY_DIGIT[digit]);
      assert.equal(decline?.reason ?? null, want.reason, `final ${digit}`);
    }
  });

  test('the fixed test cards decide as before, whatever their last digit', () => {
    for (const n of SANDBOX_APPROVED) assert.equal(sandboxDecline(n), undefined, n);
    for (const [n, outcome] of Object.entries(SANDBOX_CARDS)) assert.deepEqual(sandboxDecline(n), outcome, n);
    // 4242...4242 ends in 2 (Cielo: Not Authorized) and 3782...0005 in 5 (Blocked): still approved.
    assert.ok(SANDBOX_APPROVED.has('4242424242424242') && SANDBOX_APPROVED.has('378282246310005'));
  });
});

describe('through the API', () => {
  const ctx = useApp();
  const m = useMerchant(ctx);
  const sale = (over: Record<string, unknown>) => ({ product: 'Curso', amountCents: 5000, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'CARD', ...over });

  test('a card charged at creation: each last digit gives its outcome', async () => {
    for (const [digit, want] of Object.entries(EXPECTED)) {
      const res = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: sale({ card: card(BY_DIGIT[digit]) }) });
      assert.equal(res.status, 201, res.raw);
      assert.equal(res.body.transaction.status, want.status, `final ${digit}`);
      assert.equal(res.body.transaction.failureReason, want.reason, `final ${digit}`);
    }
  });

  test("the hosted checkout's payment route decides the same way", async () => {
    for (const digit of ['3', '4']) {
      const created = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: sale({}) });
      assert.equal(created.status, 201, created.raw);
      const res = await call(ctx.app, 'POST', `/api/checkout/transactions/${created.body.transaction.id}/card`, { body: { card: card(BY_DIGIT[digit]) } });
      assert.equal(res.status, 200, res.raw);
      const after = await call(ctx.app, 'GET', `/api/v1/transactions/${created.body.transaction.id}`, { key: m.devKey });
      assert.equal(after.body.transaction.status, EXPECTED[digit].status, `final ${digit}`);
      assert.equal(after.body.transaction.failureReason, EXPECTED[digit].reason, `final ${digit}`);
    }
  });

  test('a saved card (its token) is charged as its number would be: each last digit', async () => {
    const client = await call(ctx.app, 'POST', '/api/clients', { key: m.devKey, body: { name: 'Ana Souza', email: 'ana@example.com', document: cpf() } });
    assert.equal(client.status, 201, client.raw);
    for (const [digit, want] of Object.entries(EXPECTED)) {
      const saved = await call(ctx.app, 'POST', '/api/v1/cards', { key: m.devKey, body: { clientId: client.body.client.id, card: card(BY_DIGIT[digit]) } });
      assert.equal(saved.status, 201, saved.raw);
      const res = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: sale({ clientDocument: client.body.client.document, cardId: saved.body.card.id }) });
      assert.equal(res.status, 201, res.raw);
      assert.equal(res.body.transaction.status, want.status, `final ${digit}`);
      assert.equal(res.body.transaction.failureReason, want.reason, `final ${digit}`);
    }
  });
});

test("the sandbox's last-digit reasons are the ones the cielo connector gives Cielo's ReturnCodes in production", () => {
  for (const [digit, row] of Object.entries(CIELO_LAST_DIGIT)) {
    if (!row.decline) continue;
    const code = /\((\d+)/.exec(row.cielo)?.[1];
    assert.ok(code, `digit ${digit} names its ReturnCode`);
    assert.equal(declineOf({ Status: 3, ReturnCode: code, ReturnMessage: 'x' }).reason, row.decline.reason, `digit ${digit} (ReturnCode ${code})`);
  }
});
