// Afiliados and Indicações. As a product owner: affiliate programs (one per product: commission,
// cookie, attribution, approval, guarantee), and each program's affiliates to approve, refuse or
// block. As an affiliate: the marketplace (search, join), my links to copy, my commissions, my
// totals. Referrals: my invite code and link, totals and rewards. Through /api/affiliate/* and
// /api/referral/* with the dashboard token (docs/affiliates.md).
// The parts are in affiliates/.
import { TabbedScreen } from '../components/Tabs.tsx';
import { Commissions, Marketplace, MyLinks } from './affiliates/Affiliate.tsx';
import { Programs } from './affiliates/Programs.tsx';

export { Referrals } from './affiliates/Referrals.tsx';

export default function Affiliates({ route }: { route: string }) {
  return (
    <TabbedScreen
      title="Afiliados"
      path="/afiliados"
      route={route}
      tabs={[
        ['programas', 'Programas', Programs, 'kyc'],
        ['vitrine', 'Vitrine', Marketplace],
        ['links', 'Links', MyLinks],
        ['comissoes', 'Comissões', Commissions],
      ]}
    />
  );
}
