// Charts (uPlot, loaded on demand so the first screen stays light), each with its numbers in a table
// for screen readers and for reading exact values: the daily sales stacked by method (Início) and
// the MRR of the last months (Assinaturas).
import type { ComponentChildren, RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type uPlotClass from 'uplot';
import type { Day } from '../api/reports.ts';
import { brl, date, METHOD_LABELS } from '../lib/format.ts';

const COLORS = { PIX: '#0b8a6a', CARD: '#3a5bd9', BOLETO: '#c77700' } as const;
const ORDER = ['PIX', 'CARD', 'BOLETO'] as const;

type UPlot = typeof uPlotClass;
type Built = { destroy(): void; setSize(s: { width: number; height: number }): void };

/**
 * A uPlot chart drawn into `box` (uPlot and its style loaded on demand, so the first screen stays
 * light), resized with its box and destroyed with the component; `make` builds it at a width.
 */
function useUPlot(box: { current: HTMLDivElement | null }, height: number, make: (uPlot: UPlot, width: number, into: HTMLDivElement) => Built, deps: unknown[]) {
  useEffect(() => {
    let chart: Built | undefined;
    let stop = false;
    let observer: ResizeObserver | undefined;
    (async () => {
      const [{ default: uPlot }] = await Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]);
      if (stop || !box.current) return;
      chart = make(uPlot, box.current.clientWidth || 320, box.current);
      observer = new ResizeObserver(() => box.current && chart?.setSize({ width: box.current.clientWidth, height }));
      observer.observe(box.current);
    })();
    return () => {
      stop = true;
      observer?.disconnect();
      chart?.destroy();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
}

/** The money axis: R$ 1.234 (no cents on round ticks). */
const moneyAxis = { size: 70, values: (_u: unknown, ticks: number[]) => ticks.map((t) => brl(Math.round(t * 100)).replace(/,00$/, '')) };

export function SalesChart({ days }: { days: Day[] }) {
  const box = useRef<HTMLDivElement>(null);
  useUPlot(
    box,
    240,
    (uPlot, width, into) => {
      const xs = days.map((d) => new Date(`${d.date}T12:00:00-03:00`).getTime() / 1000);
      // Stacked: each series is the running total up to its method, drawn tallest first.
      const stacked = ORDER.map((_, i) => days.map((d) => ORDER.slice(0, i + 1).reduce((s, m) => s + d[m], 0) / 100));
      const order = [2, 1, 0];
      const bars = uPlot.paths.bars!({ size: [0.7, 40] });
      return new uPlot(
        {
          width,
          height: 240,
          legend: { show: true },
          cursor: { points: { show: false } },
          scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
          axes: [{ values: (_u, ticks) => ticks.map((t) => date(new Date(t * 1000).toISOString()).slice(0, 5)) }, moneyAxis],
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
        into,
      );
    },
    [days],
  );
  return (
    <ChartFigure box={box} label="Gráfico de vendas por dia, empilhadas por forma de pagamento" tableLabel="Vendas por dia" head={['Dia', 'PIX', 'Cartão', 'Boleto', 'Vendas']}>
      {days.map((d) => (
        <tr key={d.date}>
          <td>{date(d.date)}</td>
          <td class="num">{brl(d.PIX)}</td>
          <td class="num">{brl(d.CARD)}</td>
          <td class="num">{brl(d.BOLETO)}</td>
          <td class="num">{d.paidCount}</td>
        </tr>
      ))}
    </ChartFigure>
  );
}

/** A chart's frame: the drawing (an image to screen readers) and its numbers in a table under it. */
function ChartFigure({ box, label, tableLabel, head, short, children }: { box: RefObject<HTMLDivElement | null>; label: string; tableLabel: string; head: string[]; short?: boolean; children: ComponentChildren }) {
  return (
    <figure class="chart">
      <div ref={box} class={short ? 'chart-box chart-box-short' : 'chart-box'} role="img" aria-label={label} />
      <details>
        <summary>Ver os números em tabela</summary>
        <div class="table-wrap" tabIndex={0} role="region" aria-label={tableLabel}>
          <table>
            <thead>
              <tr>
                {head.map((h, i) => (
                  <th key={h} scope="col" class={i ? 'num' : undefined}>
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>{children}</tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

export interface MrrMonth {
  /** YYYY-MM */
  month: string;
  mrrCents: number;
  activeSubscribers: number;
}

const MONTHS = ['jan', 'fev', 'mar', 'abr', 'mai', 'jun', 'jul', 'ago', 'set', 'out', 'nov', 'dez'];
/** "2026-03" -> "mar/2026" */
export const monthLabel = (m: string) => `${MONTHS[Number(m.slice(5, 7)) - 1]}/${m.slice(0, 4)}`;

/** A month's label for a chart `width` px wide: mar/2026, mar/26 or mar. */
const shortMonth = (m: string, width: number) => (width < 420 ? monthLabel(m).slice(0, 3) : width < 640 ? monthLabel(m).replace(/\/\d\d(\d\d)$/, '/$1') : monthLabel(m));

/** MRR at the end of each month (bars), oldest first. */
export function MrrChart({ months }: { months: MrrMonth[] }) {
  const box = useRef<HTMLDivElement>(null);
  useUPlot(
    box,
    220,
    (uPlot, width, into) =>
      new uPlot(
        {
          width,
          height: 220,
          legend: { show: true },
          cursor: { points: { show: false } },
          scales: { x: { time: false, range: () => [-0.5, months.length - 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.15)] } },
          // Narrower, the months are shorter (jun/26, then jun), or their labels would overlap.
          axes: [{ splits: () => months.map((_, i) => i), values: (u, ticks) => ticks.map((t) => (months[t] ? shortMonth(months[t].month, u.width) : '')) }, moneyAxis],
          series: [
            { label: 'Mês', value: (_u, v) => (v == null || !months[v] ? '—' : monthLabel(months[v].month)) },
            { label: 'MRR', fill: '#3a5bd9', stroke: '#3a5bd9', paths: uPlot.paths.bars!({ size: [0.6, 60] }), points: { show: false }, value: (_u, v) => (v == null ? '—' : brl(Math.round(v * 100))) },
          ],
        },
        [months.map((_, i) => i), months.map((m) => m.mrrCents / 100)] as never,
        into,
      ),
    [months],
  );
  return (
    <ChartFigure box={box} short label="Gráfico da receita recorrente mensal (MRR) nos últimos meses" tableLabel="MRR por mês" head={['Mês', 'MRR', 'Assinantes ativos']}>
      {months.map((m) => (
        <tr key={m.month}>
          <td>{monthLabel(m.month)}</td>
          <td class="num">{brl(m.mrrCents)}</td>
          <td class="num">{m.activeSubscribers}</td>
        </tr>
      ))}
    </ChartFigure>
  );
}
