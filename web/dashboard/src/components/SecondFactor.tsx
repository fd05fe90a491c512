// The prompt for a second factor (lib/second-factor.ts): the authenticator app's code when 2FA is on,
// otherwise a code the merchant asks to receive by e-mail. Mounted once, above every screen.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { secondFactorAsk } from '../lib/second-factor.ts';
import { useCell } from '../lib/state.ts';
import { Field, FormError } from './ui.tsx';
import { useSubmit } from '../lib/async.ts';

export function SecondFactorPrompt() {
  const ask = useCell(secondFactorAsk);
  const [code, setCode] = useState('');
  const [mfa, setMfa] = useState<boolean | null>(null);
  const [sent, setSent] = useState(false);
  const { busy, error, submit } = useSubmit();
  const box = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (!ask) return;
    setCode('');
    setSent(false);
    api.GET('/api/auth/mfa', {}).then((r) => setMfa(r.data?.mfa.enabled ?? false), () => setMfa(false));
    box.current?.querySelector('input')?.focus();
  }, [ask]);
  if (!ask) return null;
  return (
    <div class="overlay">
      <div class="card dialog" role="dialog" aria-modal="true" aria-labelledby="sf-title">
      <form
        ref={box}
        onSubmit={(e) => {
          e.preventDefault();
          if (code.trim()) ask.answer(code.trim());
        }}
      >
        <h2 id="sf-title">Confirme que é você</h2>
        {/* Said once the account's factor is known: nothing is e-mailed until the button asks. */}
        {mfa !== null && (
          <p>
            {mfa
              ? 'Digite o código de 6 dígitos do seu aplicativo autenticador (ou um código de recuperação).'
              : 'Esta operação movimenta dinheiro. Peça um código de 6 dígitos por e-mail e digite-o abaixo; ele vale por 5 minutos.'}
          </p>
        )}
        {ask.invalid && (
          <p class="form-error" role="alert">
            Código incorreto, expirado ou já usado. Tente de novo.
          </p>
        )}
        <FormError error={error} />
        {mfa === false && (
          <p>
            <button type="button" class="btn btn-secondary" disabled={busy} onClick={() => submit(async () => {
              await ok(api.POST('/api/auth/second-factor', {}));
              setSent(true);
            })}>
              {sent ? 'Enviar outro código' : 'Enviar código por e-mail'}
            </button>
            {sent && <span class="muted" role="status"> Código enviado.</span>}
          </p>
        )}
        <Field label="Código" name="second-factor" inputMode="numeric" autoComplete="one-time-code" value={code} onValue={setCode} required />
        <div class="dialog-actions">
          <button type="button" class="btn btn-secondary" onClick={() => ask.answer(null)}>
            Cancelar
          </button>
          <button type="submit" class="btn btn-primary">
            Confirmar
          </button>
        </div>
      </form>
      </div>
    </div>
  );
}
