// Stored text that pages render is cleaned on the way in (pages also escape on the way out).
import { AppError } from './errors.ts';

// What is removed is anything a browser would read as markup, were the text ever put into HTML
// unescaped (a merchant's own site, a plugin): a "<" followed by a letter, "/", "!" or "?" starts a
// tag whatever follows (unknown elements take event handlers too), up to the next ">" and with any
// "<" inside it. Text that only has a "<" in it is kept: prices ("<R$ 50"), sizes ("P<M<G"), "3 < 5".
const TAG = /<[a-zA-Z/!?][^>]*>/g;
// A tag left open at the end would be closed by whatever markup followed it: removed when it names a
// known element, carries an attribute ("<img src=x onerror=alert(1)") or opens a comment ("<!--"),
// kept when it is text ("<G (3 peças)").
const ELEMENTS =
  'a|applet|area|audio|base|body|button|details|dialog|embed|form|frame|frameset|iframe|image|img|input|isindex|keygen|link|marquee|math|meta|noembed|noscript|object|plaintext|script|select|source|style|svg|template|textarea|track|video|xmp';
const OPEN_TAG = new RegExp(`<\\/?(?:${ELEMENTS})\\b[^>]*$|<[a-zA-Z/!?][^>]*=[^>]*$|<[!?][^>]*$`, 'i');
const SCRIPT_BLOCK = /<(script|style|iframe|object|embed|noscript|template|xmp)\b[\s\S]*?<\/\1\s*>/gi;
// Script URLs, also spelt with spaces, tabs or newlines inside, or their colon or first letter as an
// HTML entity (decoded in an attribute): "javascript:", "java\tscript:", "&#106;avascript&colon;".
// Followed by a space it is prose, kept: "Curso de JavaScript: do zero" (names are never URLs here;
// the fields that are URLs only take https).
const COLON = '(?::|&colon;|&#0*58;?|&#x0*3a;?)(?! )';
const DANGEROUS_SCHEME = new RegExp(`(?:j|&#0*106;?|&#x0*6a;?)\\s*a\\s*v\\s*a\\s*s\\s*c\\s*r\\s*i\\s*p\\s*t\\s*${COLON}|\\bv\\s*b\\s*s\\s*c\\s*r\\s*i\\s*p\\s*t\\s*${COLON}|\\bdata\\s*${COLON}\\s*text\\/html`, 'gi');
// An event handler ("onerror=", "onfocus ="): outside a tag it can still break out of an attribute.
const EVENT_ATTR = /\bon[a-z]+\s*=/gi;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/** Removes markup and script vectors from a piece of text, until none is left. */
export function sanitizeText(input: string): string {
  let s = input.replace(CONTROL, '');
  // Each pass removes at least one "<" or one vector, so this ends; nesting ("<<script>script>")
  // is undone pass by pass.
  for (;;) {
    const next = s.replace(SCRIPT_BLOCK, '').replace(TAG, '').replace(OPEN_TAG, '').replace(DANGEROUS_SCHEME, '').replace(EVENT_ATTR, '');
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
