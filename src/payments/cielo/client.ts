// The HTTP side of Cielo's E-commerce API 3.0: two hosts (transactional and queries), the merchant's
// credentials in the MerchantId and MerchantKey headers and a fresh RequestId on every call, JSON in
// and out, a time limit per call. A GET is asked again once when it got no answer; a POST or PUT is
// never repeated here: whether it took effect is for the connector to find out (connector.ts).
// Nothing about a request's body reaches an error or a log: it carries the card.
import { randomUUID } from 'node:crypto';
import https from 'node:https';
import type { CieloConfig } from '../../config.ts';
import { ACQUIRER_SOCKETS } from '../connector.ts';

/** Cielo's validation errors: `[{ "Code": 126, "Message": "..." }]`. */
export interface CieloErrorItem {
  Code?: unknown;
  Message?: unknown;
}

/**
 * A failed call. `unavailable`: no answer, a timeout, a connection failure or a 5xx (the operation
 * may or may not have happened); `refused`: a 4xx with Cielo's error list (it did not happen);
 * `not_found`: 404; `auth`: 401/403 (check CIELO_MERCHANT_ID and CIELO_MERCHANT_KEY).
 */
export class CieloError extends Error {
  override name = 'CieloError';
  readonly kind: 'unavailable' | 'refused' | 'not_found' | 'auth';
  readonly status: number | null;
  readonly codes: Array<{ code: string; message: string }>;
  /** No answer within the time limit: the request may still be under way at Cielo. */
  readonly timedOut: boolean;
  constructor(kind: CieloError['kind'], message: string, status: number | null = null, body: unknown = null, timedOut = false) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.timedOut = timedOut;
    const items: CieloErrorItem[] = Array.isArray(body) ? body : [];
    this.codes = items.slice(0, 10).map((i) => ({ code: String(i?.Code ?? ''), message: String(i?.Message ?? '').slice(0, 200) }));
  }
  /** What the logs may carry: the kind, HTTP status and Cielo's codes (its messages name fields, never values). */
  toLog() {
    return { kind: this.kind, status: this.status, codes: this.codes, timedOut: this.timedOut };
  }
}

export type Host = 'api' | 'query';

export class CieloClient {
  private config: CieloConfig;
  private agent: https.Agent;

  constructor(config: CieloConfig) {
    this.config = config;
    this.agent = new https.Agent({ ...(config.ca ? { ca: config.ca } : {}), keepAlive: true, maxSockets: ACQUIRER_SOCKETS });
  }

  close() {
    this.agent.destroy();
  }

  /** Calls Cielo; returns the 2xx body (null when empty), throws CieloError otherwise. */
  async call<T = unknown>(host: Host, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    const attempts = method === 'GET' ? 2 : 1;
    let last: CieloError | null = null;
    for (let i = 0; i < attempts; i++) {
      try {
        return (await this.once(host, method, path, body)) as T;
      } catch (err) {
        if (!(err instanceof CieloError) || err.kind !== 'unavailable') throw err;
        last = err;
      }
    }
    throw last!;
  }

  private async once(host: Host, method: string, path: string, body: unknown): Promise<unknown> {
    const base = host === 'api' ? this.config.apiUrl : this.config.queryUrl;
    let answer: { status: number; body: unknown };
    try {
      answer = await this.send(method, base + path, body === undefined ? undefined : JSON.stringify(body));
    } catch (err) {
      throw err instanceof CieloError ? err : new CieloError('unavailable', `no answer from Cielo: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const { status } = answer;
    if (status >= 200 && status < 300) return answer.body;
    if (status >= 500) throw new CieloError('unavailable', `Cielo answered ${status}`, status, answer.body);
    if (status === 404) throw new CieloError('not_found', 'Cielo answered 404', status, answer.body);
    if (status === 401 || status === 403) throw new CieloError('auth', `Cielo answered ${status}: check CIELO_MERCHANT_ID and CIELO_MERCHANT_KEY`, status, answer.body);
    throw new CieloError('refused', `Cielo answered ${status}`, status, answer.body);
  }

  private send(method: string, url: string, payload: string | undefined): Promise<{ status: number; body: unknown }> {
    const { merchantId, merchantKey, timeoutMs } = this.config;
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json', MerchantId: merchantId, MerchantKey: merchantKey, RequestId: randomUUID() };
    if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
    return new Promise((resolve, reject) => {
      const req = https.request(url, { method, agent: this.agent, headers, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          const raw = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = null;
          try {
            parsed = raw ? JSON.parse(raw) : null;
          } catch {
            parsed = null;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      });
      // The socket timeout covers idle time only; this bounds the whole exchange.
      const late = () => new CieloError('unavailable', `no answer from Cielo within ${timeoutMs} ms`, null, null, true);
      const timer = setTimeout(() => req.destroy(late()), timeoutMs);
      req.on('timeout', () => req.destroy(late()));
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.end(payload);
    });
  }
}
