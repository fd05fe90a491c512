// The rehearsal's HTTP client: every POST carries an Idempotency-Key and is sent again with the
// same key after a 5xx, a connection error or "in progress" (409), as a careful merchant's client
// does. Every attempt is recorded (time and outcome) for the fault windows and the throughput.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { api } from '../../bench/context.ts';

export interface Attempt {
  /** ms since the epoch, when the answer (or the error) came. */
  at: number;
  op: string;
  /** HTTP status, or 0 for a connection error or timeout. */
  status: number;
}

export interface Outcome {
  op: string;
  merchant: number;
  key: string;
  method: string;
  path: string;
  body: unknown;
  /** The final status (2xx or a 4xx that stands), or null while unfinished. */
  status: number | null;
  response: any;
  attempts: number;
  /** The status of each try, in order (0: no answer). */
  history: number[];
}

export class Client {
  readonly attempts: Attempt[] = [];
  readonly outcomes: Outcome[] = [];
  readonly baseUrl: string;
  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  /** One try: status 0 for no answer. */
  async send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any; message?: string }> {
    try {
      return await api(this.baseUrl, method, path, body, headers, AbortSignal.timeout(15_000));
    } catch (err) {
      return { status: 0, body: null, message: (err as Error).message };
    }
  }

  /** A POST with a fresh Idempotency-Key, tried until it stands or `budgetMs` runs out (then unfinished: the rehearsal retries it after the load). */
  async post(op: string, merchant: number, apiKey: string, path: string, body: unknown, budgetMs = 20_000): Promise<Outcome> {
    const outcome: Outcome = { op, merchant, key: randomUUID(), method: 'POST', path, body, status: null, response: null, attempts: 0, history: [] };
    this.outcomes.push(outcome);
    await this.retry(outcome, apiKey, Date.now() + budgetMs);
    return outcome;
  }

  /** Sends `outcome`'s request again, same key, until it stands or the deadline passes. */
  async retry(outcome: Outcome, apiKey: string, deadline: number): Promise<void> {
    for (let pause = 100; ; pause = Math.min(pause * 2, 2000)) {
      const r = await this.send(outcome.method, outcome.path, { 'api-key': apiKey, 'idempotency-key': outcome.key }, outcome.body);
      outcome.attempts++;
      outcome.history.push(r.status);
      this.attempts.push({ at: Date.now(), op: outcome.op, status: r.status });
      if (!retriable(r.status, r.body)) {
        outcome.status = r.status;
        outcome.response = r.body;
        return;
      }
      if (Date.now() + pause > deadline) return;
      await sleep(pause);
    }
  }

  async get(op: string, apiKey: string, path: string): Promise<{ status: number; body: any }> {
    const r = await this.send('GET', path, { 'api-key': apiKey });
    this.attempts.push({ at: Date.now(), op, status: r.status });
    return r;
  }
}

/** Worth sending again with the same key: no answer, a 5xx, or the key still held by a request in progress. */
export function retriable(status: number, body: any): boolean {
  if (status === 0 || status >= 500) return true;
  return status === 409 && /in progress/i.test(String(body?.message ?? ''));
}
