// The HTTP side of a PSP's API Pix (Banco Central, v2.9.0): mutual TLS with the PSP-issued client
// certificate, an OAuth2 client-credentials token cached until shortly before it expires (and
// fetched again once when the PSP answers 401), retries with backoff for timeouts and 5xx on
// idempotent calls, and a circuit breaker so that an outage answers 503 at once instead of piling
// requests up behind a dead PSP. A PSP's RFC 7807 problem becomes a PixApiError carrying the
// problem for the logs; what a merchant is told is decided by the caller (provider.ts), never
// the PSP's own words.
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PixApiConfig } from '../../config.ts';
import type { OAuthMtlsConfig } from '../../config-read.ts';

/** The scopes the provider asks for: charges (cob, cobv), received Pix and refunds, the webhook. */
export const PIX_API_SCOPES = ['cob.write', 'cob.read', 'cobv.write', 'cobv.read', 'pix.write', 'pix.read', 'webhook.write', 'webhook.read'] as const;
/** Asked for as well when Pix Automático is on (PIX_API_RECEIVER_ACCOUNT): authorisations, their locations, recurring charges, their webhooks. */
export const PIX_AUTOMATICO_SCOPES = ['rec.write', 'rec.read', 'payloadlocationrec.write', 'payloadlocationrec.read', 'cobr.write', 'cobr.read', 'webhookrec.write', 'webhookrec.read', 'webhookcobr.write', 'webhookcobr.read'] as const;

/** An RFC 7807 problem as the API Pix sends it. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  violacoes?: Array<{ razao?: string; propriedade?: string; valor?: string }>;
}

/**
 * A failed call. `kind` says what the caller can do: `unavailable` (timeout, connection failure,
 * 5xx, open circuit: try later), `refused` (a 4xx problem: the request or the entity's state is
 * wrong), `not_found` (404), `auth` (the PSP refused our credentials or scopes).
 */
export class PixApiError extends Error {
  override name = 'PixApiError';
  readonly kind: 'unavailable' | 'refused' | 'not_found' | 'auth';
  readonly status: number | null;
  readonly problem: Problem | null;
  constructor(kind: PixApiError['kind'], message: string, status: number | null = null, problem: Problem | null = null) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.problem = problem;
  }
  /** The problem's type name (`CobOperacaoInvalida`), for logs and decisions; never shown to merchants. */
  get problemType(): string | null {
    return this.problem?.type?.split('/').pop() ?? null;
  }
  /** What the logs may carry: status, type, title and the violated properties (no values: they can hold payer data). */
  toLog() {
    return { kind: this.kind, status: this.status, type: this.problemType, title: this.problem?.title, violations: this.problem?.violacoes?.map((v) => v.propriedade) };
  }
}

export interface ClientOptions {
  /** One attempt's limit (connect, TLS, answer). */
  timeoutMs?: number;
  /** Retries after the first attempt, for idempotent calls that timed out or got a 5xx. */
  retries?: number;
  /** Backoff before retry i (i from 0): base * 4^i, with ±20% jitter. */
  backoffMs?: number;
  /** Consecutive failures (timeouts, connection errors, 5xx) that open the circuit. */
  breakerThreshold?: number;
  /** How long an open circuit refuses calls before one trial call is let through. */
  breakerCooldownMs?: number;
  /** A token is used until this long before it expires. */
  tokenMarginMs?: number;
  now?: () => number;
  /**
   * The scopes the token request asks for; null: none (the PSP grants what the application was given,
   * as Efí does). Absent: the API Pix's (PIX_API_SCOPES, and Pix Automático's with a receiver account).
   */
  scopes?: readonly string[] | null;
  /**
   * How the token request is written: a form with HTTP Basic credentials (RFC 6749, the default),
   * JSON (Efí's `{"grant_type":"client_credentials"}`), or a form carrying client_id and
   * client_secret itself (Banco Inter's).
   */
  tokenBody?: 'form' | 'json' | 'form-credentials';
  /** The settings a refused token request points at (its error message). */
  credentialsHint?: string;
}

/** What the client needs of a PSP's settings (PixApiConfig has them; other connectors pass their own). */
export type ClientConfig = OAuthMtlsConfig & Partial<Pick<PixApiConfig, 'receiverAccount'>>;

