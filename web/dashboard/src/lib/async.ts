// Loading data for a screen: { data, error, loading, reload }, reloaded when `deps` change.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';

export interface Async<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data: T | undefined; error: ApiError | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const seq = useRef(0);
  const run = useCallback(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => mine === seq.current && setState({ data, error: null, loading: false }),
      (err) => mine === seq.current && setState({ data: undefined, error: err instanceof ApiError ? err : new ApiError(0, String(err?.message ?? err)), loading: false }),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/** A form submission: busy flag, the API's error (with its field errors), and a submit wrapper. */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = useCallback(async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, String((err as Error)?.message ?? err)));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, submit };
}
