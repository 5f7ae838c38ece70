// The program that runs is the one the rule names. An allow rule for `ls` is written for the `ls`
// PATH lookup finds; a path-qualified name (`./ls`, `src/grep`, `~/bin/cat`, `/usr/bin/ls`) runs
// that file instead. So under an allow rule every command-name word written with a `/` (each
// stripped wrapper's and the program's, after bash's expansion) must be the same file, by real
// path, as PATH lookup of its basename; otherwise the command asks. Deny and prompt rules keep
// matching by basename. Names under /proc or /dev mean something else in the command's own process.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Segment } from '../policyContracts';
import { shown } from '../policyReasons';
import { basename } from '../analysis/shellNormalize';

export const PROGRAM_IDENTITY = {
  notOnPath: (text: string, index: number, written: string, name: string) =>
    `\`${shown(text)}\` in segment ${index} runs \`${written}\`, and PATH has no \`${name}\` to compare it with`,
  other: (text: string, index: number, written: string, name: string, found: string) =>
    `\`${shown(text)}\` in segment ${index} runs \`${written}\`, which is not the \`${name}\` PATH finds (${found})`,
  relativePath: (text: string, index: number, name: string, found: string) =>
    `\`${shown(text)}\` in segment ${index} runs \`${name}\`, which PATH finds through a relative entry (${found})`,
  procfs: (text: string, index: number, written: string) =>
    `\`${shown(text)}\` in segment ${index} runs \`${written}\`, a path that means another file in the command's own process`,
} as const;

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Bash's PATH search for a bare name (an empty entry is the cwd). */
export function lookupPath(name: string, pathVar: string, cwd: string): string | undefined {
  return lookupPathEntry(name, pathVar, cwd)?.file;
}

function lookupPathEntry(name: string, pathVar: string, cwd: string): { file: string; relative: boolean } | undefined {
  for (const dir of pathVar.split(':')) {
    const candidate = path.resolve(cwd, dir === '' ? '.' : dir, name);
    if (isExecutableFile(candidate)) return { file: candidate, relative: !dir.startsWith('/') };
  }
  return undefined;
}

/** bash's builtins (`compgen -b`): a bare name among them never goes through PATH. */
const BUILTINS: ReadonlySet<string> = new Set(
  ('. : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit ' +
    'export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return ' +
    'set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait').split(' '),
);

function real(p: string): string {
  // A missing path costs no exception (realpath's throw is the slow part); realpath fails there too.
  if (!fs.existsSync(p)) return p;
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

/**
 * Why a path-qualified command name of `seg` (expanded) is not the program its basename names on
 * PATH, or undefined when every name is a bare name or the PATH one.
 */
export function foreignProgram(seg: Segment, index: number, cwd: string, pathVar: string = process.env.PATH ?? ''): string | undefined {
  const text = seg.text || seg.source;
  // A bare name found through a relative PATH entry (`.`, an empty one) runs a file of the cwd.
  if (/(^|:)(?!\/)[^:]*(:|$)/.test(pathVar)) {
    for (const name of seg.names?.map((n) => n.text) ?? [seg.argv.at(0) ?? '']) {
      if (name === '' || name.includes('/') || BUILTINS.has(name)) continue;
      const hit = lookupPathEntry(name, pathVar, cwd);
      if (hit?.relative) return PROGRAM_IDENTITY.relativePath(text, index, name, hit.file);
    }
  }
  for (const { text: written } of seg.names ?? []) {
    if (!written.includes('/')) continue;
    const name = basename(written);
    const file = path.resolve(cwd, written);
    if (/^\/(proc|dev)(\/|$)/.test(file) || /^\/(proc|dev)(\/|$)/.test(real(file))) return PROGRAM_IDENTITY.procfs(text, index, written);
    const found = lookupPath(name, pathVar, cwd);
    if (found === undefined) return PROGRAM_IDENTITY.notOnPath(text, index, written, name);
    if (real(file) !== real(found)) return PROGRAM_IDENTITY.other(text, index, written, name, found);
  }
  return undefined;
}
