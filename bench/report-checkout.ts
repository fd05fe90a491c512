// The hosted checkout page's rows of the benchmark report (K1-K3).
import { CHECKOUT_TARGETS } from './checkout.ts';
import { RENDER_TARGET_P50_MS } from './checkout-render.ts';
import type { Results } from './context.ts';
import { fmt, met } from './stats.ts';

/** K: the hosted checkout page. */
export function checkoutTable(results: Results): string[] {
  const lines: string[] = [];
  const co = results.checkout;
  if (co) {
    lines.push(
      '',
      '| Hosted checkout page (issue 5) | Measured | Target | Result |',
      '| --- | --- | --- | --- |',
      `| GET /pay/{slug}, ${co.connections} connections: time to response p50 | ${fmt(co.latencyMs.p50, 1)} ms (p99 ${fmt(co.latencyMs.p99, 1)} ms, ${fmt(co.perSecond, 0)} pages/s, ${co.non2xx + co.errors} failures) | <= ${CHECKOUT_TARGETS.firstByteP50Ms} ms | ${met(co.latencyMs.p50 <= CHECKOUT_TARGETS.firstByteP50Ms)} |`,
      ...(co.affiliate
        ? [
            `| K2: the same page through an affiliate link (\`?aff=\`, the click counted), p50 | ${fmt(co.affiliate.latencyMs.p50, 1)} ms (p99 ${fmt(co.affiliate.latencyMs.p99, 1)} ms, ${fmt(co.affiliate.perSecond, 0)} pages/s, ${co.affiliate.non2xx + co.affiliate.errors} failures) | <= ${CHECKOUT_TARGETS.firstByteP50Ms} ms, and near K1 | ${met(co.affiliate.latencyMs.p50 <= CHECKOUT_TARGETS.firstByteP50Ms)} |`,
          ]
        : []),
    );
  }
  const r = results.checkoutRender;
  if (r) {
    lines.push(
      `| K3: the page on a cache miss (read, render, compress), with a checkout's brand and 2 order bumps, p50 | ${fmt(r.branded.p50, 2)} ms (p99 ${fmt(r.branded.p99, 2)} ms, ${fmt(r.branded.bytes, 0)} bytes br); the plain page of the same run ${fmt(r.plain.p50, 2)} ms (p99 ${fmt(r.plain.p99, 2)} ms, ${fmt(r.plain.bytes, 0)} bytes), ${r.samples} each, alternating | <= ${RENDER_TARGET_P50_MS} ms | ${met(r.branded.p50 <= RENDER_TARGET_P50_MS)} |`,
    );
  }
  return lines;
}

