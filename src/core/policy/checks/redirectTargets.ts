// Which redirections touch files. fd duplication (`2>&1`, `>&2`, `<&0`, `>&-`) and the harmless
// device files (read: nothing secret; written: nothing kept) touch no file; every other
// `>`-family redirection writes one. `/dev/stdout`, `/dev/fd/N` and their kin are opened again by
// path: they name whatever file the descriptor holds, so `echo x 1<canary >/dev/stdout` truncates
// `canary`. Writing one is harmless only when no other redirection of the command opens a file.
import type { Redirect } from '../policyContracts';

const HARMLESS_DEVICES: ReadonlySet<string> = new Set([
  '/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty',
]);

/** Here-docs and here-strings feed text, not a file. */
export function isHereText(r: Redirect): boolean {
  return r.op.startsWith('<<');
}

/** `2>&1`, `>&2`, `<&3`, `>&-`: points one descriptor at another. */
export function isFdDuplication(r: Redirect): boolean {
  if (r.op === '>&-' || r.op === '<&-') return true; // closes a descriptor
  return (r.op === '>&' || r.op === '<&') && r.target !== undefined && /^(\d+|-|\d+-)$/.test(r.target);
}

export function isHarmlessDevice(target: string): boolean {
  return HARMLESS_DEVICES.has(target) || /^\/dev\/fd\/\d+$/.test(target);
}

/** A device path that opens again whatever file one of the command's descriptors holds. */
export function reopensDescriptor(target: string): boolean {
  return /^\/dev\/(stdin|stdout|stderr|fd\/\d+)$/.test(target);
}

/** `/dev/fd/N` for a descriptor the command does not get from the runner (0, 1, 2): it may hold any file. */
function unknownDescriptor(target: string): boolean {
  const m = /^\/dev\/fd\/(\d+)$/.exec(target);
  return m !== null && Number(m[1]) > 2;
}

/** A redirection that names a file (to read or write); undefined target means a dynamic one. */
export function namesFile(r: Redirect): boolean {
  if (isHereText(r) || isFdDuplication(r)) return false;
  return r.target === undefined || !isHarmlessDevice(r.target);
}

/** `>`, `>>`, `&>`, `&>>`, `>|`, `<>`, `>& file`: opens a file for writing. */
function opensForWriting(r: Redirect): boolean {
  return r.op.includes('>') || r.op === '<>';
}

/**
 * Whether `r`, one of the command's redirections `all`, opens a file for writing. A descriptor
 * device (`/dev/stdout`, `/dev/fd/1`) is a file when another redirection of the same command opens
 * a file (it may have put that file on the descriptor: `2<canary 2>/dev/stderr`), and `/dev/fd/N`
 * above 2 always is.
 */
export function writesFile(r: Redirect, all: readonly Redirect[]): boolean {
  if (!opensForWriting(r)) return false;
  if (namesFile(r)) return true;
  if (r.target === undefined || !reopensDescriptor(r.target)) return false;
  if (isHereText(r) || isFdDuplication(r)) return false;
  return unknownDescriptor(r.target) || all.some((o) => o !== r && opensFile(o));
}

/** A redirection that may put a file on a descriptor: one naming a file, or `/dev/fd/N` above 2. */
function opensFile(r: Redirect): boolean {
  return namesFile(r) || (r.target !== undefined && !isHereText(r) && !isFdDuplication(r) && unknownDescriptor(r.target));
}
