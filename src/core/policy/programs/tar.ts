// `tar`: options from `tar --help` of GNU tar 1.34 on this machine (Debian 12), read with argp's
// syntax (unique prefixes of long options, clusters, `--opt=v` and `--opt v`) and the old style
// where the first word is a bundle of letters whose values follow in order (`tar xvf a.tar`). Only
// listing (`-t`), comparing (`-d`) and `--test-label` read; the other modes write, and
// `--to-command`, `-I`, `-F`, `--rsh-command`, `--rmt-command`, `--checkpoint-action` and an archive
// name `host:file` (run through rsh) run programs; `-T` reads a list of names.
import type { ArgWord } from './getopt';
import { parseArgs, PARSE_PROBLEM } from './getopt';
import { judgeBySpec, type ProgramJudgement, type ProgramModule, type ProgramExamples } from './judge';
import { defineProgram } from './spec';

export const spec = defineProgram({
  name: 'tar',
  source: 'GNU tar 1.34, `tar --help`',
  operands: 'none',
  options: [
    '-A, --catenate, --concatenate @writes',
    '-c, --create @writes',
    '--delete @writes',
    '-d, --diff, --compare',
    '-r, --append @writes',
    '--test-label',
    '-t, --list',
    '-u, --update @writes',
    '-x, --extract, --get @writes',
    '--check-device',
    '-g, --listed-incremental=FILE @writes',
    '-G, --incremental',
    '--hole-detection=TYPE',
    '--ignore-failed-read',
    '--level=NUMBER',
    '--no-check-device',
    '--no-seek',
    '-n, --seek',
    '--occurrence[=NUMBER]',
    '--sparse-version=VERSION',
    '-S, --sparse',
    '--add-file=FILE @reads',
    '-C, --directory=DIR @reads',
    '--exclude=PATTERN',
    '--exclude-backups',
    '--exclude-caches',
    '--exclude-caches-all',
    '--exclude-caches-under',
    '--exclude-ignore=FILE',
    '--exclude-ignore-recursive=FILE',
    '--exclude-tag=FILE',
    '--exclude-tag-all=FILE',
    '--exclude-tag-under=FILE',
    '--exclude-vcs',
    '--exclude-vcs-ignores',
    '--no-null',
    '--no-recursion',
    '--no-unquote',
    '--no-verbatim-files-from',
    '--null',
    '--recursion',
    '-T, --files-from=FILE @fileList',
    '--unquote',
    '--verbatim-files-from',
    '-X, --exclude-from=FILE @reads',
    '--anchored',
    '--ignore-case',
    '--no-anchored',
    '--no-ignore-case',
    '--no-wildcards',
    '--no-wildcards-match-slash',
    '--wildcards',
    '--wildcards-match-slash',
    '--keep-directory-symlink',
    '--keep-newer-files',
    '-k, --keep-old-files',
    '--no-overwrite-dir',
    '--one-top-level[=DIR]',
    '--overwrite',
    '--overwrite-dir',
    '--recursive-unlink',
    '--remove-files @writes',
    '--skip-old-files',
    '-U, --unlink-first',
    '-W, --verify',
    '--ignore-command-error',
    '--no-ignore-command-error',
    '-O, --to-stdout',
    '--to-command=COMMAND @runs',
    '--atime-preserve[=METHOD]',
    '--clamp-mtime',
    '--delay-directory-restore',
    '--group=NAME',
    '--group-map=FILE @reads',
    '--mode=CHANGES',
    '--mtime=DATE-OR-FILE @reads',
    '-m, --touch',
    '--no-delay-directory-restore',
    '--no-same-owner',
    '--no-same-permissions',
    '--numeric-owner',
    '--owner=NAME',
    '--owner-map=FILE @reads',
    '-p, --preserve-permissions, --same-permissions',
    '--same-owner',
    '--sort=ORDER',
    '-s, --preserve-order, --same-order',
    '--acls',
    '--no-acls',
    '--no-selinux',
    '--no-xattrs',
    '--selinux',
    '--xattrs',
    '--xattrs-exclude=MASK',
    '--xattrs-include=MASK',
    '--force-local',
    '-f, --file=ARCHIVE @reads',
    '-F, --info-script=NAME, --new-volume-script=NAME @runs',
    '-L, --tape-length=NUMBER',
    '-M, --multi-volume',
    '--rmt-command=COMMAND @runs',
    '--rsh-command=COMMAND @runs',
    '--volno-file=FILE @writes',
    '-b, --blocking-factor=BLOCKS',
    '-B, --read-full-records',
    '-i, --ignore-zeros',
    '--record-size=NUMBER',
    '-H, --format=FORMAT',
    '--old-archive, --portability',
    '--pax-option=KEYWORDS',
    '--posix',
    '-V, --label=TEXT',
    '-a, --auto-compress',
    '-I, --use-compress-program=PROG @runs',
    '-j, --bzip2',
    '-J, --xz',
    '--lzip',
    '--lzma',
    '--lzop',
    '--no-auto-compress',
    '--zstd',
    '-z, --gzip, --gunzip, --ungzip',
    '-Z, --compress, --uncompress',
    '--backup[=CONTROL]',
    '--hard-dereference',
    '-h, --dereference',
    '-K, --starting-file=MEMBER-NAME',
    '--newer-mtime=DATE',
    '-N, --newer=DATE-OR-FILE, --after-date=DATE-OR-FILE @reads',
    '--one-file-system',
    '-P, --absolute-names',
    '--suffix=STRING',
    '--strip-components=NUMBER',
    '--transform=EXPRESSION, --xform=EXPRESSION',
    '--checkpoint[=NUMBER]',
    '--checkpoint-action=ACTION @runs',
    '--full-time',
    '--index-file=FILE @writes',
    '-l, --check-links',
    '--no-quote-chars=STRING',
    '--quote-chars=STRING',
    '--quoting-style=STYLE',
    '-R, --block-number',
    '--show-defaults',
    '--show-omitted-dirs',
    '--show-snapshot-field-ranges',
    '--show-transformed-names, --show-stored-names',
    '--totals[=SIGNAL]',
    '--utc',
    '-v, --verbose',
    '--warning=KEYWORD',
    '-w, --interactive, --confirmation',
    '-o',
    '-?, --help',
    '--restrict',
    '--usage',
    '--version',
  ],
});

