// The one script of the hosted pages (/assets/checkout.js): its bytes and its versioned URL, shared
// by the checkout pages and the printable boleto so both load the same cached file.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const CHECKOUT_SCRIPT = readFileSync(new URL('./assets/checkout.js', import.meta.url));
const VERSION = createHash('sha256').update(CHECKOUT_SCRIPT).digest('hex').slice(0, 12);
/** Versioned so it can be cached as immutable: a new deploy changes the URL. */
export const CHECKOUT_SCRIPT_URL = `/assets/checkout.js?v=${VERSION}`;
