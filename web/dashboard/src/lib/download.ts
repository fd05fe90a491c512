// Downloads an authenticated file (the CSV export) with the session's credentials, reporting the
// bytes received so far, then hands it to the browser as a file.
import { getRaw } from '../api/client.ts';

export async function download(path: string, query: Record<string, string>, fallbackName: string, progress: (bytes: number) => void): Promise<void> {
  const res = await getRaw(path, query);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.byteLength;
    progress(bytes);
  }
  const name = /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  saveBlob(new Blob(chunks as BlobPart[], { type: res.headers.get('content-type') ?? 'application/octet-stream' }), name);
}

/** Hands `blob` to the browser as a file named `name`. */
export function saveBlob(blob: Blob, name: string): void {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}