export const TAR_REASON = {
  remote: (archive: string) => `\`tar -f ${archive}\` names a remote archive, which tar opens by running rsh`,
} as const;

/** `tar xvf a.tar b` → `-x -v -f a.tar b`: the old style's letters, their values taken in order. */
function oldStyle(args: readonly ArgWord[]): ArgWord[] | { problem: string } {
  const first = args.at(0);
  if (!first || first.dynamic || !/^[A-Za-z?]+$/.test(first.text)) return [...args];
  const out: ArgWord[] = [];
  let next = 1;
  for (const letter of first.text) {
    const def = spec.shorts.get(letter);
    if (!def) return { problem: PARSE_PROBLEM.unknown('tar', `-${letter}`) };
    out.push({ text: `-${letter}`, dynamic: false });
    if (def.arg === 'required') {
      const v = args.at(next++);
      if (!v) return { problem: PARSE_PROBLEM.needsValue('tar', `-${letter}`) };
      out.push(v);
    }
  }
  return [...out, ...args.slice(next)];
}

export function judgeTar(name: string, args: readonly ArgWord[]): ProgramJudgement {
  const words = oldStyle(args);
  if ('problem' in words) return { reason: words.problem, paths: [], canonical: [] };
  const parsed = parseArgs(spec, words);
  const j = judgeBySpec(spec, name, words, parsed);
  const forceLocal = parsed.options.some((o) => o.def.canonical === '--force-local');
  for (const o of parsed.options) {
    if (o.def.canonical === '--file' && o.value !== undefined && !forceLocal && /^[^/]*:/.test(o.value)) j.reason ??= TAR_REASON.remote(o.value);
  }
  // Indexes point into the rewritten words; the old style's paths are judged by their text.
  for (const p of j.paths) p.index = Math.min(p.index, args.length - 1);
  if (words.length !== args.length) j.canonical = [words.map((w) => w.text)];
  return j;
}

/** What the policy must allow and must ask of tar (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['tar -tf archive.tar'], ask: ['tar -xf archive.tar', 'tar -cf out.tar src'] };

export const program: ProgramModule = { examples: EXAMPLES, names: ['tar'], spec, judge: judgeTar };
