// Sign up and log in. Both give a dashboard token; the API's field errors show beside the fields.
import { useState } from 'preact/hooks';
import { api, type ApiError, ok, revokeStaleSessionKeys } from '../api/client.ts';
import { EnvSwitch } from '../components/Shell.tsx';
import { Link } from '../components/Link.tsx';
import { Field, FormError } from '../components/ui.tsx';
import { useSubmit } from '../lib/async.ts';
import { navigate } from '../lib/router.ts';
import { session } from '../lib/session.ts';
import { useCell } from '../lib/state.ts';

function AuthFrame({ title, children }: { title: string; children: preact.ComponentChildren }) {
  return (
    <main class="auth" id="conteudo">
      <div class="auth-card">
        <p class="brand brand-big">Cofre</p>
        <h1>{title}</h1>
        {children}
      </div>
      <div class="auth-env">
        <span>Ambiente ao entrar:</span> <EnvSwitch />
      </div>
    </main>
  );
}

export function Login() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmit();
  const expired = useCell(session.expired);
  return (
    <AuthFrame title="Entrar no painel">
      {expired && !error && <p class="notice">Sua sessão terminou. Entre de novo.</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit(async () => {
            const r = await ok(api.POST('/api/auth/login', { body: { email, password } })).catch((err: ApiError) => {
              if (err.status === 401) err.message = 'E-mail ou senha incorretos.';
              throw err;
            });
            session.start(r.token, r.user);
            void revokeStaleSessionKeys().catch(() => {});
            navigate('/', { replace: true });
          });
        }}
        noValidate
      >
        <FormError error={error} fields={['email', 'password']} />
        <Field label="E-mail" name="email" type="email" autoComplete="email" value={email} onValue={setEmail} error={error} required />
        <Field label="Senha" name="password" type="password" autoComplete="current-password" value={password} onValue={setPassword} error={error} required />
        <button class="btn btn-primary btn-block" type="submit" disabled={busy}>
          {busy ? 'Entrando…' : 'Entrar'}
        </button>
      </form>
      <p class="auth-alt">
        Ainda não tem conta? <Link to="/cadastro">Criar conta</Link>
      </p>
    </AuthFrame>
  );
}

export function Signup() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [referralCode, setReferral] = useState(() => {
    // ?convite= (Conta's link) or ?ref= (the API's invite link, GET /api/referral/code)
    const q = new URLSearchParams(location.search);
    return q.get('convite') ?? q.get('ref') ?? '';
  });
  const { busy, error, submit } = useSubmit();
  return (
    <AuthFrame title="Criar sua conta">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit(async () => {
            const r = await ok(api.POST('/api/auth/register', { body: { name, email, password, ...(referralCode.trim() ? { referralCode: referralCode.trim() } : {}) } }));
            session.start(r.token, r.user);
            void revokeStaleSessionKeys().catch(() => {});
            navigate('/', { replace: true });
          });
        }}
        noValidate
      >
        <FormError error={error} fields={['name', 'email', 'password', 'referralCode']} />
        <Field label="Nome da empresa ou seu nome" name="name" autoComplete="organization" value={name} onValue={setName} error={error} required />
        <Field label="E-mail" name="email" type="email" autoComplete="email" value={email} onValue={setEmail} error={error} required />
        <Field label="Senha" name="password" type="password" autoComplete="new-password" hint="Pelo menos 8 caracteres; evite senhas comuns." value={password} onValue={setPassword} error={error} required />
        <Field label="Código de convite (opcional)" name="referralCode" value={referralCode} onValue={setReferral} error={error} />
        <button class="btn btn-primary btn-block" type="submit" disabled={busy}>
          {busy ? 'Criando…' : 'Criar conta'}
        </button>
      </form>
      <p class="auth-alt">
        Já tem conta? <Link to="/entrar">Entrar</Link>
      </p>
    </AuthFrame>
  );
}
