// Divisões de pagamento (docs/splits.md): the shares other merchants' sales paid me (Recebidas),
// those my sales paid (Enviadas, under the period's summary: gross, fees, recipients, my part), the
// partners who agreed to receive them (Parceiros), and my wallet id to hand to a seller. Over
// /api/v1/splits and /api/v1/split-partners with the dashboard token. Parts in splits/.
import { api, ok } from '../api/client.ts';
import { TabbedScreen } from '../components/Tabs.tsx';
import { CopyButton } from '../components/ui.tsx';
import { useAsync } from '../lib/async.ts';
import { Partners } from './splits/Partners.tsx';
import { Shares } from './splits/Shares.tsx';
import { SplitSummaryCard } from './splits/Summary.tsx';

/** My wallet id (GET /api/auth/me), what a seller names to pay me a share. */
function MyWallet() {
  const me = useAsync(() => ok(api.GET('/api/auth/me', {})), []);
  const walletId = me.data?.user.walletId;
  if (!walletId) return null;
  return (
    <p class="notice wallet">
      <span>
        ID da sua carteira: <code>{walletId}</code>
      </span>{' '}
      <CopyButton text={walletId} label="Copiar ID da carteira" />
      <span class="sub">Quem divide vendas com você informa este ID para repassar a sua parte.</span>
    </p>
  );
}

const Received = () => <Shares side="received" />;

const Sent = () => (
  <>
    <SplitSummaryCard />
    <h2 class="section-title">Cada repasse</h2>
    <Shares side="sent" />
  </>
);

export default function Splits({ route }: { route: string }) {
  return (
    <TabbedScreen
      title="Divisões de pagamento"
      path="/divisoes"
      route={route}
      intro={<MyWallet />}
      tabs={[
        ['recebidas', 'Recebidas', Received],
        ['enviadas', 'Enviadas', Sent],
        ['parceiros', 'Parceiros', Partners],
      ]}
    />
  );
}
