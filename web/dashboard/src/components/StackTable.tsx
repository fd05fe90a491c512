// A table declared by its columns (label, cell, numeric), in a focusable scrolling region, whose rows
// become labelled blocks on a phone (.table-stack): Divisões, a sub-account's sales.
import type { ComponentChildren } from 'preact';

export type Column<T> = [label: string, cell: (row: T) => ComponentChildren, numeric?: boolean];

export function StackTable<T>({ label, caption, columns, rows, rowKey, card = true, children }: { label: string; caption?: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string; card?: boolean; children?: ComponentChildren }) {
  return (
    <div class={card ? 'card table-wrap' : 'table-wrap'} tabIndex={0} role="region" aria-label={label}>
      <table class="table-stack">
        <caption class="sr-only">{caption ?? label}</caption>
        <thead>
          <tr>
            {columns.map(([name, , numeric]) => (
              <th key={name} scope="col" class={numeric ? 'num' : undefined}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map(([name, cell, numeric]) => (
                <td key={name} data-label={name} class={numeric ? 'num' : undefined}>
                  {cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {children}
    </div>
  );
}
