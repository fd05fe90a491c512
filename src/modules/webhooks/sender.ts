// One HTTP attempt: SSRF check, signed POST over node:https (node:http for local development) pinned to the checked address, no
// redirects, a hard deadline. Never throws for a failed attempt: the outcome is data.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { WebhookConfig } from '../../config.ts';
import { checkTarget, TargetRefused, type CheckedTarget, type Lookup, type ResolvedAddress } from '../../http/ssrf.ts';

export const VERSION: string = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version;
export const USER_AGENT = `Cofre-Webhooks/${VERSION}`;

/** Response bodies are read up to this many bytes and discarded. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Idle keep-alive sockets are closed after this long (below the common 5 s server keep-alive timeout). */
const IDLE_SOCKET_MS = 4000;

export interface SendRequest {
  url: string;
  /** The exact bytes to send and sign. */
  body: string;
  secret: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  attempt: number;
  /** ISO 8601, the same value as the envelope's `timestamp`. */
  timestamp: string;
}

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** True when the request never left (SSRF refusal): nothing reached the target. */
  refused: boolean;
}

/** `sha256=` + lowercase hex HMAC-SHA256 of the raw body keyed with the secret. */
export function signature(body: string, secret: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

/** Connects to the address that was checked, whatever DNS answers by the time the socket opens. */
export function pinnedLookup(address: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  }) as unknown as LookupFunction;
}

/** A failed connection in a few words, naming WEBHOOK_CA_FILE when the certificate is not trusted (media imports say it too). */
export function describe(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  let text: string;
  switch (code) {
    case 'ECONNREFUSED':
      text = 'connection refused';
      break;
    case 'ECONNRESET':
      text = 'connection reset by the server';
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      text = 'host not found';
      break;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      text = 'host unreachable';
      break;
    default:
      // A certificate the system roots do not trust is usually a private or self-signed CA: say
      // where the gateway takes one, or the merchant is left guessing.
      text = /CERT|SSL|TLS|SELF_SIGNED|ALTNAME/.test(code)
        ? `TLS: ${err.message} (an endpoint with a private or self-signed certificate needs its CA in WEBHOOK_CA_FILE on the gateway)`
        : code
          ? `${code}: ${err.message}`
          : err.message;
  }
  return text.slice(0, 500);
}

export interface SenderOptions extends Pick<WebhookConfig, 'timeoutMs' | 'allowPrivateTargets' | 'ca' | 'concurrency'> {
  /** Name resolution for the SSRF check (tests inject one). */
  lookup?: Lookup;
}

export class WebhookSender {
  private agent: https.Agent;
  /** Plain http: only reachable with WEBHOOK_ALLOW_PRIVATE_TARGETS (local development). */
  private httpAgent: http.Agent;
  private opts: SenderOptions;
  constructor(opts: SenderOptions) {
    this.opts = opts;
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets: opts.concurrency,
      maxFreeSockets: opts.concurrency,
      timeout: IDLE_SOCKET_MS,
      scheduling: 'lifo',
      // An extra CA is added to the system roots, never instead of them. Given as one prebuilt
      // context, not as `ca`: the agent keys its socket pool by a string that would otherwise
      // include every root certificate, rebuilt on every request.
      secureContext: opts.ca ? createSecureContext({ ca: [...rootCertificates, opts.ca] }) : undefined,
    });
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency, maxFreeSockets: opts.concurrency, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' });
  }

  async send(input: SendRequest): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: CheckedTarget;
    try {
      target = await checkTarget(input.url, { allowPrivate: this.opts.allowPrivateTargets, lookup: this.opts.lookup, timeoutMs: this.opts.timeoutMs });
    } catch (err) {
      if (!(err instanceof TargetRefused)) throw err;
      return { ok: false, statusCode: null, durationMs: elapsed(), error: `not sent: URL ${err.message}`, refused: true };
    }
    const remaining = this.opts.timeoutMs - (performance.now() - started);
    if (remaining <= 0) return { ok: false, statusCode: null, durationMs: elapsed(), error: `timed out after ${this.opts.timeoutMs} ms`, refused: false };

    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (r: Omit<SendResult, 'durationMs' | 'refused'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...r, durationMs: elapsed(), refused: false });
      };
      const plain = target.url.protocol === 'http:';
      const options: https.RequestOptions = {
        method: 'POST',
        host: target.host,
        port: target.port,
        path: target.url.pathname + target.url.search,
        agent: plain ? this.httpAgent : this.agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(input.body),
          'user-agent': USER_AGENT,
          'x-webhook-id': input.eventId,
          'x-webhook-event': input.eventType,
          'x-webhook-timestamp': input.timestamp,
          'x-webhook-signature': signature(input.body, input.secret),
          'x-webhook-delivery': input.deliveryId,
          'x-webhook-attempt': String(input.attempt),
        },
      };
      if (target.address && !target.literal) options.lookup = pinnedLookup(target.address);
      const req = (plain ? http : https).request(options);
      // One deadline for the whole exchange; after the outcome is known it only cuts a dragging body.
      const timer = setTimeout(() => {
        finish({ ok: false, statusCode: null, error: `timed out after ${this.opts.timeoutMs} ms` });
        req.destroy();
      }, remaining);
      req.on('response', (res) => {
        const code = res.statusCode ?? 0;
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('error', () => {});
        res.on('close', () => clearTimeout(timer));
        if (code >= 200 && code < 300) finish({ ok: true, statusCode: code, error: null });
        else if (code >= 300 && code < 400) finish({ ok: false, statusCode: code, error: 'redirect not followed: answer 2xx at the subscribed URL' });
        else finish({ ok: false, statusCode: code, error: null });
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        finish({ ok: false, statusCode: null, error: describe(err) });
      });
      req.end(input.body);
    });
  }

  close() {
    this.agent.destroy();
    this.httpAgent.destroy();
  }
}
