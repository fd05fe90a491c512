// A screen whose code loads when it is first opened (its own chunk), so the first load stays small.
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import { ErrorState, Loading } from './ui.tsx';

export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  return function LazyScreen(props: P) {
    const [Screen, setScreen] = useState<ComponentType<P> | null>(() => loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (loaded) return;
      load().then(
        (c) => {
          loaded = c;
          setScreen(() => c);
        },
        () => setFailed(true),
      );
    }, []);
    if (failed) return <ErrorState error={new ApiError(0, 'Não foi possível carregar esta tela. Verifique sua conexão e recarregue a página.')} retry={() => location.reload()} />;
    return Screen ? <Screen {...props} /> : <Loading />;
  };
}
