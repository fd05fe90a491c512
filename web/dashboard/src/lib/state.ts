// A value screens can watch: set() re-renders every component using it (useCell).
import { useEffect, useState } from 'preact/hooks';

export class Cell<T> {
  value: T;
  private listeners = new Set<(v: T) => void>();
  constructor(value: T) {
    this.value = value;
  }
  set(value: T) {
    if (Object.is(value, this.value)) return;
    this.value = value;
    for (const l of [...this.listeners]) l(value);
  }
  subscribe(fn: (v: T) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

export function useCell<T>(cell: Cell<T>): T {
  const [, render] = useState(0);
  useEffect(() => cell.subscribe(() => render((n) => n + 1)), [cell]);
  return cell.value;
}
