// Assinaturas: plans (create, edit, deactivate, the public subscription page to copy), subscribers
// (cursor list filtered by status and plan; a subscription's page with its cycles and the actions:
// cancel now or at the period's end, pause, resume, retry, and in development the clock), and the
// month's metrics (MRR, subscribers, churn, MRR movements) with the MRR of the last months.
// All through /api/v1/subscriptions (the dashboard token is accepted there: docs/subscriptions.md).
// The parts are in subscriptions/.
import { TabbedScreen } from '../components/Tabs.tsx';
import { MetricsTab } from './subscriptions/Metrics.tsx';
import { Plans } from './subscriptions/Plans.tsx';
import { Subscribers } from './subscriptions/Subscribers.tsx';

export { SubscriptionDetail } from './subscriptions/Detail.tsx';

export default function Subscriptions({ route }: { route: string }) {
  return (
    <TabbedScreen
      title="Assinaturas"
      path="/assinaturas"
      route={route}
      tabs={[
        ['planos', 'Planos', Plans],
        ['assinantes', 'Assinantes', Subscribers],
        ['metricas', 'Métricas', MetricsTab],
      ]}
    />
  );
}
