// Boletos a bank issues after the transaction is stored (a registered boleto takes the bank
// seconds): the creation answers at once with the boleto ISSUING, and this sweep sends each one to
// its bank, keeps the bank's id, and asks for the numbers until they are there (ISSUED). A process
// claims a boleto for a lease (boleto_issuing) before it calls the bank, so two processes never
// send the same one; a request whose answer was lost is found at the bank by our number before it
// is sent again. Shared by every bank connector: a bank supplies an IssuingBank.
import { sql } from 'kysely';
import type { Transaction } from '../db/types.ts';
import { DAY_MS, endOfSpDay } from './calendar.ts';
import type { BoletoCharge, BoletoRequest, ConnectorCore, PayerAddress } from './connector.ts';

/** What a bank connector does for the sweep. Throw BoletoRefused for a request the bank will never take. */
export interface IssuingBank {
  /** Sends the request (the bank's number of the boleto derived from our transaction id); returns the bank's id. */
  issue(req: BoletoRequest): Promise<string>;
  /** The bank's id of a boleto already issued for our transaction (a lost answer), or null. */
  find(transactionId: string, createdAt: Date): Promise<string | null>;
  /** The numbers once the bank has them, null while it is still issuing. */
  numbers(ref: string): Promise<BoletoCharge | null>;
  /** Withdraws a boleto (issued for a payment cancelled meanwhile). */
  cancel(ref: string): Promise<void>;
}

/** The bank refused the request for good (the payer's data, the amount): the payment fails. */
export class BoletoRefused extends Error {
  override name = 'BoletoRefused';
}

/** failureReason of a boleto its bank refused to issue. */
export const BOLETO_REFUSED = 'BOLETO_REFUSED';

export interface IssuingOptions {
  /** How many boletos one run works on at once (each waits on the bank). */
  batch: number;
  /** How long a claim lasts: a process that died is replaced after it. */
  leaseMs: number;
  /** The wait before asking again for numbers the bank does not have yet. */
  pollMs: number;
  /** The wait after a failed call, times 2^(tries-1), at most an hour. */
  backoffMs: number;
  /** Whether a creation starts a run in this process at once: only where the background jobs run (an API-only process leaves the bank to the workers). */
  nudge: boolean;
}

const MAX_RUNS = 4;

export const DEFAULT_ISSUING: IssuingOptions = { batch: 50, leaseMs: 60_000, pollMs: 2_000, backoffMs: 5_000, nudge: true };

/** The request a stored boleto was created with. */
export function requestOf(tx: Transaction): BoletoRequest {
  const afterDue = tx.expires_at && tx.due_date ? Math.max(0, Math.round((tx.expires_at.getTime() - endOfSpDay(tx.due_date).getTime()) / DAY_MS)) : 0;
  return {
    transactionId: tx.id,
    amountCents: tx.charged_cents,
    dueDate: tx.due_date ?? '',
    daysAfterDue: afterDue,
    payer: { name: tx.client_name, email: tx.client_email, document: tx.client_document },
    address: (tx.address as PayerAddress | null) ?? null,
    description: tx.product,
  };
}

export class BoletoIssuer {
  private readonly connector: string;
  private readonly bank: IssuingBank;
  private readonly core: ConnectorCore;
  private readonly opts: IssuingOptions;
  private nudged: NodeJS.Timeout | null = null;
  /** Runs in flight in this process (a nudge adds one only below MAX_RUNS: the bank sees at most MAX_RUNS × batch calls at once). */
  private running = 0;
  constructor(connector: string, bank: IssuingBank, core: ConnectorCore, opts: Partial<IssuingOptions> = {}) {
    this.connector = connector;
    this.bank = bank;
    this.core = core;
    this.opts = { ...DEFAULT_ISSUING, ...opts };
  }

  /** A run soon (a boleto was just created), not waiting for the job runner's next tick. */
  nudge(): void {
    if (!this.opts.nudge || this.nudged || this.running >= MAX_RUNS) return;
    this.nudged = setTimeout(() => {
      this.nudged = null;
      this.run().catch((err) => this.core.log.error({ err: String(err) }, `${this.connector}: boleto issuing failed`));
    }, 200);
    this.nudged.unref();
  }

  close(): void {
    if (this.nudged) clearTimeout(this.nudged);
  }

