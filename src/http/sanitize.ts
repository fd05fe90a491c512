// Stored text that pages render is cleaned on the way in (pages also escape on the way out).
import { AppError } from './errors.ts';

const TAG = /<\/?[a-zA-Z!][^>]*>?/g; // tags, comments, doctype; also an unclosed trailing "<script"
const SCRIPT_BLOCK = /<(script|style|iframe|object|embed)\b[\s\S]*?<\/\1\s*>/gi;
const DANGEROUS_SCHEME = /\b(?:java|vb)script\s*:|\bdata\s*:\s*text\/html/gi;
const EVENT_ATTR = /\bon[a-z]+\s*=/gi;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/** Removes markup and script vectors from a piece of text; repeated until stable. */
export function sanitizeText(input: string): string {
  let s = input.replace(CONTROL, '');
  for (let i = 0; i < 5; i++) {
    const next = s.replace(SCRIPT_BLOCK, '').replace(TAG, '').replace(DANGEROUS_SCHEME, '').replace(EVENT_ATTR, '');
    if (next === s) break;
    s = next;
  }
  return s.trim();
}

export function sanitizeOptional(input: string | null | undefined): string | null | undefined {
  return typeof input === 'string' ? sanitizeText(input) : input;
}

/** Cleans every string (keys and values) of a JSON value. */
export function sanitizeJson(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeText(value);
  if (Array.isArray(value)) return value.map(sanitizeJson);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[sanitizeText(k)] = sanitizeJson(v);
    return out;
  }
  return value;
}

/** HTML-escapes text for server-rendered pages. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Cleans a required text field; one that was only markup is a 400 naming the field. */
export function requiredText(input: string, field: string): string {
  const clean = sanitizeText(input);
  if (!clean) throw new AppError(400, 'Validation failed', 'VALIDATION_ERROR', [{ field, message: 'must contain text' }]);
  return clean;
}
