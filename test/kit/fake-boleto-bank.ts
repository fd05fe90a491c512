// A bank connector as the pages see one, for tests of the hosted pages without a bank: it registers
// boletos with the payer's address, issues them after the transaction is stored (ISSUING until the
// test calls issue(), which records the numbers and a hybrid Pix code through the core port) and
// renders their PDF (or fails to, on demand). The issuing sweep and Inter's API are tested elsewhere
// (test/boleto-bank.test.ts, test/inter/).
import assert from 'node:assert/strict';
import { buildBoleto } from '../../src/payments/boleto.ts';
import type { BoletoCharge, ChargeLookup, Connector, ConnectorCore, ConnectorEdges, ProviderResult, Rail, RefundResult } from '../../src/payments/connector.ts';
import type { RegistryOptions } from '../../src/payments/catalogue.ts';

export const FAKE_BANK = 'banco-teste';

export class FakeBoletoBank implements Connector {
  readonly name = FAKE_BANK;
  readonly rails: readonly Rail[] = ['BOLETO'];
  readonly needsPayerAddress = true;
  /** boletoPdf throws while true (the bank is down). */
  pdfFails = false;
  readonly pdfCalls: string[] = [];
  private core: ConnectorCore | null = null;

  async createBoleto(): Promise<null> {
    return null;
  }
  async cancelCharge(): Promise<ProviderResult> {
    return { ok: true };
  }
  async refund(): Promise<RefundResult> {
    return { ok: false, reason: 'REFUND_BY_PIX', message: 'refunded by Pix' };
  }
  async findCharge(): Promise<ChargeLookup | null> {
    return { status: 'PENDING' };
  }
  async findRefund(): Promise<RefundResult | null> {
    return null;
  }
  async boletoPdf(ref: string): Promise<Buffer> {
    this.pdfCalls.push(ref);
    if (this.pdfFails) throw new Error('banco-teste: connect ECONNREFUSED');
    return Buffer.from(`%PDF-1.4\n% boleto ${ref}\n%%EOF\n`);
  }
  edges(core: ConnectorCore): ConnectorEdges {
    this.core = core;
    return { routes: [], sweeps: [] };
  }

  /** The bank registers a boleto: its id (`ref`) and valid numbers for `amountCents` due `dueDate`, with a Pix code. */
  async issue(transactionId: string, ref: string, amountCents: number, dueDate: string, pixCode: string | null = `00020101021226pix-${ref}`): Promise<BoletoCharge> {
    const b = buildBoleto({ bankCode: '077', dueDate, amountCents, freeField: '1'.repeat(25) });
    const issued = { ...b, pixCode };
    assert.ok(this.core, 'the registry attached the core');
    assert.equal(await this.core.recordBoleto(transactionId, ref, issued), true, 'the boleto was recorded');
    return issued;
  }

  /** The payer pays at the bank, by the barcode or the Pix. */
  async pay(tx: { id: string; userId: string; livemode: boolean; chargedCents: number }, paidWith: 'BOLETO' | 'PIX'): Promise<void> {
    assert.ok(this.core);
    await this.core.applyEvents({ user_id: tx.userId, livemode: tx.livemode }, [{ transactionId: tx.id, outcome: 'PAID', reference: `paid-${tx.id}`, amountCents: tx.chargedCents, paidWith }]);
  }
}

/** startApp's `deps.connectors` with this bank as production's boleto connector. */
export function withFakeBank(bank: FakeBoletoBank): RegistryOptions {
  return { extra: [bank], production: { BOLETO: [FAKE_BANK] } };
}