interface Answer {
  status: number;
  body: unknown;
}

/** Consecutive-failure circuit breaker: closed -> open (refuse) -> half-open (one trial) -> closed. */
export class CircuitBreaker {
  private failures = 0;
  private openUntil = 0;
  private trial = false;
  private threshold: number;
  private cooldownMs: number;
  private now: () => number;
  constructor(threshold: number, cooldownMs: number, now: () => number) {
    this.threshold = threshold;
    this.cooldownMs = cooldownMs;
    this.now = now;
  }
  get state(): 'closed' | 'open' | 'half-open' {
    if (this.failures < this.threshold) return 'closed';
    return this.now() < this.openUntil ? 'open' : 'half-open';
  }
  /** Whether a call may go out now (in half-open, only one at a time). */
  allow(): boolean {
    const s = this.state;
    if (s === 'closed') return true;
    if (s === 'open' || this.trial) return false;
    this.trial = true;
    return true;
  }
  success() {
    this.failures = 0;
    this.trial = false;
  }
  failure() {
    this.trial = false;
    this.failures += 1;
    if (this.failures >= this.threshold) this.openUntil = this.now() + this.cooldownMs;
  }
}

export class PixApiClient {
  private config: ClientConfig;
  private agent: https.Agent;
  private token: { value: string; until: number } | null = null;
  private pendingToken: Promise<string> | null = null;
  private opts: Required<Omit<ClientOptions, 'scopes'>> & { scopes: readonly string[] | null };
  readonly breaker: CircuitBreaker;

  constructor(config: ClientConfig, opts: ClientOptions = {}) {
    this.config = config;
    this.opts = {
      timeoutMs: opts.timeoutMs ?? 10_000,
      retries: opts.retries ?? 2,
      backoffMs: opts.backoffMs ?? 250,
      breakerThreshold: opts.breakerThreshold ?? 5,
      breakerCooldownMs: opts.breakerCooldownMs ?? 30_000,
      tokenMarginMs: opts.tokenMarginMs ?? 60_000,
      now: opts.now ?? Date.now,
      scopes: opts.scopes === undefined ? [...PIX_API_SCOPES, ...(config.receiverAccount ? PIX_AUTOMATICO_SCOPES : [])] : opts.scopes,
      tokenBody: opts.tokenBody ?? 'form',
      credentialsHint: opts.credentialsHint ?? 'PIX_API_CLIENT_ID, PIX_API_CLIENT_SECRET and the scopes of the PSP contract',
    };
    this.breaker = new CircuitBreaker(this.opts.breakerThreshold, this.opts.breakerCooldownMs, this.opts.now);
    // The client certificate authenticates us at the TLS layer, on the token endpoint and the API alike.
    this.agent = new https.Agent({ cert: config.cert, key: config.key, ...(config.ca ? { ca: config.ca } : {}), keepAlive: true, maxSockets: 50 });
  }

  close() {
    this.agent.destroy();
  }

