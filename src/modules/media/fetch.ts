// One GET of a merchant's image: the webhooks' SSRF guard (checkTarget) with the connection pinned to
// the checked address, no redirects, one deadline for lookup, connection and body, a size cap that
// stops reading, and the type read from the bytes. Every refusal is an ImageRefused whose message
// completes "<field> ..." for the merchant. The bytes are never logged.
import http from 'node:http';
import https from 'node:https';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { checkTarget, TargetRefused, type CheckedTarget, type Lookup } from '../../http/ssrf.ts';
import { describe as describeNetworkError, pinnedLookup, VERSION } from '../webhooks/sender.ts';
import { describeOther, sniffImage, SNIFF_BYTES, type ImageType } from './sniff.ts';

export const USER_AGENT = `Cofre-Images/${VERSION}`;

export class ImageRefused extends Error {
  override name = 'ImageRefused';
}

export interface FetchOptions {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: plain http and private addresses (local development). */
  allowPrivate: boolean;
  /** WEBHOOK_CA_FILE's certificate, trusted beside the system roots. */
  ca: string | null;
  /** Name resolution for the SSRF check (tests inject one). */
  lookup?: Lookup;
  /** For the whole fetch: lookup, connection, answer and body. */
  timeoutMs: number;
  maxBytes: number;
}

export interface FetchedImage {
  bytes: Buffer;
  type: ImageType;
}

/** The system roots plus the configured CA, built once per CA (building it parses every root). */
let context: { ca: string; secure: SecureContext } | null = null;
function secureContextFor(ca: string | null): SecureContext | undefined {
  if (!ca) return undefined;
  if (context?.ca !== ca) context = { ca, secure: createSecureContext({ ca: [...rootCertificates, ca] }) };
  return context.secure;
}

const mib = (bytes: number) => `${+(bytes / 1024 / 1024).toFixed(2)} MiB`;
const notAnImage = (bytes: Uint8Array) => `is not a PNG, JPEG, WebP or GIF image: the address answered with ${describeOther(bytes)}`;

/** Fetches `raw` (already syntax-checked by the caller or not) and returns an accepted image, or throws ImageRefused. */
export async function fetchImage(raw: string, opts: FetchOptions): Promise<FetchedImage> {
  const started = performance.now();
  let target: CheckedTarget;
  try {
    target = await checkTarget(raw, { allowPrivate: opts.allowPrivate, lookup: opts.lookup, timeoutMs: opts.timeoutMs });
  } catch (err) {
    if (err instanceof TargetRefused) throw new ImageRefused(err.message);
    throw err;
  }
  const remaining = opts.timeoutMs - (performance.now() - started);
  if (remaining <= 0) throw new ImageRefused(timedOut(opts.timeoutMs));
  const bytes = await download(target, opts, remaining);
  const type = sniffImage(bytes);
  if (!type) throw new ImageRefused(notAnImage(bytes));
  return { bytes, type };
}

const timedOut = (ms: number) => `could not be fetched within ${ms / 1000} seconds`;

function download(target: CheckedTarget, opts: FetchOptions, remainingMs: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const plain = target.url.protocol === 'http:';
    const options: https.RequestOptions = {
      method: 'GET',
      host: target.host,
      port: target.port,
      path: target.url.pathname + target.url.search,
      // One request per import (rare): no pooled socket outlives it.
      agent: false,
      headers: { accept: 'image/png, image/jpeg, image/webp, image/gif', 'accept-encoding': 'identity', 'user-agent': USER_AGENT },
      ...(plain ? {} : { secureContext: secureContextFor(opts.ca) }),
    };
    if (target.address && !target.literal) options.lookup = pinnedLookup(target.address);
    const req = (plain ? http : https).request(options);
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(new ImageRefused(why));
    };
    const timer = setTimeout(() => fail(timedOut(opts.timeoutMs)), remainingMs);
    const tooLarge = `is larger than ${mib(opts.maxBytes)} (an image may have at most ${mib(opts.maxBytes)})`;
    req.on('error', (err) => fail(`could not be fetched: ${describeNetworkError(err)}`));
    req.on('response', (res) => {
      const code = res.statusCode ?? 0;
      if (code >= 300 && code < 400) return fail(`could not be fetched: the address answers with a redirect (HTTP ${code}), and redirects are not followed; give the image's own address`);
      if (code < 200 || code >= 300) return fail(`could not be fetched: the server answered HTTP ${code}`);
      if (Number(res.headers['content-length']) > opts.maxBytes) return fail(tooLarge);
      const chunks: Buffer[] = [];
      let size = 0;
      let looked = false;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > opts.maxBytes) return fail(tooLarge);
        chunks.push(chunk);
        // Stop reading a page or a document as soon as its first bytes say it is not an image.
        if (!looked && size >= SNIFF_BYTES) {
          looked = true;
          const head = Buffer.concat(chunks);
          if (!sniffImage(head)) fail(notAnImage(head));
        }
      });
      res.on('error', (err) => fail(`could not be fetched: ${describeNetworkError(err)}`));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(Buffer.concat(chunks, size));
      });
    });
    req.end();
  });
}
