// A bank's books in memory behind the InterBank port (src/payments/inter/bank.ts), for the core's
// side of bank-issued boletos: issuing after the transaction is stored, lost answers, refusals,
// confirmations, reconciliation, expiry and cancellation. Inter's own HTTP API is exercised against
// the fake Inter (test/fake-inter) in test/inter/*.
import { randomUUID } from 'node:crypto';
import { BoletoRefused } from '../src/payments/boleto-issuing.ts';
import { buildBoleto } from '../src/payments/boleto.ts';
import type { BoletoRequest } from '../src/payments/connector.ts';
import { seuNumeroOf, type InterBank, type InterCharge } from '../src/payments/inter/bank.ts';

type Held = InterCharge & { req: BoletoRequest; polls: number; createdAt: Date };

export class Books implements InterBank {
  charges = new Map<string, Held>();
  calls = { issue: [] as string[], charge: 0, find: 0, cancel: [] as string[], list: 0 };
  /** down: every call throws; loseIssue: the next issue is made, then its answer lost; refuse: issue refuses; polls: lookups before the numbers. */
  mode = { down: false, loseIssue: false, refuse: false, polls: 1 };
  webhook: string | null = null;

  private check(): void {
    if (this.mode.down) throw new Error('inter: connect ECONNREFUSED');
  }
  async issue(req: BoletoRequest): Promise<string> {
    this.check();
    this.calls.issue.push(req.transactionId);
    if (this.mode.refuse) throw new BoletoRefused('pagador.cep: CEP inválido');
    const reference = randomUUID();
    this.charges.set(reference, { reference, seuNumero: seuNumeroOf(req.transactionId), state: 'ISSUING', numbers: null, req, polls: this.mode.polls, createdAt: new Date() });
    if (this.mode.loseIssue) {
      this.mode.loseIssue = false;
      throw new Error('inter: socket hang up');
    }
    return reference;
  }
  async charge(reference: string): Promise<InterCharge | null> {
    this.check();
    this.calls.charge += 1;
    const c = this.charges.get(reference);
    if (!c) return null;
    if (c.state === 'ISSUING' && --c.polls <= 0) {
      const b = buildBoleto({ bankCode: '077', dueDate: c.req.dueDate, amountCents: c.req.amountCents, freeField: '1'.repeat(25) });
      Object.assign(c, { state: 'ISSUED', numbers: { ...b, pixCode: `00020101pix-${c.seuNumero}` } });
    }
    return { ...c };
  }
  async findBySeuNumero(seuNumero: string): Promise<InterCharge | null> {
    this.check();
    this.calls.find += 1;
    return [...this.charges.values()].find((c) => c.seuNumero === seuNumero) ?? null;
  }
  async listPaid(from: Date, to: Date): Promise<InterCharge[]> {
    this.check();
    this.calls.list += 1;
    return [...this.charges.values()].filter((c) => c.state === 'PAID' && c.paidAt && c.paidAt >= from && c.paidAt <= to);
  }
  async cancel(reference: string): Promise<void> {
    this.check();
    this.calls.cancel.push(reference);
    const c = this.charges.get(reference);
    if (c && c.state !== 'PAID') c.state = 'CANCELLED';
  }
  async pdf(reference: string): Promise<Buffer> {
    this.check();
    return Buffer.from(`%PDF-1.4 boleto ${reference}`);
  }
  async registerWebhook(url: string): Promise<void> {
    this.check();
    this.webhook = url;
  }
  /** The payer pays at the bank (its barcode or its Pix), for `cents` (default: the amount). */
  pay(reference: string, paidWith: 'BOLETO' | 'PIX', cents?: number): void {
    const c = this.charges.get(reference)!;
    Object.assign(c, { state: 'PAID', paidCents: cents ?? c.req.amountCents, paidAt: new Date(), paidWith });
  }
  /** The charge issued for a transaction. */
  of(transactionId: string): Held | undefined {
    return [...this.charges.values()].find((c) => c.req.transactionId === transactionId);
  }
}
