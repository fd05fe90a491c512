// Routes of the dashboard. Logged out: /entrar and /cadastro. Logged in: every screen inside the
// Shell; the environment is part of each screen's key, so switching it reloads the screen's data.
import { useEffect } from 'preact/hooks';
import { api, ok } from './api/client.ts';
import { lazyScreen } from './components/Lazy.tsx';
import { NeedsKyc } from './components/NeedsKyc.tsx';
import { Shell } from './components/Shell.tsx';
import { ErrorState, Loading } from './components/ui.tsx';
import { useAsync } from './lib/async.ts';
import { match, navigate, pathOf, queryOf, route as routeCell } from './lib/router.ts';
import { session } from './lib/session.ts';
import { useCell } from './lib/state.ts';
import { Account } from './screens/Account.tsx';
import { ForgotPassword, Login, ResetPassword, Signup } from './screens/Auth.tsx';
import { Security } from './screens/Security.tsx';
import { SecondFactorPrompt } from './components/SecondFactor.tsx';
import { Catalog } from './screens/Catalog.tsx';
import { Developers } from './screens/Developers.tsx';
import { Home } from './screens/Home.tsx';
import { Money } from './screens/Money.tsx';
import { Operations } from './screens/Operations.tsx';
import { SaleDetail } from './screens/SaleDetail.tsx';
import { ClientDetail } from './screens/ClientDetail.tsx';
import { Sales } from './screens/Sales.tsx';

// Loaded when first opened (their own chunks).
const Subscriptions = lazyScreen(() => import('./screens/Subscriptions.tsx').then((m) => m.default));
const SubscriptionDetail = lazyScreen(() => import('./screens/Subscriptions.tsx').then((m) => m.SubscriptionDetail));
const Affiliates = lazyScreen(() => import('./screens/Affiliates.tsx').then((m) => m.default));
const Referrals = lazyScreen(() => import('./screens/Affiliates.tsx').then((m) => m.Referrals));
const Splits = lazyScreen(() => import('./screens/Splits.tsx').then((m) => m.default));
const Accounts = lazyScreen(() => import('./screens/Accounts.tsx').then((m) => m.default));
const AccountDetail = lazyScreen(() => import('./screens/Accounts.tsx').then((m) => m.AccountDetail));

const TITLES: Record<string, string> = {
  '': 'Início', vendas: 'Vendas', catalogo: 'Catálogo', dinheiro: 'Dinheiro', divisoes: 'Divisões de pagamento', subcontas: 'Subcontas', desenvolvedores: 'Desenvolvedores',
  conta: 'Conta', clientes: 'Cliente', seguranca: 'Segurança', 'esqueci-senha': 'Esqueci minha senha', 'redefinir-senha': 'Nova senha', assinaturas: 'Assinaturas', afiliados: 'Afiliados', indicacoes: 'Indicações', operacao: 'Operação', entrar: 'Entrar', cadastro: 'Criar conta',
};

function Screen({ route }: { route: string }) {
  const path = pathOf(route);
  let p: Record<string, string> | null;
  if (path === '/') return <Home />;
  if ((p = match('/vendas/:id', path))) return <NeedsKyc title="Venda"><SaleDetail id={p.id} /></NeedsKyc>;
  if (match('/vendas', path)) return <NeedsKyc title="Vendas"><Sales route={route} /></NeedsKyc>;
  if (match('/desenvolvedores', path)) return <Developers route={route} />;
  if (match('/catalogo', path)) return <Catalog route={route} />;
  if ((p = match('/clientes/:id', path))) return <NeedsKyc title="Cliente"><ClientDetail id={p.id} /></NeedsKyc>;
  if (match('/dinheiro', path)) return <Money route={route} />;
  if (match('/divisoes', path)) return <Splits route={route} />;
  if ((p = match('/subcontas/:id', path))) return <AccountDetail id={p.id} />;
  if (match('/subcontas', path)) return <Accounts />;
  if (match('/conta', path)) return <Account />;
  if (match('/seguranca', path)) return <Security />;
  if (match('/operacao', path)) return <Operations route={route} />;
  if ((p = match('/assinaturas/:id', path))) return <SubscriptionDetail id={p.id} />;
  if (match('/assinaturas', path)) return <Subscriptions route={route} />;
  if (match('/afiliados', path)) return <Affiliates route={route} />;
  if (match('/indicacoes', path)) return <Referrals />;
  return (
    <div>
      <h1>Página não encontrada</h1>
      <p>
        Este endereço não existe no painel. <a href="/dashboard">Voltar ao início</a>.
      </p>
    </div>
  );
}

function LoggedIn({ route }: { route: string }) {
  const env = useCell(session.env);
  const user = useCell(session.user);
  const me = useAsync(async () => (user ? user : (await ok(api.GET('/api/auth/me', {}))).user), []);
  useEffect(() => {
    if (me.data && !user) session.user.set(me.data);
  }, [me.data]);
  if (!user && me.loading) return <Loading label="Abrindo o painel…" />;
  if (!user && me.error) return <ErrorState error={me.error} retry={me.reload} />;
  return (
    <Shell route={route}>
      <Screen key={`${env}:${pathOf(route)}`} route={route} />
      <SecondFactorPrompt />
    </Shell>
  );
}

export function App() {
  const route = useCell(routeCell);
  const token = useCell(session.token);
  const path = pathOf(route);
  const publicPage = path === '/entrar' || path === '/cadastro';
  // The password pages open from an e-mail: with or without a session.
  const passwordPage = path === '/esqueci-senha' || path === '/redefinir-senha';
  useEffect(() => {
    if (passwordPage) return;
    if (!token && !publicPage) navigate('/entrar', { replace: true });
    else if (token && publicPage) navigate('/', { replace: true });
  }, [token, publicPage, passwordPage]);
  useEffect(() => {
    document.title = `${TITLES[path.split('/')[1] ?? ''] ?? 'Painel'} — Cofre`;
  }, [path]);
  if (path === '/esqueci-senha') return <ForgotPassword />;
  if (path === '/redefinir-senha') return <ResetPassword token={queryOf(route).get('token') ?? ''} />;
  if (!token) return path === '/cadastro' ? <Signup /> : <Login />;
  if (publicPage) return null;
  return <LoggedIn route={route} />;
}
