// What production needs before it opens (docs/errors.md, 403): an approved verification (KYC) for
// production API keys — which the screens reading products, sales, clients, coupons and webhooks go
// through — withdrawals and advances. Until then those screens say so, and where to go, instead of
// showing forms and lists the API would refuse.
import type { ComponentChildren } from 'preact';
import { api, ok } from '../api/client.ts';
import { useAsync } from '../lib/async.ts';
import { session } from '../lib/session.ts';
import { useCell } from '../lib/state.ts';
import { Link } from './Link.tsx';
import { ErrorState, Loading, PageHeader } from './ui.tsx';

type KycStatus = 'NOT_SUBMITTED' | 'SUBMITTED' | 'APPROVED' | 'REJECTED';

/** The merchant's verification status, read when `when` holds (undefined until read, or without it). */
export function useKycStatus(when = true) {
  return useAsync(async (): Promise<KycStatus | undefined> => (when ? (await ok(api.GET('/api/kyc', {}))).status : undefined), [when]);
}

const WHY: Record<Exclude<KycStatus, 'APPROVED'>, string> = {
  NOT_SUBMITTED: 'Para vender, sacar e integrar em produção, envie os dados e documentos da sua empresa em Conta. Assim que o cadastro for aprovado (costuma levar até 2 dias úteis), esta tela funciona em produção.',
  SUBMITTED: 'Recebemos seu cadastro e ele está em análise (costuma levar até 2 dias úteis). Assim que for aprovado, esta tela funciona em produção.',
  REJECTED: 'Seu cadastro foi recusado. Veja o motivo em Conta, corrija e envie de novo; depois da aprovação, esta tela funciona em produção.',
};

/** `children` in development, or in production once the account is verified; else why not yet. */
export function NeedsKyc({ title, children }: { title?: string; children: ComponentChildren }) {
  const production = useCell(session.env) === 'production';
  const kyc = useKycStatus(production);
  if (!production || kyc.data === 'APPROVED') return <>{children}</>;
  return (
    <div>
      {title && <PageHeader title={title} />}
      {kyc.loading && <Loading />}
      {kyc.error && <ErrorState error={kyc.error} retry={kyc.reload} />}
      {kyc.data && (
        <div class="card" role="status">
          <h2>Produção ainda não liberada</h2>
          <p>{WHY[kyc.data]}</p>
          <p class="muted">Enquanto isso, tudo funciona no ambiente de desenvolvimento (sandbox), sem dinheiro de verdade.</p>
          <div class="actions">
            <Link to="/conta" class="btn btn-primary">
              {kyc.data === 'SUBMITTED' ? 'Ver meu cadastro' : 'Enviar cadastro em Conta'}
            </Link>
            <button type="button" class="btn btn-secondary" onClick={() => session.setEnv('development')}>
              Usar o desenvolvimento
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