  /** Boletos one run works on: a run that finished as many may have left more (the job runner runs it again). */
  get batch(): number {
    return this.opts.batch;
  }

  /** One batch: the boletos claimed, each sent or asked about; returns how many were ISSUED or failed. */
  async run(now = new Date()): Promise<number> {
    this.running += 1;
    try {
      const claimed = await this.claim(now);
      const done = await Promise.all(claimed.map((tx) => this.work(tx)));
      return done.filter(Boolean).length;
    } finally {
      this.running -= 1;
    }
  }

  /** Claims up to a batch of this connector's ISSUING boletos whose lease is free (one statement: no two processes get one). */
  private async claim(now: Date): Promise<Transaction[]> {
    // Claims of boletos settled otherwise meanwhile (cancelled, expired) are dropped first.
    await sql`DELETE FROM boleto_issuing b USING transactions t WHERE t.id = b.transaction_id AND t.status <> 'PENDING'`.execute(this.core.db);
    const until = new Date(now.getTime() + this.opts.leaseMs);
    const ids = await sql<{ transaction_id: string }>`
      INSERT INTO boleto_issuing (transaction_id, lease_until)
      SELECT t.id, ${until} FROM transactions t LEFT JOIN boleto_issuing b ON b.transaction_id = t.id
       WHERE t.provider = ${this.connector} AND t.payment_method = 'BOLETO' AND t.status = 'PENDING' AND t.boleto_barcode IS NULL
         AND (b.lease_until IS NULL OR b.lease_until <= ${now})
       ORDER BY t.created_at LIMIT ${this.opts.batch}
      ON CONFLICT (transaction_id) DO UPDATE SET lease_until = excluded.lease_until WHERE boleto_issuing.lease_until <= ${now}
      RETURNING transaction_id`.execute(this.core.db);
    if (!ids.rows.length) return [];
    return this.core.db.selectFrom('transactions').selectAll().where('id', 'in', ids.rows.map((r) => r.transaction_id)).execute();
  }

  /** Sends or follows one boleto; true once it is ISSUED or failed for good. */
  private async work(tx: Transaction): Promise<boolean> {
    const tries = await this.tried(tx.id);
    try {
      let ref = tx.boleto_ref ?? (tries > 1 ? await this.bank.find(tx.id, tx.created_at) : null);
      if (!ref) ref = await this.bank.issue(requestOf(tx));
      const numbers = await this.bank.numbers(ref);
      const recorded = await this.core.recordBoleto(tx.id, ref, numbers);
      // Cancelled while the bank issued it: it must not stay payable there.
      if (!recorded) await this.bank.cancel(ref);
      if (numbers || !recorded) return this.release(tx.id);
      await this.retryIn(tx.id, this.opts.pollMs, null);
      return false;
    } catch (err) {
      if (err instanceof BoletoRefused) return this.refuse(tx, err.message);
      this.core.log.warn({ transactionId: tx.id, tries, err: String(err) }, `${this.connector}: boleto not issued yet; tried again later`);
      await this.retryIn(tx.id, Math.min(3_600_000, this.opts.backoffMs * 2 ** Math.max(0, tries - 1)), String(err).slice(0, 500));
      return false;
    }
  }

  /** Counts this claim as a try; returns the tries so far (1: the first). */
  private async tried(id: string): Promise<number> {
    const row = await this.core.db.updateTable('boleto_issuing').set((eb) => ({ tries: eb('tries', '+', 1) })).where('transaction_id', '=', id).returning('tries').executeTakeFirst();
    return row?.tries ?? 1;
  }

  private async retryIn(id: string, ms: number, error: string | null): Promise<void> {
    await this.core.db.updateTable('boleto_issuing').set({ lease_until: new Date(Date.now() + ms), last_error: error }).where('transaction_id', '=', id).execute();
  }

  private async release(id: string): Promise<true> {
    await this.core.db.deleteFrom('boleto_issuing').where('transaction_id', '=', id).execute();
    return true;
  }

  private async refuse(tx: Transaction, why: string): Promise<true> {
    this.core.log.error({ transactionId: tx.id, why }, `${this.connector}: the bank refused to issue a boleto; the payment fails`);
    await this.core.applyEvents(tx, [{ transactionId: tx.id, outcome: 'FAILED', reason: BOLETO_REFUSED }]);
    return this.release(tx.id);
  }
}
