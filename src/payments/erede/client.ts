// The HTTP side of e.Rede (Rede's e-commerce API, v2): an OAuth2 client-credentials token (HTTP Basic
// with the PV as client id and the integration key as secret, form-encoded grant_type) cached until
// shortly before it expires and fetched again once when a call answers 401, then JSON calls with
// `Authorization: Bearer`. HTTPS only; an extra CA (EREDE_CA_FILE) is trusted the way the API Pix
// connector trusts its PSP's. A call that gets no answer (timeout, network, 5xx, 408, 429) throws
// EredeUnavailable; any other answer is returned as it is, for the connector to read its returnCode.
// Card data is only ever in a request body, which is never logged or kept.
import https from 'node:https';
import type { EredeConfig } from '../../config-connectors.ts';
import { ACQUIRER_SOCKETS } from '../connector.ts';

export interface Answer {
  status: number;
  body: Record<string, unknown> | null;
}

/** No answer to act on: the call may or may not have reached e.Rede (the caller asks by reference). */
export class EredeUnavailable extends Error {
  override name = 'EredeUnavailable';
  readonly status: number | null;
  constructor(message: string, status: number | null = null) {
    super(message);
    this.status = status;
  }
}

/** e.Rede refused our credentials: a configuration problem, not an outage. */
export class EredeAuthError extends Error {
  override name = 'EredeAuthError';
}

export interface EredeClientOptions {
  /** A token is used until this long before it expires (e.Rede's live 24 minutes; it advises renewing well before). */
  tokenMarginMs?: number;
  now?: () => number;
}

export class EredeClient {
  private readonly config: EredeConfig;
  private readonly agent: https.Agent;
  private readonly tokenMarginMs: number;
  private readonly now: () => number;
  private token: { value: string; until: number } | null = null;
  private pendingToken: Promise<string> | null = null;

  constructor(config: EredeConfig, opts: EredeClientOptions = {}) {
    this.config = config;
    this.tokenMarginMs = opts.tokenMarginMs ?? 5 * 60_000;
    this.now = opts.now ?? Date.now;
    this.agent = new https.Agent({ ...(config.ca ? { ca: config.ca } : {}), keepAlive: true, maxSockets: ACQUIRER_SOCKETS });
  }

  close() {
    this.agent.destroy();
  }

  /** Calls `{EREDE_API_URL}/v2/transactions{path}`; a 401 fetches a new token once. */
  call(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Answer> {
    return this.callAt(method, `${this.config.url}/v2/transactions${path}`, body);
  }

  /** Calls a full URL of e.Rede's (the transactions API or the token service) with the bearer token. */
  async callAt(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, refreshed = false): Promise<Answer> {
    const token = await this.accessToken();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const answer = await this.send(method, url, { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}) }, payload);
    if (answer.status === 401 && !refreshed) {
      this.token = null;
      return this.callAt(method, url, body, true);
    }
    if (answer.status === 401 || answer.status === 403) throw new EredeAuthError(`e.Rede answered ${answer.status}: check EREDE_CLIENT_ID and EREDE_CLIENT_SECRET`);
    if (answer.status >= 500 || answer.status === 408 || answer.status === 429) throw new EredeUnavailable(`e.Rede answered ${answer.status}`, answer.status);
    return answer;
  }

  /** The cached token, or a new one (concurrent callers share one token request). */
  private async accessToken(): Promise<string> {
    if (this.token && this.now() < this.token.until) return this.token.value;
    this.pendingToken ??= this.fetchToken().finally(() => {
      this.pendingToken = null;
    });
    return this.pendingToken;
  }

  private async fetchToken(): Promise<string> {
    const { clientId, clientSecret, tokenUrl } = this.config;
    const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
    const answer = await this.send('POST', tokenUrl, { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ grant_type: 'client_credentials' }).toString());
    if (answer.status >= 500 || answer.status === 429) throw new EredeUnavailable(`e.Rede's token endpoint answered ${answer.status}`, answer.status);
    const b = answer.body as { access_token?: unknown; expires_in?: unknown } | null;
    if (answer.status !== 200 || typeof b?.access_token !== 'string') throw new EredeAuthError(`e.Rede's token endpoint answered ${answer.status}: check EREDE_CLIENT_ID (the PV, without leading zeros) and EREDE_CLIENT_SECRET`);
    const ttlMs = (typeof b.expires_in === 'number' && b.expires_in > 0 ? b.expires_in : 24 * 60) * 1000;
    this.token = { value: b.access_token, until: this.now() + Math.max(ttlMs - this.tokenMarginMs, ttlMs / 2) };
    return b.access_token;
  }

  private send(method: string, url: string, headers: Record<string, string>, payload: string | undefined): Promise<Answer> {
    const timeoutMs = this.config.timeoutMs;
    return new Promise((resolve, reject) => {
      const fail = () => new EredeUnavailable(`no answer from e.Rede within ${timeoutMs} ms`);
      const req = https.request(url, { method, agent: this.agent, headers: { accept: 'application/json', ...headers, ...(payload !== undefined ? { 'content-length': String(Buffer.byteLength(payload)) } : {}) }, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: parse(Buffer.concat(chunks).toString('utf8')) });
        });
        res.on('error', (err) => reject(new EredeUnavailable(`e.Rede's answer broke off: ${err.message}`)));
      });
      // The socket timeout covers idle time only; this bounds the whole exchange.
      const timer = setTimeout(() => req.destroy(fail()), timeoutMs);
      req.on('timeout', () => req.destroy(fail()));
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err instanceof EredeUnavailable ? err : new EredeUnavailable(`no answer from e.Rede: ${err.message}`));
      });
      req.end(payload);
    });
  }
}

function parse(raw: string): Record<string, unknown> | null {
  try {
    const v: unknown = raw ? JSON.parse(raw) : null;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
