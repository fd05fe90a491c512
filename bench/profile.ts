// Summary of a profile written by a child: a V8 .cpuprofile (BENCH_PROFILE=1), where the CPU went, or a
// sampling heap profile (BENCH_PROFILE=alloc or =promoted), where the bytes were allocated (or those
// of them that survived the young generation); by package/area (self) and by function (self and
// inclusive).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function area(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  if (url.startsWith('node:')) return 'node core';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  const bench = url.indexOf('/bench/');
  if (bench >= 0) return url.slice(bench + 1);
  return url;
}

interface HeapNode {
  id: number;
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** Summary of the profile a child wrote: a .cpuprofile (time) or, from BENCH_PROFILE=alloc / =promoted, a .heapprofile (bytes). */
export function summarizeProfile(file: string, requests: number, top = 25): string {
  const data = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile | { head: HeapNode };
  const nodes: ProfileNode[] = [];
  /** What each node weighs by itself: CPU microseconds, or bytes allocated. */
  const weight = new Map<number, number>();
  let idle = 0;
  if ('head' in data) {
    const walk = (n: HeapNode) => {
      nodes.push({ id: n.id, callFrame: n.callFrame, children: n.children.map((c) => c.id) });
      weight.set(n.id, n.selfSize);
      n.children.forEach(walk);
    };
    walk(data.head);
  } else {
    nodes.push(...data.nodes);
    const idleIds = new Set(nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
    for (let i = 0; i < data.samples.length; i++) {
      const id = data.samples[i];
      const dt = data.timeDeltas[i] ?? 0;
      if (idleIds.has(id)) idle += dt;
      else weight.set(id, (weight.get(id) ?? 0) + dt);
    }
  }
  const bytes = 'head' in data;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const key = (n: ProfileNode) => {
    const shortUrl = area(n.callFrame.url, n.callFrame.functionName);
    return `${n.callFrame.functionName || '(anonymous)'} ${shortUrl}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
  };
  const selfByArea = new Map<string, number>();
  const selfByFn = new Map<string, number>();
  const inclByFn = new Map<string, number>();
  let total = 0;
  for (const [id, w] of weight) {
    const leaf = byId.get(id);
    if (!leaf || !w) continue;
    total += w;
    const a = area(leaf.callFrame.url, leaf.callFrame.functionName);
    selfByArea.set(a, (selfByArea.get(a) ?? 0) + w);
    const k = key(leaf);
    selfByFn.set(k, (selfByFn.get(k) ?? 0) + w);
    const seen = new Set<string>();
    for (let up: number | undefined = leaf.id; up !== undefined; up = parent.get(up)) {
      const nk = key(byId.get(up)!);
      if (seen.has(nk)) continue;
      seen.add(nk);
      inclByFn.set(nk, (inclByFn.get(nk) ?? 0) + w);
    }
  }
  const n = Math.max(1, requests);
  const perReq = (w: number) => (bytes ? `${(w / 1024 / n).toFixed(1)} KB/req` : `${(w / 1000 / n).toFixed(3)} ms/req`);
  const pct = (w: number) => `${((100 * w) / Math.max(1, total)).toFixed(1)}%`;
  const list = (m: Map<string, number>, count: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([k, v]) => `    ${pct(v).padStart(6)}  ${perReq(v).padStart(16)}  ${k}`);
  const what = bytes ? 'allocated' : 'time';
  return [
    bytes
      ? `  Allocation profile ${file}: ${(total / 2 ** 20).toFixed(0)} MB allocated (sampled), ${requests} requests -> ${perReq(total)}`
      : `  CPU profile ${file}: ${(total / 1000).toFixed(0)} ms busy, ${(idle / 1000).toFixed(0)} ms idle, ${requests} requests -> ${perReq(total)}`,
    `  self ${what} by area:`,
    ...list(selfByArea, 20),
    `  self ${what} by function:`,
    ...list(selfByFn, top),
    `  inclusive ${what} by function:`,
    ...list(inclByFn, top * 2),
  ].join('\n');
}
