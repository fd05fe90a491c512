// Stored text that pages render is cleaned on the way in (pages also escape on the way out).
import { AppError } from './errors.ts';

// What is removed is markup a browser would act on, not text that merely has a "<" in it: prices
// ("<R$ 50"), sizes ("P<M<G"), "javascript: guia completo" stay as typed (pages escape them anyway).
const ELEMENTS =
  'a|abbr|address|applet|area|article|aside|audio|b|base|basefont|bdi|bdo|bgsound|blink|blockquote|body|br|button|canvas|caption|center|cite|code|col|colgroup|data|datalist|dd|del|details|dfn|dialog|dir|div|dl|dt|em|embed|fieldset|figcaption|figure|font|footer|form|frame|frameset|h[1-6]|head|header|hgroup|hr|html|i|iframe|image|img|input|ins|isindex|kbd|keygen|label|legend|li|link|listing|main|map|mark|marquee|math|menu|meta|meter|nav|noembed|noframes|noscript|object|ol|optgroup|option|output|p|param|picture|plaintext|pre|progress|q|rp|rt|ruby|s|samp|script|search|section|select|slot|small|source|span|strike|strong|style|sub|summary|sup|svg|table|tbody|td|template|textarea|tfoot|th|thead|time|title|tr|track|tt|u|ul|var|video|wbr|xmp';
// A whole tag: a known element's (with or without attributes), any tag with attributes, any closing
// tag, comments, doctypes and processing instructions. ("<Nina>" alone is left: no browser acts on it.)
const TAG = new RegExp(`<\\/?(?:(?:${ELEMENTS})(?=[\\s/>])[^<>]*|[a-zA-Z][\\w:-]*\\s+[^<>]*=[^<>]*)>|<\\/[a-zA-Z][\\w:-]*\\s*>|<![^<>]*>|<\\?[^<>]*>`, 'gi');
// A dangerous element's tag left open at the end ("<img src=x onerror=alert(1)").
const OPEN_TAG = new RegExp(`<\\/?(?:${ELEMENTS})(?=[\\s/]|$)[^<>]*$`, 'i');
const SCRIPT_BLOCK = /<(script|style|iframe|object|embed)\b[\s\S]*?<\/\1\s*>/gi;
// A script URL ("javascript:alert(1)"); "javascript: guia" (a space after the colon) is text.
const DANGEROUS_SCHEME = /\b(?:java|vb)script\s*:(?=\S)|\bdata\s*:\s*text\/html/gi;
// An event handler as an attribute would be written: onerror="…", onload=alert(1) (not "onerror=1").
const EVENT_ATTR = /\bon[a-z]+\s*=\s*(?=["'`]|[\w$.]+\s*\()/gi;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/** Removes markup and script vectors from a piece of text; repeated until stable. */
export function sanitizeText(input: string): string {
  let s = input.replace(CONTROL, '');
  for (let i = 0; i < 5; i++) {
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