  /**
   * Calls the API. The provider's calls are idempotent by construction (PUT with our own ids, GET,
   * PATCH to a final status), so timeouts and 5xx are retried; a POST whose id the PSP chooses
   * (`retry: false`) is sent once. A 401 fetches a new token once. `headers`: more request headers
   * (e.g. Efí's x-skip-mtls-checking). Returns the 2xx body; throws PixApiError otherwise.
   */
  async call<T = unknown>(method: 'GET' | 'PUT' | 'PATCH' | 'POST' | 'DELETE', path: string, body?: unknown, opts: { retry?: boolean; headers?: Record<string, string> } = {}): Promise<T> {
    let lastError: PixApiError | null = null;
    const retries = opts.retry === false ? 0 : this.opts.retries;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(this.opts.backoffMs * 4 ** (attempt - 1) * (0.8 + Math.random() * 0.4));
      try {
        return (await this.once(method, path, body, opts.headers)) as T;
      } catch (err) {
        // An open circuit is not retried: answering 503 at once is its purpose.
        if (!(err instanceof PixApiError) || err.kind !== 'unavailable' || this.breaker.state === 'open') throw err;
        lastError = err;
      }
    }
    throw lastError!;
  }

  private async once(method: string, path: string, body: unknown, extra: Record<string, string> = {}, refreshed = false): Promise<unknown> {
    if (!this.breaker.allow()) throw new PixApiError('unavailable', 'circuit open: the PSP failed repeatedly; calls are refused for a while');
    let answer: Answer;
    try {
      const token = await this.accessToken();
      const headers = { ...extra, authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
      answer = await this.send(method, this.config.url + path, headers, body === undefined ? undefined : JSON.stringify(body));
    } catch (err) {
      if (err instanceof PixApiError && err.kind !== 'unavailable') {
        this.breaker.success(); // the PSP answered
        throw err;
      }
      this.breaker.failure();
      throw err instanceof PixApiError ? err : new PixApiError('unavailable', `no answer from the PSP: ${(err as Error).message}`);
    }
    if (answer.status >= 500) {
      this.breaker.failure();
      throw new PixApiError('unavailable', `PSP answered ${answer.status}`, answer.status, asProblem(answer.body));
    }
    this.breaker.success();
    if (answer.status === 401 && !refreshed) {
      this.token = null;
      return this.once(method, path, body, extra, true);
    }
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    const kind = answer.status === 404 ? 'not_found' : answer.status === 401 || answer.status === 403 ? 'auth' : 'refused';
    throw new PixApiError(kind, `PSP answered ${answer.status}`, answer.status, asProblem(answer.body));
  }

  /** The cached token, or a new one (concurrent callers share one token request). */
  private async accessToken(): Promise<string> {
    if (this.token && this.opts.now() < this.token.until) return this.token.value;
    this.pendingToken ??= this.fetchToken().finally(() => {
      this.pendingToken = null;
    });
    return this.pendingToken;
  }

  private async fetchToken(): Promise<string> {
    const { clientId, clientSecret, tokenUrl } = this.config;
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
    const { scopes, tokenBody } = this.opts;
    const inBody = tokenBody === 'form-credentials';
    const fields = { ...(inBody ? { client_id: clientId, client_secret: clientSecret } : {}), grant_type: 'client_credentials', ...(scopes ? { scope: scopes.join(' ') } : {}) };
    const [type, payload] = tokenBody === 'json' ? ['application/json', JSON.stringify(fields)] : ['application/x-www-form-urlencoded', new URLSearchParams(fields).toString()];
    const answer = await this.send('POST', tokenUrl, { ...(inBody ? {} : { authorization: `Basic ${basic}` }), 'content-type': type }, payload);
    if (answer.status >= 500) throw new PixApiError('unavailable', `token endpoint answered ${answer.status}`, answer.status);
    const b = answer.body as { access_token?: unknown; expires_in?: unknown } | null;
    if (answer.status !== 200 || typeof b?.access_token !== 'string') throw new PixApiError('auth', `token endpoint answered ${answer.status}: check ${this.opts.credentialsHint}`, answer.status);
    const ttlMs = (typeof b.expires_in === 'number' && b.expires_in > 0 ? b.expires_in : 300) * 1000;
    // Shortly before expiry, or at half the lifetime for short-lived tokens.
    this.token = { value: b.access_token, until: this.opts.now() + Math.max(ttlMs - this.opts.tokenMarginMs, ttlMs / 2) };
    return b.access_token;
  }

  private send(method: string, url: string, headers: Record<string, string>, payload: string | undefined): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = https.request(url, { method, agent: this.agent, headers: { accept: 'application/json', ...headers, ...(payload !== undefined ? { 'content-length': String(Buffer.byteLength(payload)) } : {}) }, timeout: this.opts.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          const raw = Buffer.concat(chunks).toString('utf8');
          let body: unknown = null;
          try {
            body = raw ? JSON.parse(raw) : null;
          } catch {
            body = null;
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
        res.on('error', reject);
      });
      // The socket timeout covers idle time only; this bounds the whole exchange.
      const timer = setTimeout(() => req.destroy(new PixApiError('unavailable', `no answer from the PSP within ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs);
      req.on('timeout', () => req.destroy(new PixApiError('unavailable', `no answer from the PSP within ${this.opts.timeoutMs} ms`)));
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.end(payload);
    });
  }
}

function asProblem(body: unknown): Problem | null {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Problem) : null;
}
