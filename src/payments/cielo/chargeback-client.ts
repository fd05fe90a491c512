// The HTTP side of Cielo's Chargeback API (https://developercielo.github.io/manual/api-chargeback-2-0):
// every call over mutual TLS with the client certificate Cielo signed, an OAuth2 client-credentials
// token (form client_id, client_secret, grant_type) sent as `Authorization: Bearer`, kept for less
// than its 5 minutes and fetched again once when Cielo answers 401. JSON in and out, the refusal's
// evidence as multipart/form-data. A read is asked again once when it got no answer; an accept or a
// refusal is never repeated here. Error answers carry Cielo's `code` (the manual's status table).
import { randomBytes } from 'node:crypto';
import https from 'node:https';
import type { CieloChargebackConfig } from '../../config-cielo-chargeback.ts';

/** `unavailable`: no answer, time-out, 5xx (it may have happened); `refused`: a 4xx; `auth`: 401/403 (check CIELO_CHARGEBACK_*). */
export class ChargebackApiError extends Error {
  override name = 'ChargebackApiError';
  readonly kind: 'unavailable' | 'refused' | 'not_found' | 'auth';
  readonly status: number | null;
  /** Cielo's return code (e.g. 931 "already treated"), when its answer carries one. */
  readonly code: string | null;
  readonly said: string;
  constructor(kind: ChargebackApiError['kind'], message: string, status: number | null = null, body: unknown = null) {
    super(message);
    this.kind = kind;
    this.status = status;
    const b = (Array.isArray(body) ? body[0] : body) as { code?: unknown; message?: unknown } | null;
    this.code = b && b.code !== undefined ? String(b.code) : null;
    this.said = typeof b?.message === 'string' ? b.message.slice(0, 200) : '';
  }
  toLog() {
    return { kind: this.kind, status: this.status, code: this.code };
  }
}

/** Cielo keeps a token 5 minutes at most: it is used for 4. */
const TOKEN_MS = 4 * 60_000;
const API = '/chargeback/v1';

export interface EvidenceFile {
  name: string;
  contentType: string;
  content: Buffer;
}

export class CieloChargebackClient {
  private config: CieloChargebackConfig;
  private agent: https.Agent;
  private timeoutMs: number;
  private token: { value: string; until: number } | null = null;

  constructor(config: CieloChargebackConfig, ca: string | null, timeoutMs: number) {
    this.config = config;
    this.timeoutMs = timeoutMs;
    // The client certificate authenticates us at the TLS layer, on the token endpoint and the API alike.
    this.agent = new https.Agent({ cert: config.cert, key: config.key, ...(ca ? { ca } : {}), keepAlive: true, maxSockets: 20 });
  }

  close() {
    this.agent.destroy();
  }

  /** A JSON call under /chargeback/v1; `read`: safe to ask again once when unanswered (lookups). */
  async json<T>(method: 'GET' | 'POST' | 'PUT', path: string, body: unknown, read: boolean): Promise<T> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const type: Record<string, string> = payload ? { 'content-type': 'application/json' } : {};
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.authorised(method, path, type, payload)) as T;
      } catch (err) {
        if (!read || attempt > 0 || !(err instanceof ChargebackApiError) || err.kind !== 'unavailable') throw err;
      }
    }
  }

  /** PUT of a multipart/form-data body: text fields and one file. Sent once. */
  multipart<T>(path: string, fields: Record<string, string>, file: EvidenceFile): Promise<T> {
    const boundary = `----cofre${randomBytes(12).toString('hex')}`;
    const parts: Buffer[] = [];
    for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.contentType}\r\n\r\n`), file.content, Buffer.from(`\r\n--${boundary}--\r\n`));
    return this.authorised('PUT', path, { 'content-type': `multipart/form-data; boundary=${boundary}` }, Buffer.concat(parts)) as Promise<T>;
  }

  private async authorised(method: string, path: string, headers: Record<string, string>, payload: Buffer | undefined, fresh = false): Promise<unknown> {
    const token = await this.accessToken(fresh);
    const answer = await this.send(method, `${this.config.url}${API}${path}`, { ...headers, authorization: `Bearer ${token}`, accept: 'application/json' }, payload);
    if (answer.status === 401 && !fresh) return this.authorised(method, path, headers, payload, true);
    return judge(answer);
  }

  private async accessToken(fresh: boolean): Promise<string> {
    if (!fresh && this.token && Date.now() < this.token.until) return this.token.value;
    const { clientId, clientSecret, tokenUrl } = this.config;
    const form = Buffer.from(new URLSearchParams({ client_id: clientId, client_secret: clientSecret, grant_type: 'client_credentials' }).toString());
    const answer = judge(await this.send('POST', tokenUrl, { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, form)) as { access_token?: unknown } | null;
    if (typeof answer?.access_token !== 'string' || !answer.access_token) throw new ChargebackApiError('auth', "Cielo's token endpoint answered no access_token");
    this.token = { value: answer.access_token, until: Date.now() + TOKEN_MS };
    return answer.access_token;
  }

  private send(method: string, url: string, headers: Record<string, string>, payload: Buffer | undefined): Promise<{ status: number; body: unknown }> {
    const all = payload ? { ...headers, 'content-length': String(payload.length) } : headers;
    return new Promise((resolve, reject) => {
      const fail = (why: string, timedOut = false) => new ChargebackApiError('unavailable', timedOut ? `no answer from Cielo's Chargeback API within ${this.timeoutMs} ms` : `no answer from Cielo's Chargeback API: ${why}`);
      const req = https.request(url, { method, agent: this.agent, headers: all, timeout: this.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          let body: unknown = null;
          try {
            body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
          } catch {
            body = null;
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
        res.on('error', (e) => reject(fail(e.message)));
      });
      // The socket timeout covers idle time only; this bounds the whole exchange.
      const timer = setTimeout(() => req.destroy(fail('', true)), this.timeoutMs);
      req.on('timeout', () => req.destroy(fail('', true)));
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err instanceof ChargebackApiError ? err : fail((err as NodeJS.ErrnoException).code ?? err.message));
      });
      req.end(payload);
    });
  }
}

function judge(answer: { status: number; body: unknown }): unknown {
  const { status, body } = answer;
  if (status >= 200 && status < 300) return body;
  if (status >= 500) throw new ChargebackApiError('unavailable', `Cielo's Chargeback API answered ${status}`, status, body);
  if (status === 404) throw new ChargebackApiError('not_found', `Cielo's Chargeback API answered 404`, status, body);
  if (status === 401 || status === 403) throw new ChargebackApiError('auth', `Cielo's Chargeback API answered ${status}: check CIELO_CHARGEBACK_CLIENT_ID, _CLIENT_SECRET and the certificate`, status, body);
  throw new ChargebackApiError('refused', `Cielo's Chargeback API answered ${status}`, status, body);
}
