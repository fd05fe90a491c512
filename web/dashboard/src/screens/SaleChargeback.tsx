// A card sale's chargeback on its page: the merchant's answer to an open case (accept it, or
// contest it with a text; files go through the API) and, in development, the sandbox's acquirer
// (open a case, decide one) as docs/sandbox.md describes.
import { useId, useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { FormError } from '../components/ui.tsx';
import { useSubmit } from '../lib/async.ts';
import type { Tx } from './Sales.tsx';

type Outcome = 'CHARGEBACK' | 'CHARGEBACK_WON' | 'CHARGEBACK_LOST';

export function SaleChargeback({ t, dev, done }: { t: Tx; dev: boolean; done: (t: Tx) => void }) {
  const [text, setText] = useState('');
  const id = useId();
  const { busy, error, submit } = useSubmit();
  const cb = t.chargeback;
  const paid = t.status === 'PAID' || t.status === 'PARTIALLY_REFUNDED';
  const answer = (action: 'ACCEPT' | 'CONTEST') =>
    submit(async () => {
      const r = await ok(api.POST('/api/v1/transactions/{id}/dispute', { params: { path: { id: t.id } }, body: action === 'ACCEPT' ? { action } : { action, text } }));
      done(r.transaction);
    });
  const simulate = (outcome: Outcome) =>
    submit(async () => {
      const r = await ok(api.POST('/api/v1/transactions/{id}/simulate', { params: { path: { id: t.id } }, body: { outcome } }));
      done(r.transaction);
    });
  const open = cb?.status === 'OPEN';
  const simulations: [Outcome, string][] = !dev
    ? []
    : paid && t.paymentMethod === 'CARD'
      ? [['CHARGEBACK', 'Simular chargeback']]
      : cb?.status === 'CONTESTED'
        ? [['CHARGEBACK_WON', 'Simular decisão a seu favor'], ['CHARGEBACK_LOST', 'Simular decisão contra você']]
        : open
          ? [['CHARGEBACK_LOST', 'Simular decisão contra você']]
          : [];
  if (!open && simulations.length === 0) return null;
  const message = error?.fields.text;
  return (
    <section class="card chargeback" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{open ? 'Responder ao chargeback' : 'Chargeback no sandbox'}</h2>
      <FormError error={error} fields={['text']} />
      {open && (
        <>
          <p class="muted">Conteste com a sua defesa (o que foi vendido, quando e como foi entregue) ou aceite: aceito, o chargeback é perdido e não pode mais ser contestado.</p>
          <div class={`field${message ? ' field-invalid' : ''}`}>
            <label for={`${id}-text`}>Sua defesa</label>
            <textarea id={`${id}-text`} name="text" rows={4} maxLength={5000} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} aria-invalid={message ? 'true' : undefined} aria-describedby={message ? `${id}-err` : undefined} />
            {message && (
              <small id={`${id}-err`} class="field-message">
                {message}
              </small>
            )}
          </div>
          <div class="actions">
            <button type="button" class="btn btn-primary" disabled={busy} onClick={() => answer('CONTEST')}>
              Contestar
            </button>
            <button type="button" class="btn btn-danger" disabled={busy} onClick={() => answer('ACCEPT')}>
              Aceitar chargeback
            </button>
          </div>
        </>
      )}
      {simulations.length > 0 && (
        <div class="actions">
          {simulations.map(([outcome, label]) => (
            <button key={outcome} type="button" class="btn btn-secondary" disabled={busy} onClick={() => simulate(outcome)}>
              {label}
            </button>
          ))}
        </div>
      )}
    </section>
  );
}
