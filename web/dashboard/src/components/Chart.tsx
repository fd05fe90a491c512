// The daily sales chart: bars stacked by method (uPlot, loaded on demand so the first screen stays
// light), with the same numbers in a table for screen readers and for reading exact values.
import { useEffect, useRef } from 'preact/hooks';
import type { Day } from '../api/reports.ts';
import { brl, date, METHOD_LABELS } from '../lib/format.ts';

const COLORS = { PIX: '#0b8a6a', CARD: '#3a5bd9', BOLETO: '#c77700' } as const;
const ORDER = ['PIX', 'CARD', 'BOLETO'] as const;
const HALF_DAY = 43_200;
/** Room one "dd/mm" label needs on the x axis, in CSS pixels. */
const LABEL_PX = 56;

const everyNth = (xs: number[], n: number) => xs.filter((_, i) => i % n === 0);

export function SalesChart({ days }: { days: Day[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let chart: { destroy(): void; setSize(s: { width: number; height: number }): void } | undefined;
    let stop = false;
    let observer: ResizeObserver | undefined;
    (async () => {
      const [{ default: uPlot }] = await Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]);
      if (stop || !box.current) return;
      const xs = days.map((d) => new Date(`${d.date}T12:00:00-03:00`).getTime() / 1000);
      // Stacked: each series is the running total up to its method, drawn tallest first; nothing
      // (null, not a flat bar) where that total is zero.
      const stacked = ORDER.map((_, i) => days.map((d) => ORDER.slice(0, i + 1).reduce((s, m) => s + d[m], 0) / 100 || null));
      const order = [2, 1, 0];
      const width = box.current.clientWidth || 320;
      const bars = uPlot.paths.bars!({ size: [0.7, 40] });
      chart = new uPlot(
        {
          width,
          height: 240,
          legend: { show: true },
          cursor: { points: { show: false } },
          // Half a day either side of the first and last bar, so a short period is not stretched over hours.
          scales: { x: { time: true, range: () => [xs[0] - HALF_DAY, xs[xs.length - 1] + HALF_DAY] }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
          axes: [
            // One tick per day (the bars' own positions), thinned to every n-th day when they would not fit.
            { splits: (u) => everyNth(xs, Math.ceil(xs.length / Math.max(1, Math.floor(u.width / LABEL_PX)))), values: (_u, ticks) => ticks.map((t) => date(new Date(t * 1000).toISOString()).slice(0, 5)) },
            { size: 70, values: (_u, ticks) => ticks.map((t) => brl(Math.round(t * 100)).replace(/,00$/, '')) },
          ],
          series: [
            { label: 'Dia', value: (_u, v) => (v == null ? '—' : date(new Date(v * 1000).toISOString())) },
            ...order.map((i) => ({
              label: METHOD_LABELS[ORDER[i]],
              fill: COLORS[ORDER[i]],
              stroke: COLORS[ORDER[i]],
              paths: bars,
              points: { show: false },
              value: (_u: unknown, _v: number | null, _s: number, idx: number | null) => (idx == null ? '—' : brl(days[idx]?.[ORDER[i]] ?? 0)),
            })),
          ],
        },
        [xs, ...order.map((i) => stacked[i])] as never,
        box.current,
      );
      observer = new ResizeObserver(() => box.current && chart?.setSize({ width: box.current.clientWidth, height: 240 }));
      observer.observe(box.current);
    })();
    return () => {
      stop = true;
      observer?.disconnect();
      chart?.destroy();
    };
  }, [days]);
  return (
    <figure class="chart">
      <div ref={box} class="chart-box" role="img" aria-label="Gráfico de vendas por dia, empilhadas por forma de pagamento" />
      <details>
        <summary>Ver os números em tabela</summary>
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Vendas por dia">
          <table>
            <thead>
              <tr>
                <th scope="col">Dia</th>
                <th scope="col">PIX</th>
                <th scope="col">Cartão</th>
                <th scope="col">Boleto</th>
                <th scope="col">Vendas</th>
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.date}>
                  <td>{date(d.date)}</td>
                  <td class="num">{brl(d.PIX)}</td>
                  <td class="num">{brl(d.CARD)}</td>
                  <td class="num">{brl(d.BOLETO)}</td>
                  <td class="num">{d.paidCount}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
