// Which redirections touch files. fd duplication (`2>&1`, `>&2`, `<&0`, `>&-`) and the harmless
// device files (read: nothing secret; written: nothing kept) touch no file; every other
// `>`-family redirection writes one.
import type { Redirect } from './policyContracts';

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

/** A redirection that names a file (to read or write); undefined target means a dynamic one. */
export function namesFile(r: Redirect): boolean {
  if (isHereText(r) || isFdDuplication(r)) return false;
  return r.target === undefined || !isHarmlessDevice(r.target);
}

/** `>`, `>>`, `&>`, `&>>`, `>|`, `<>`, `>& file`: opens a file for writing. */
export function writesFile(r: Redirect): boolean {
  return namesFile(r) && (r.op.includes('>') || r.op === '<>');
}
