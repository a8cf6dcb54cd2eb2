/**
 * Errors of the operating system (a file that exists, a permission, a port in use) as one line that
 * says what could not be done, where, and why, with the errno name to search for, never a stack:
 * `cannot open /out/x.yaml: permission denied (EACCES)`.
 */

export interface SystemError extends Error {
  readonly code: string;
  readonly syscall?: string;
  readonly path?: string;
  readonly dest?: string;
  readonly address?: string;
  readonly port?: number;
  /** What the user can do about it, added by the command that knows (`pass --images DIR`). */
  readonly hint?: string;
}

const VERB: Record<string, string> = {
  open: 'open',
  read: 'read',
  write: 'write',
  mkdir: 'create the directory',
  rmdir: 'remove the directory',
  rm: 'remove',
  unlink: 'remove',
  rename: 'rename',
  copyfile: 'copy',
  scandir: 'list the directory',
  stat: 'inspect',
  lstat: 'inspect',
  chmod: 'change the mode of',
  symlink: 'create the link',
  listen: 'listen on',
  bind: 'listen on',
  connect: 'connect to',
  spawn: 'run',
};

export function isSystemError(e: unknown): e is SystemError {
  if (!(e instanceof Error)) return false;
  const { code, syscall } = e as Partial<SystemError>;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) && typeof syscall === 'string';
}

/** `EACCES: permission denied, open '/x'` → `permission denied`. */
function description(e: SystemError): string {
  const match = new RegExp(`${e.code}:? ([^,]+)`).exec(e.message);
  return (match?.[1] ?? e.message).replace(/\s+(\S+:\d+|'[^']*')$/, '').trim();
}

function target(e: SystemError): string {
  if (e.path !== undefined) return e.dest !== undefined ? `${e.path} to ${e.dest}` : e.path;
  if (e.address !== undefined) {
    const host = e.address.includes(':') ? `[${e.address}]` : e.address;
    return e.port !== undefined ? `${host}:${e.port}` : e.address;
  }
  if (e.port !== undefined) return `port ${e.port}`;
  return '';
}

/** Node names a failed child process's syscall `spawn ctr` (the program) with `path` ctr. */
const isSpawn = (e: SystemError) => e.syscall?.startsWith('spawn') ?? false;

/** Why, without what: `permission denied (EACCES)`. */
export function systemErrorReason(e: SystemError): string {
  if (isSpawn(e) && e.code === 'ENOENT') return 'no such program on PATH (ENOENT)';
  return `${description(e)} (${e.code})`;
}

export function systemErrorLine(e: SystemError): string {
  const verb = isSpawn(e) ? 'run' : (VERB[e.syscall ?? ''] ?? e.syscall ?? 'do that');
  const where = target(e);
  const line = `cannot ${verb}${where ? ` ${where}` : ''}: ${systemErrorReason(e)}`;
  return e.hint ? `${line}; ${e.hint}` : line;
}
