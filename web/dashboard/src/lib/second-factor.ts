// The second factor an action asks for (403 with X-Error-Code SECOND_FACTOR_REQUIRED or _INVALID):
// the client (api/client.ts) asks the merchant for a code through the prompt below and sends the
// request again with X-Second-Factor; null when the merchant gives up.
import { Cell } from './state.ts';

export interface SecondFactorAsk {
  /** The previous code was refused. */
  invalid: boolean;
  answer(code: string | null): void;
}

export const secondFactorAsk = new Cell<SecondFactorAsk | null>(null);

let pending: Promise<string | null> | null = null;

/** Opens the prompt (one at a time) and resolves with the code typed, or null. */
export function askSecondFactor(invalid: boolean): Promise<string | null> {
  if (pending) return pending;
  pending = new Promise<string | null>((resolve) => {
    secondFactorAsk.set({
      invalid,
      answer(code) {
        secondFactorAsk.set(null);
        pending = null;
        resolve(code);
      },
    });
  });
  return pending;
}

/** Whether a response asks for a second factor; the kind when it does. */
export function secondFactorAsked(res: Response): 'required' | 'invalid' | null {
  if (res.status !== 403) return null;
  const code = res.headers.get('x-error-code');
  return code === 'SECOND_FACTOR_REQUIRED' ? 'required' : code === 'SECOND_FACTOR_INVALID' ? 'invalid' : null;
}

/**
 * Sends a request; while it is refused for its second factor, asks for a code and sends it again
 * (`send` makes a fresh request with the code as X-Second-Factor).
 */
export async function withSecondFactor(first: Response, send: (code: string) => Promise<Response>): Promise<Response> {
  let res = first;
  for (let asked = secondFactorAsked(res); asked; asked = secondFactorAsked(res)) {
    const code = await askSecondFactor(asked === 'invalid' && res !== first);
    if (!code) return res;
    res = await send(code);
  }
  return res;
}
