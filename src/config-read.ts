// The small parsers every setting shares: a whole number in bounds, a URL of given protocols, a PEM
// file. Each adds a message naming the variable to `problems` (never a secret's value) and goes on.
import { readFileSync } from 'node:fs';

export type Env = Record<string, string | undefined>;

export function int(env: Env, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    problems.push(`${name} must be a whole number between ${min} and ${max} (got "${raw}")`);
    return fallback;
  }
  const n = Number(raw);
  if (n < min || n > max) problems.push(`${name} must be between ${min} and ${max} (got ${n})`);
  return n;
}

export function url(env: Env, name: string, fallback: string, problems: string[], protocols = ['http:', 'https:']): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  try {
    const u = new URL(raw);
    if (!protocols.includes(u.protocol)) throw new Error('protocol');
    return raw.replace(/\/+$/, '');
  } catch {
    problems.push(`${name} must be a ${protocols.map((p) => p.replace(':', '')).join(' or ')} URL (got "${raw}")`);
    return fallback;
  }
}

/** Reads a PEM file named by `name`; `marker` is what its text must contain (e.g. "CERTIFICATE"). */
export function pemFile(env: Env, name: string, marker: RegExp, what: string, problems: string[]): string | null {
  const file = env[name]?.trim();
  if (!file) return null;
  try {
    const text = readFileSync(file, 'utf8');
    if (!marker.test(text)) {
      problems.push(`${name} must be a PEM ${what} file (${file} holds none)`);
      return null;
    }
    return text;
  } catch (err) {
    problems.push(`${name} cannot be read (${file}): ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    return null;
  }
}

/**
 * A provider reached with OAuth2 client credentials over mutual TLS (a PSP's API Pix, Efí).
 * `clientSecret` and `key` are secrets: never logged (the logger redacts `*.secret` and `*.key`).
 */
export interface OAuthMtlsConfig {
  /** The API's base URL, without a trailing slash. */
  url: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** PEM texts read at start: the mTLS client certificate, its private key, an optional extra CA. */
  cert: string;
  key: string;
  ca: string | null;
}
