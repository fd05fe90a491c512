// The frame around every logged-in screen: the brand, the environment switch (always visible; the
// sandbox is marked by a stripe on every screen), the menu and the logout button.
import type { ComponentChildren } from 'preact';
import { logout } from '../api/client.ts';
import { pathOf } from '../lib/router.ts';
import { session, type Environment } from '../lib/session.ts';
import { useCurrentInView } from '../lib/scroll.ts';
import { useCell } from '../lib/state.ts';
import { Link } from './Link.tsx';

const MENU: [string, string][] = [
  ['/', 'Início'],
  ['/vendas', 'Vendas'],
  ['/catalogo', 'Catálogo'],
  ['/dinheiro', 'Dinheiro'],
  ['/divisoes', 'Divisões'],
  ['/subcontas', 'Subcontas'],
  ['/assinaturas', 'Assinaturas'],
  ['/afiliados', 'Afiliados'],
  ['/indicacoes', 'Indicações'],
  ['/desenvolvedores', 'Desenvolvedores'],
  ['/conta', 'Conta'],
  ['/seguranca', 'Segurança'],
];

export function EnvSwitch() {
  const env = useCell(session.env);
  const pick = (e: Environment) => session.setEnv(e);
  return (
    <div class="env-switch" role="radiogroup" aria-label="Ambiente">
      {(
        [
          ['development', 'Desenvolvimento'],
          ['production', 'Produção'],
        ] as [Environment, string][]
      ).map(([value, label]) => (
        <button key={value} type="button" role="radio" aria-checked={env === value} class={env === value ? `env env-${value} env-on` : `env env-${value}`} onClick={() => pick(value)}>
          {label}
        </button>
      ))}
    </div>
  );
}

export function Shell({ route, children }: { route: string; children: ComponentChildren }) {
  const env = useCell(session.env);
  const user = useCell(session.user);
  const path = pathOf(route);
  const section = '/' + (path.split('/')[1] ?? '');
  const menu = user?.role === 'ADMIN' ? [...MENU, ['/operacao', 'Operação'] as [string, string]] : MENU;
  const menuRow = useCurrentInView<HTMLElement>(section);
  return (
    <div class={`shell env-is-${env}`}>
      <a class="skip" href="#conteudo">
        Pular para o conteúdo
      </a>
      {env === 'development' && (
        <div class="sandbox-bar" role="note">
          Ambiente de desenvolvimento (sandbox): nada aqui movimenta dinheiro de verdade.
        </div>
      )}
      <header class="topbar">
        <Link to="/" class="brand">
          Cofre
        </Link>
        <EnvSwitch />
        <div class="user">
          <span class="user-name">{user?.name}</span>
          <button type="button" class="btn btn-ghost btn-small" onClick={logout}>
            Sair
          </button>
        </div>
      </header>
      <nav class="menu" aria-label="Menu principal" ref={menuRow}>
        {menu.map(([to, label]) => (
          <Link key={to} to={to} class="menu-item" current={to === section || (to === '/' && path === '/')}>
            {label}
          </Link>
        ))}
      </nav>
      <main id="conteudo" class="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
