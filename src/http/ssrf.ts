// SSRF guard for URLs the gateway calls on a merchant's behalf (webhook subscriptions, postbacks).
// A target must be https, carry no credentials, and resolve only to public unicast addresses:
// loopback, private, link-local (cloud metadata), CGNAT, multicast, reserved and documentation
// ranges are refused, also when embedded in IPv6 (IPv4-mapped, IPv4-translated, IPv4-compatible,
// NAT64, 6to4; Teredo altogether); an IPv6 address outside global unicast (2000::/3) is refused.
// The check runs when the URL is saved and again before every delivery, and the delivery connects
// to the address that was checked (see the pinned lookup in the webhook sender), so DNS rebinding
// cannot slip past it.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { validation } from './errors.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

const defaultLookup: Lookup = async (hostname) => {
  const list = await dnsLookup(hostname, { all: true, verbatim: true });
  return list.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export class TargetRefused extends Error {
  override name = 'TargetRefused';
}

// [first address, prefix length, what it is]
const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, 'a "this network" address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (cloud metadata lives here)'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'an IETF protocol address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a 6to4 relay address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved or broadcast address'],
];

const V6_BLOCKED: [string, number, string][] = [
  ['::', 128, 'the unspecified address'],
  ['::1', 128, 'a loopback address'],
  ['100::', 64, 'a discard-only address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['fc00::', 7, 'a private (unique local) address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  ['ff00::', 8, 'a multicast address'],
];

/** Names that point inside a network whatever DNS says (checked before any lookup). */
const BLOCKED_NAMES = ['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal'];
// `.localhost` is loopback by RFC 6761 (browsers and some resolvers answer 127.0.0.1 without asking DNS).
const BLOCKED_SUFFIXES = ['.localhost', '.internal', '.local', '.localdomain', '.home.arpa', '.intranet', '.lan'];

function v4Bytes(ip: string): number[] {
  return ip.split('.').map(Number);
}

/** 16 bytes of an IPv6 address (with :: and an optional trailing dotted quad). */
function v6Bytes(ip: string): number[] {
  let s = ip.toLowerCase().replace(/%.*$/, '');
  let tail: number[] | null = null;
  const quad = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (quad) {
    tail = v4Bytes(quad[2]);
    s = quad[1] + '0:0';
  }
  const double = s.indexOf('::');
  const head = double >= 0 ? s.slice(0, double) : s;
  const rest = double >= 0 ? s.slice(double + 2) : '';
  const headGroups = head ? head.split(':') : [];
  const restGroups = rest ? rest.split(':') : [];
  const fill = double >= 0 ? Array(Math.max(0, 8 - headGroups.length - restGroups.length)).fill('0') : [];
  const bytes: number[] = [];
  for (const g of [...headGroups, ...fill, ...restGroups].slice(0, 8)) {
    const n = parseInt(g || '0', 16);
    bytes.push((n >> 8) & 0xff, n & 0xff);
  }
  while (bytes.length < 16) bytes.push(0);
  if (tail) bytes.splice(12, 4, ...tail);
  return bytes;
}

function inPrefix(bytes: number[], base: number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit++) {
    const i = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((bytes[i] & mask) !== (base[i] & mask)) return false;
  }
  return true;
}

function v4Reason(bytes: number[]): string | null {
  for (const [base, prefix, what] of V4_BLOCKED) if (inPrefix(bytes, v4Bytes(base), prefix)) return what;
  return null;
}

/**
 * Why an address may not be called, or null when it is a public unicast address.
 * IPv4 embedded in IPv6 (::ffff:a.b.c.d, ::ffff:0:a.b.c.d, ::a.b.c.d, 64:ff9b::/96 NAT64, 2002::/16 6to4)
 * is judged as IPv4.
 */
export function forbiddenAddress(ip: string): string | null {
  const kind = isIP(ip.replace(/%.*$/, ''));
  if (kind === 4) return v4Reason(v4Bytes(ip));
  if (kind !== 6) return 'not an IP address';
  const b = v6Bytes(ip);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  // IPv4-mapped ::ffff:0:0/96, IPv4-translated (SIIT) ::ffff:0:0:0/96, and IPv4-compatible ::/96
  // (except :: and ::1, handled below)
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4Reason(b.slice(12));
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return v4Reason(b.slice(12));
  if (zeros(0, 12) && !(zeros(12, 15) && (b[15] === 0 || b[15] === 1))) return v4Reason(b.slice(12));
  // NAT64 well-known prefix 64:ff9b::/96 and local-use 64:ff9b:1::/48
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zeros(4, 12)) return v4Reason(b.slice(12));
    return 'a local-use NAT64 address';
  }
  // 6to4 2002::/16 carries an IPv4 address in bits 16-47
  if (b[0] === 0x20 && b[1] === 0x02) {
    const r = v4Reason(b.slice(2, 6));
    if (r) return r;
  }
  // Teredo 2001::/32 tunnels to an IPv4 address of the attacker's choosing (obfuscated in the last 32 bits)
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) return 'a Teredo tunnel address';
  for (const [base, prefix, what] of V6_BLOCKED) if (inPrefix(b, v6Bytes(base), prefix)) return what;
  // Only the global unicast range is routed on the internet; the rest of the space is reserved, and
  // forms nobody routes (::ffff:ffff:a.b.c.d) may mean an IPv4 address to some stack.
  if ((b[0] & 0xe0) !== 0x20) return 'a reserved address (outside the global unicast range 2000::/3)';
  return null;
}

