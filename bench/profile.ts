// Summary of a V8 .cpuprofile (written by a child on BENCH_PROFILE=1): where the CPU went,
// by package/area (self time) and by function (self and inclusive time).
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

export function summarizeProfile(file: string, requests: number, top = 25): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const key = (n: ProfileNode) => {
    const shortUrl = area(n.callFrame.url, n.callFrame.functionName);
    return `${n.callFrame.functionName || '(anonymous)'} ${shortUrl}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
  };
  const selfByArea = new Map<string, number>();
  const selfByFn = new Map<string, number>();
  const inclByFn = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    const leaf = byId.get(p.samples[i]);
    if (!leaf) continue;
    if (leaf.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    total += dt;
    const a = area(leaf.callFrame.url, leaf.callFrame.functionName);
    selfByArea.set(a, (selfByArea.get(a) ?? 0) + dt);
    const k = key(leaf);
    selfByFn.set(k, (selfByFn.get(k) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id)!;
      const nk = key(n);
      if (seen.has(nk)) continue;
      seen.add(nk);
      inclByFn.set(nk, (inclByFn.get(nk) ?? 0) + dt);
    }
  }
  const perReq = (us: number) => `${(us / 1000 / Math.max(1, requests)).toFixed(3)} ms/req`;
  const pct = (us: number) => `${((100 * us) / Math.max(1, total)).toFixed(1)}%`;
  const list = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `    ${pct(v).padStart(6)}  ${perReq(v).padStart(16)}  ${k}`);
  return [
    `  CPU profile ${file}: ${(total / 1000).toFixed(0)} ms busy, ${(idle / 1000).toFixed(0)} ms idle, ${requests} requests -> ${perReq(total)}`,
    '  self time by area:',
    ...list(selfByArea, 20),
    '  self time by function:',
    ...list(selfByFn, top),
    '  inclusive time by function:',
    ...list(inclByFn, top * 2),
  ].join('\n');
}
