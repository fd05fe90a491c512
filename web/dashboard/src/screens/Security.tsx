// Segurança: two-factor authentication (enrol with a QR code, confirm, recovery codes shown once,
// turn off with a code) and the dashboard sessions of the account (end one, or all the others).
import { useState } from 'preact/hooks';
import { api, logout, ok } from '../api/client.ts';
import type { paths } from '../api/schema.d.ts';
import { CopyButton, ErrorState, Field, FormError, Loading, PageHeader } from '../components/ui.tsx';
import { useAsync, useSubmit } from '../lib/async.ts';
import { dateTime } from '../lib/format.ts';

type Enrolment = paths['/api/auth/mfa/enrol']['post']['responses']['201']['content']['application/json'];

function RecoveryCodes({ codes, close }: { codes: string[]; close: () => void }) {
  return (
    <div>
      <p class="notice" role="status">
        Verificação em duas etapas ativada. Guarde estes códigos de recuperação em um lugar seguro: cada um funciona uma vez, se você perder o celular. Eles não serão mostrados de novo.
      </p>
      <ul class="codes mono" aria-label="Códigos de recuperação">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <CopyButton text={codes.join('\n')} label="Copiar códigos" /> <button type="button" class="btn btn-primary" onClick={close}>
        Já guardei
      </button>
    </div>
  );
}

function Enrol({ done }: { done: (codes: string[]) => void }) {
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [code, setCode] = useState('');
  const { busy, error, submit } = useSubmit();
  if (!enrolment) {
    return (
      <div>
        <p>Proteja sua conta: além da senha, o painel pedirá um código do seu celular (Google Authenticator, Authy, 1Password).</p>
        <FormError error={error} />
        <button type="button" class="btn btn-primary" disabled={busy} onClick={() => submit(async () => setEnrolment(await ok(api.POST('/api/auth/mfa/enrol', {}))))}>
          Ativar verificação em duas etapas
        </button>
      </div>
    );
  }
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        submit(async () => done((await ok(api.POST('/api/auth/mfa/confirm', { body: { code: code.trim() } }))).recoveryCodes));
      }}
      noValidate
    >
      <p>1. No aplicativo autenticador, leia este QR code:</p>
      <img class="qr" src={enrolment.qrCode} alt="QR code para o aplicativo autenticador" width={200} height={200} />
      <p>
        Sem câmera? Digite a chave: <span class="mono">{enrolment.secret}</span>
      </p>
      <p>2. Digite o código de 6 dígitos que o aplicativo mostra:</p>
      <FormError error={error} fields={['code']} />
      <Field label="Código do aplicativo" name="code" inputMode="numeric" autoComplete="one-time-code" value={code} onValue={setCode} error={error} required />
      <button type="submit" class="btn btn-primary" disabled={busy}>
        {busy ? 'Confirmando…' : 'Confirmar e ativar'}
      </button>
    </form>
  );
}

function TwoFactor() {
  const status = useAsync(async () => (await ok(api.GET('/api/auth/mfa', {}))).mfa, []);
  const [codes, setCodes] = useState<string[] | null>(null);
  const { busy, error, submit } = useSubmit();
  let body: preact.ComponentChildren;
  if (codes) body = <RecoveryCodes codes={codes} close={() => setCodes(null)} />;
  else if (status.loading && !status.data) body = <Loading />;
  else if (status.error) body = <ErrorState error={status.error} retry={status.reload} />;
  else if (!status.data?.enabled) {
    body = (
      <Enrol
        done={(c) => {
          setCodes(c);
          status.reload();
        }}
      />
    );
  } else {
    body = (
      <div>
        <p class="notice">Ativada em {dateTime(status.data.enabledAt)}. Códigos de recuperação restantes: {status.data.recoveryCodesLeft}.</p>
        <FormError error={error} />
        {/* The API asks for a current code (X-Second-Factor): the prompt opens by itself. */}
        <button type="button" class="btn btn-secondary" disabled={busy} onClick={() => submit(async () => {
          await ok(api.DELETE('/api/auth/mfa', {}));
          status.reload();
        })}>
          Desativar
        </button>
      </div>
    );
  }
  return (
    <section class="card">
      <h2>Verificação em duas etapas</h2>
      {body}
    </section>
  );
}

function Sessions() {
  const list = useAsync(async () => (await ok(api.GET('/api/auth/sessions', {}))).sessions, []);
  const { busy, error, submit } = useSubmit();
  const end = (id: string) => submit(async () => {
    await ok(api.DELETE('/api/auth/sessions/{id}', { params: { path: { id } } }));
    list.reload();
  });
  return (
    <section class="card">
      <h2>Sessões abertas</h2>
      <p class="muted">Os aparelhos em que sua conta está aberta no painel. Encerre os que você não reconhece.</p>
      <FormError error={error} />
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {list.loading && !list.data && <Loading />}
      <ul class="sessions">
        {(list.data ?? []).map((s) => (
          <li key={s.id}>
            <span>
              <strong>{s.device}</strong>
              {s.current && <span class="muted"> (esta sessão)</span>}
              <br />
              <span class="muted">
                IP {s.ip ?? '—'} · aberta em {dateTime(s.createdAt)} · último uso {dateTime(s.lastUsedAt)}
              </span>
            </span>
            {s.current ? (
              <button type="button" class="btn btn-secondary" onClick={() => void logout()}>
                Sair
              </button>
            ) : (
              <button type="button" class="btn btn-secondary" disabled={busy} onClick={() => end(s.id)} aria-label={`Encerrar sessão ${s.device}`}>
                Encerrar
              </button>
            )}
          </li>
        ))}
      </ul>
      {(list.data?.length ?? 0) > 1 && (
        <button type="button" class="btn btn-danger" disabled={busy} onClick={() => submit(async () => {
          await ok(api.DELETE('/api/auth/sessions/others', {}));
          list.reload();
        })}>
          Encerrar todas as outras
        </button>
      )}
    </section>
  );
}

export function Security() {
  return (
    <div>
      <PageHeader title="Segurança" />
      <TwoFactor />
      <Sessions />
    </div>
  );
}