/** Why a host name may not be called before any lookup (metadata and internal-only names), or null. */
export function forbiddenName(hostname: string): string | null {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (BLOCKED_NAMES.includes(h)) return 'a cloud metadata or internal host name';
  if (BLOCKED_SUFFIXES.some((s) => h.endsWith(s))) return 'an internal-only host name';
  if (!h.includes('.')) return 'a single-label host name (resolved through local search domains)';
  return null;
}

export interface ParsedTarget {
  url: URL;
  /** Host name or IP literal (no brackets). */
  host: string;
  port: number;
  /** Set when the host is an IP literal. */
  literal: ResolvedAddress | null;
}

/** Said with every refusal the setting would lift, so a developer on localhost knows what to set. */
const LOCAL_ONLY = 'allowed only when the gateway runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true, for local development';

/**
 * Syntax rules: an absolute https URL without credentials (`http://` too when `allowHttp`: local
 * development with WEBHOOK_ALLOW_PRIVATE_TARGETS). Throws TargetRefused.
 */
export function parseTarget(raw: string, allowHttp = false): ParsedTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('must be an absolute URL');
  }
  const http = url.protocol === 'http:';
  if (url.protocol !== 'https:' && !(http && allowHttp)) {
    throw new TargetRefused(http ? `must use https (plain http is ${LOCAL_ONLY})` : 'must use https');
  }
  if (url.username || url.password) throw new TargetRefused('must not contain credentials');
  if (!url.hostname) throw new TargetRefused('must have a host');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const kind = isIP(host);
  return { url, host, port: url.port ? Number(url.port) : http ? 80 : 443, literal: kind ? { address: host, family: kind === 6 ? 6 : 4 } : null };
}

export interface CheckOptions {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: skip the address and name rules and allow http (other syntax rules still apply). */
  allowPrivate: boolean;
  lookup?: Lookup;
  /** Give up resolving after this long. */
  timeoutMs?: number;
}

export interface CheckedTarget extends ParsedTarget {
  /** The address to connect to: checked, and pinned for the connection. Null when private targets are allowed and the host was not resolved. */
  address: ResolvedAddress | null;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, rej) => {
      timer = setTimeout(() => rej(new TargetRefused(what)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Full check of a target before a request: syntax, host name, then every address the name resolves
 * to (one forbidden address refuses the name: an attacker controls which one a client would pick).
 * Throws TargetRefused with a human reason.
 */
export async function checkTarget(raw: string, opts: CheckOptions): Promise<CheckedTarget> {
  const target = parseTarget(raw, opts.allowPrivate);
  if (opts.allowPrivate) return { ...target, address: target.literal };
  if (target.literal) {
    const why = forbiddenAddress(target.literal.address);
    if (why) throw new TargetRefused(`points to ${why}; ${LOCAL_ONLY}`);
    return { ...target, address: target.literal };
  }
  const nameWhy = forbiddenName(target.host);
  if (nameWhy) throw new TargetRefused(`host is ${nameWhy}; ${LOCAL_ONLY}`);
  let addresses: ResolvedAddress[];
  try {
    addresses = await withTimeout((opts.lookup ?? defaultLookup)(target.host), opts.timeoutMs ?? 5000, 'host name lookup timed out');
  } catch (err) {
    if (err instanceof TargetRefused) throw err;
    throw new TargetRefused(`host name does not resolve (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
  }
  if (!addresses.length) throw new TargetRefused('host name does not resolve');
  for (const a of addresses) {
    const why = forbiddenAddress(a.address);
    if (why) throw new TargetRefused(`host resolves to ${why} (${a.address}); ${LOCAL_ONLY}`);
  }
  return { ...target, address: addresses[0] };
}

/**
 * Check when a URL is saved (subscription url, transaction postbackUrl): refusals are a 400 on the
 * field. A name that does not resolve *yet* is accepted (DNS may be set up after the integration);
 * every delivery checks again and fails until it resolves to a public address.
 */
export async function assertCallableUrl(raw: string, field: string, opts: CheckOptions): Promise<void> {
  try {
    await checkTarget(raw, { timeoutMs: 2000, ...opts });
  } catch (err) {
    if (!(err instanceof TargetRefused)) throw err;
    if (/does not resolve|timed out/.test(err.message)) return;
    throw validation(field, err.message);
  }
}
