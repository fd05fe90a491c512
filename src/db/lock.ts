// One process per embedded database: a lock file in DATA_DIR naming the process that holds it.
//
// PGlite is a single-process PostgreSQL: two processes opening the same data directory each see
// their own copy of it in memory and overwrite each other's files (an operator created by the CLI
// while the server ran was gone after a restart). The lock is a file created exclusively ('wx')
// holding the owner's pid and start time; it is removed on close and on exit. A kill -9 leaves it
// behind: a lock whose process is gone (or whose pid now belongs to another process, told apart by
// the start time on Linux) is stale and taken over. PostgreSQL (DATABASE_URL) takes no lock.
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { ConfigError } from '../config.ts';

export const LOCK_FILE = 'cofre.lock';

/** The data directory is held by another live process (a ConfigError: printed without a stack). */
export class DataDirLockedError extends ConfigError {
  readonly pid: number;
  readonly dataDir: string;
  constructor(dataDir: string, pid: number) {
    const shown = displayPath(dataDir);
    super(
      `Cofre is already running on ${shown} (pid ${pid}): the embedded database can be used by one process at a time.\n` +
        `Stop that process first (Ctrl+C in its terminal, or kill ${pid}), then run this command again.\n` +
        `To run several processes at once, use PostgreSQL (DATABASE_URL); for a separate database, another DATA_DIR.`,
    );
    this.pid = pid;
    this.dataDir = dataDir;
  }
}

interface Owner {
  pid: number;
  /** Process start time in clock ticks since boot (/proc/<pid>/stat field 22); null where unknown. */
  start: string | null;
}

/** './data' rather than an absolute path when the directory is under the working directory. */
function displayPath(dir: string): string {
  const rel = relative(process.cwd(), dir);
  if (!rel) return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? dir : `./${rel}`;
}

function startTime(pid: number): string | null {
  try {
    // Field 2 (comm) is in parentheses and may hold spaces: count fields after its closing one.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function parse(text: string): Owner | null {
  try {
    const o = JSON.parse(text) as Partial<Owner>;
    return Number.isSafeInteger(o.pid) && (o.pid as number) > 0 ? { pid: o.pid as number, start: typeof o.start === 'string' ? o.start : null } : null;
  } catch {
    return null; // a torn or foreign file: nobody can be holding it
  }
}

/** Whether the process that wrote the lock is still the one running under its pid. */
function alive(owner: Owner): boolean {
  if (owner.pid === process.pid) return false; // a lock left by an earlier process that had our pid (containers: pid 1)
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false; // ESRCH: gone
  }
  const now = owner.start === null ? null : startTime(owner.pid);
  return now === null || now === owner.start; // a different start time: the pid was reused
}

/** The live process holding `dataDir`, if any (read only: for a message before anything opens it). */
export function lockHolder(dataDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(join(dataDir, LOCK_FILE), 'utf8');
  } catch {
    return null;
  }
  const owner = parse(text);
  return owner && alive(owner) ? owner.pid : null;
}

/** Throws DataDirLockedError when another live process holds `dataDir`. */
export function assertUnlocked(dataDir: string): void {
  const pid = lockHolder(dataDir);
  if (pid !== null) throw new DataDirLockedError(dataDir, pid);
}

/**
 * Takes the lock of `dataDir` (which must exist) or throws DataDirLockedError. Returns the release
 * function; the lock is also released if the process exits without calling it.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  const mine = JSON.stringify({ pid: process.pid, start: startTime(process.pid) });
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      writeFileSync(path, mine, { flag: 'wx', mode: 0o644 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        continue; // released meanwhile
      }
      const owner = parse(text);
      if (owner && alive(owner)) throw new DataDirLockedError(dataDir, owner.pid);
      removeStale(path, text);
      continue;
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      process.off('exit', release);
      try {
        if (readFileSync(path, 'utf8') === mine) unlinkSync(path);
      } catch {
        // already gone
      }
    };
    process.on('exit', release);
    return release;
  }
  throw new Error(`could not take the lock ${path}: it keeps changing (several processes starting at once?)`);
}

/**
 * Removes a stale lock without removing one another process has just written in its place: the
 * file is moved aside (atomic), and if what was moved is not the stale text seen before, it is
 * linked back (link never overwrites) and this process goes round again.
 */
function removeStale(path: string, staleText: string): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // already moved or removed by another process
  }
  try {
    if (readFileSync(aside, 'utf8') !== staleText) {
      try {
        linkSync(aside, path);
      } catch {
        // a third process took it meanwhile; its own check decides
      }
    }
  } finally {
    unlinkSync(aside);
  }
}
