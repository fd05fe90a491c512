// Logs a person reads: when stdout is a terminal, each pino JSON line becomes one readable line
// (one per request: method, path, status, time, request id); anywhere else (a file, a pipe, a log
// collector) the JSON lines are written as they are. Formatting happens after pino has redacted and
// serialised, so nothing the JSON would hide appears here. No dependency: a small Writable.
import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const COLORS: Record<number, string> = { 10: '90', 20: '90', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Fields every line has, or that the readable form shows in its own way. */
const SHOWN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res', 'responseTime', 'err']);
/** Requests whose "incoming" line was seen and whose "completed" line was not (bounded: a slow or lost one must not grow it). */
const MAX_OPEN = 1000;

type Line = Record<string, unknown> & { level?: number; time?: number; msg?: string; reqId?: string; err?: { message?: string; stack?: string } };

export class ReadableLogFormatter {
  private open = new Map<string, string>(); // reqId -> "GET /path"
  private color: boolean;
  constructor(opts: { color: boolean }) {
    this.color = opts.color;
  }

  /** The readable text for one JSON log line ('' to print nothing), or the line itself if it is not JSON. */
  format(jsonLine: string): string {
    let o: Line;
    try {
      o = JSON.parse(jsonLine) as Line;
    } catch {
      return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
    }
    const req = o.req as { method?: string; path?: string } | undefined;
    if (o.msg === 'incoming request' && o.reqId && req) {
      // Shown once, with its outcome, when it completes.
      if (this.open.size >= MAX_OPEN) this.open.delete(this.open.keys().next().value!);
      this.open.set(o.reqId, `${req.method} ${req.path}`);
      return '';
    }
    const time = new Date(o.time ?? Date.now()).toISOString().slice(11, 23);
    const level = o.level ?? 30;
    const tag = this.paint(LEVELS[level] ?? String(level), COLORS[level]);
    let text: string;
    if (o.msg === 'request completed' && o.reqId) {
      const what = this.open.get(o.reqId) ?? (req ? `${req.method} ${req.path}` : 'request');
      this.open.delete(o.reqId);
      const status = (o.res as { statusCode?: number } | undefined)?.statusCode ?? 0;
      const ms = typeof o.responseTime === 'number' ? `${o.responseTime < 10 ? o.responseTime.toFixed(1) : Math.round(o.responseTime)} ms` : '';
      text = `${what} ${this.paint(String(status), status >= 500 ? '31' : status >= 400 ? '33' : '32')} ${ms}`;
    } else {
      text = o.msg ?? '';
    }
    const extra = Object.entries(o)
      .filter(([k]) => !SHOWN.has(k))
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
    if (o.reqId) extra.push(this.paint(`req=${o.reqId}`, '90'));
    let out = `${this.paint(time, '90')} ${tag} ${text}${extra.length ? `  ${extra.join(' ')}` : ''}\n`;
    if (o.err) out += `${o.err.stack ?? o.err.message ?? JSON.stringify(o.err)}\n`.replace(/^/gm, '    ');
    return out;
  }

  private paint(s: string, code: string | undefined): string {
    return this.color && code ? `\u001b[${code}m${s}\u001b[39m` : s;
  }
}

/** A stream that writes readable lines to `out` (a terminal). */
export function readableLogStream(out: NodeJS.WritableStream & { hasColors?: () => boolean }): Writable {
  const formatter = new ReadableLogFormatter({ color: typeof out.hasColors === 'function' ? out.hasColors() : false });
  let partial = '';
  return new Writable({
    write(chunk, _enc, cb) {
      const lines = (partial + String(chunk)).split('\n');
      partial = lines.pop() ?? '';
      const text = lines.map((l) => (l ? formatter.format(l) : '')).join('');
      if (text) out.write(text);
      cb();
    },
  });
}

/**
 * The log destination for a process: readable lines when stdout is a terminal, undefined (pino's
 * JSON on stdout) otherwise.
 */
export function terminalLogStream(stdout: NodeJS.WriteStream = process.stdout): Writable | undefined {
  return stdout.isTTY ? readableLogStream(stdout) : undefined;
}
