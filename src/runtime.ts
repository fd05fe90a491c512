// V8 settings of the gateway's long-running processes (`serve`, `worker`, and the benchmark's
// servers, which stand for `serve`), applied once at start, before any request or job runs.
import v8 from 'node:v8';

/**
 * Allocation-site pretenuring off. V8 watches which object and array literals make objects that
 * survive its young-generation collections (scavenges) and, past a threshold, allocates that
 * literal's objects straight in the old generation. When it picked a literal of the request path,
 * each such object, old from birth, kept the young objects it referred to (its request's headers,
 * body, response text) alive through every scavenge until the next full collection, and a gateway
 * process under load promoted 10-16% of all it allocated instead of 4%, with scavenges twice as
 * long. Which literal, and whether at all, depended on timing: about half the processes started
 * were in that state for their whole life. See docs/decisions.md (group commit, eighth pass).
 */
export function tuneRuntime(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
