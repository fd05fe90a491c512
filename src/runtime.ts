// V8 settings of the gateway's long-running processes (`serve`, `worker`, and the benchmark's
// servers, which stand for `serve`), applied once at start, before any request or job runs.
import v8 from 'node:v8';

/**
 * - Allocation-site pretenuring off. V8 watches which object and array literals make objects that
 *   survive its young-generation collections (scavenges) and, past a threshold, allocates that
 *   literal's objects straight in the old generation. When it picked a literal of the request path,
 *   each such object, old from birth, kept the young objects it referred to (its request's headers,
 *   body, response text) alive through every scavenge until the next full collection, and a gateway
 *   process under load promoted 10-16% of all it allocated instead of 4%, with scavenges twice as
 *   long. Which literal, and whether at all, depended on timing: about half the processes started
 *   were in that state for their whole life. See docs/decisions.md, "Garbage collection and V8
 *   flags" (measured in bench/HISTORY.md).
 * - The old generation may grow to 4 times what a full collection left alive before the next one
 *   (`--heap-growing-percent=300`; V8's own factor under load was about 2.6). V8 starts marking
 *   once the old generation's room under that limit is less than the young generation's capacity
 *   (64 MB); with the gateway's ~56 MB alive, a limit of 2.6 times left barely more, and a process
 *   under sustained load ran a full collection (a 6-18 ms pause) every 4-10 s. With 4 times: one a
 *   minute, for up to about 150 MB more heap. Not set when `node` was given the flag itself.
 *   See docs/decisions.md ("Garbage collection and V8 flags"); measured in bench/HISTORY.md.
 */
export function tuneRuntime(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
  // NODE_OPTIONS does not take V8 flags of this kind: only node's own command line can give it.
  if (!process.execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) v8.setFlagsFromString('--heap-growing-percent=300');
}
