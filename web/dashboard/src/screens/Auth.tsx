// Sign up and log in. Both give a dashboard token; the API's field errors show beside the fields.
import { useState } from 'preact/hooks';
import { api, type ApiError, ok, revokeStaleSessionKeys } from '../api/client.ts';
import { EnvSwitch } from '../components/Shell.tsx';
import { Link } from '../components/Link.tsx';
import { Field, FormError } from '../components/ui.tsx';
import { useSubmit } from '../lib/async.ts';
import { navigate } from '../lib/router.ts';
import { session, type User } from '../lib/session.ts';
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
  const [challenge, setChallenge] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit();
  const expired = useCell(session.expired);
  if (challenge) return <LoginCode challenge={challenge} restart={() => setChallenge(null)} />;
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
            if (r.mfaRequired && r.challenge) return setChallenge(r.challenge);
            enter(r.token!, r.user!);
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
        <Link to="/esqueci-senha">Esqueci minha senha</Link>
      </p>
      <p class="auth-alt">
        Ainda não tem conta? <Link to="/cadastro">Criar conta</Link>
      </p>
    </AuthFrame>
  );
}

function enter(token: string, user: User) {
  session.start(token, user);
  void revokeStaleSessionKeys().catch(() => {});
  navigate('/', { replace: true });
}

/** The second step of a login with two-factor authentication: the app's code or a recovery code. */
function LoginCode({ challenge, restart }: { challenge: string; restart: () => void }) {
  const [code, setCode] = useState('');
  const { busy, error, submit } = useSubmit();
  return (
    <AuthFrame title="Verificação em duas etapas">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit(async () => {
            const r = await ok(api.POST('/api/auth/login/mfa', { body: { challenge, code: code.trim() } })).catch((err: ApiError) => {
              if (err.status === 401) err.message = 'Código incorreto ou já usado. Se a verificação expirou, entre de novo.';
              throw err;
            });
            enter(r.token, r.user);
          });
        }}
        noValidate
      >
        <p>Digite o código de 6 dígitos do seu aplicativo autenticador. Sem o celular, use um dos códigos de recuperação.</p>
        <FormError error={error} fields={['code']} />
        <Field label="Código" name="code" inputMode="numeric" autoComplete="one-time-code" value={code} onValue={setCode} error={error} required />
        <button class="btn btn-primary btn-block" type="submit" disabled={busy}>
          {busy ? 'Verificando…' : 'Verificar'}
        </button>
      </form>
      <p class="auth-alt">
        <button type="button" class="linklike" onClick={restart}>
          Voltar e entrar de novo
        </button>
      </p>
    </AuthFrame>
  );
}

export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, submit } = useSubmit();
  return (
    <AuthFrame title="Esqueci minha senha">
      {sent ? (
        <p class="notice" role="status">
          Se houver uma conta com este e-mail, enviamos um link para criar uma nova senha. Ele vale por 1 hora.
        </p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit(async () => {
              await ok(api.POST('/api/auth/password/forgot', { body: { email } }));
              setSent(true);
            });
          }}
          noValidate
        >
          <p>Informe o e-mail da conta. Enviaremos um link para você criar uma nova senha.</p>
          <FormError error={error} fields={['email']} />
          <Field label="E-mail" name="email" type="email" autoComplete="email" value={email} onValue={setEmail} error={error} required />
          <button class="btn btn-primary btn-block" type="submit" disabled={busy}>
            {busy ? 'Enviando…' : 'Enviar link'}
          </button>
        </form>
      )}
      <p class="auth-alt">
        <Link to="/entrar">Voltar para entrar</Link>
      </p>
    </AuthFrame>
  );
}

export function ResetPassword({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, submit } = useSubmit();
  return (
    <AuthFrame title="Criar nova senha">
      {done ? (
        <p class="notice" role="status">
          Senha trocada. Todas as sessões abertas foram encerradas; entre com a nova senha.
        </p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit(async () => {
              await ok(api.POST('/api/auth/password/reset', { body: { token, password } })).catch((err: ApiError) => {
                if (err.fields.token) err.message = 'Este link expirou ou já foi usado. Peça um novo em "Esqueci minha senha".';
                throw err;
              });
              setDone(true);
            });
          }}
          noValidate
        >
          <FormError error={error} fields={['password']} />
          <Field label="Nova senha" name="password" type="password" autoComplete="new-password" hint="Pelo menos 8 caracteres; evite senhas comuns." value={password} onValue={setPassword} error={error} required />
          <button class="btn btn-primary btn-block" type="submit" disabled={busy}>
            {busy ? 'Salvando…' : 'Salvar nova senha'}
          </button>
        </form>
      )}
      <p class="auth-alt">
        <Link to="/entrar">Ir para entrar</Link>
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
            enter(r.token, r.user);
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
