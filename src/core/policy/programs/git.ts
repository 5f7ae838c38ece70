// `git` read forms: the subcommands `status`, `log`, `show`, `diff`, `branch` (listing), `rev-parse`,
// `ls-files`, `blame` and `remote` (listing), with the options of git 2.39.5's git-log(1), git-diff(1),
// git-status(1), git-branch(1), git-rev-parse(1), git-ls-files(1), git-blame(1) on this machine
// (Debian 12) that only choose what is shown. git's revision and diff options take no
// abbreviations, so the specs match exact spellings; anything else asks, naming it. Writers and
// runners are listed so they are recognised: `--output` writes, `--ext-diff` runs the configured
// diff program, `--show-signature` and the `%G…` placeholders of a pretty format run gpg. git's
// global options were read before this (`-C`, `-c` in shellNormalize.ts). Other subcommands keep
// the older option table below (gitOptionReason).
import type { ArgWord } from './getopt';
import type { Word } from '../analysis/shellWord';
import { longName, RISKY_OPTION } from './optionWords';
import { parseArgs } from './getopt';
import { judgeBySpec, SPEC_REASON, type ProgramJudgement, type ProgramModule, type ProgramExamples } from './judge';
import { defineProgram, type ProgramSpec } from './spec';

const SOURCE = 'git 2.39.5, git-log(1), git-diff(1) and the subcommands\' manuals';

const DIFF = [
  '-p, -u, --patch', '-s, --no-patch', '-U[N], --unified[=N]', '--output=FILE @writes', '--output-indicator-new=C',
  '--output-indicator-old=C', '--output-indicator-context=C', '--raw', '--patch-with-raw', '--indent-heuristic',
  '--no-indent-heuristic', '--minimal', '--patience', '--histogram', '--anchored=TEXT', '--diff-algorithm=ALG',
  '--stat[=SPEC]', '--stat-width=N', '--stat-name-width=N', '--stat-graph-width=N', '--stat-count=N',
  '--compact-summary', '--numstat', '--shortstat', '-X[PARAM], --dirstat[=PARAM]', '--cumulative',
  '--dirstat-by-file[=PARAM]', '--summary', '--patch-with-stat', '-z', '--name-only', '--name-status',
  '--submodule[=FORMAT]', '--color[=WHEN]', '--no-color', '--color-moved[=MODE]', '--no-color-moved',
  '--color-moved-ws=MODES', '--no-color-moved-ws', '--word-diff[=MODE]', '--word-diff-regex=REGEX',
  '--color-words[=REGEX]', '--no-renames', '--rename-empty', '--no-rename-empty', '--check', '--ws-error-highlight=KIND',
  '--full-index', '--binary', '--abbrev[=N]', '--no-abbrev', '-B[N], --break-rewrites[=N]', '-M[N], --find-renames[=N]',
  '-C[N], --find-copies[=N]', '--find-copies-harder', '-D, --irreversible-delete', '-l[N]', '--diff-filter=FILTER',
  '-S STRING', '-G REGEX', '--find-object=ID', '--pickaxe-all', '--pickaxe-regex', '-O[FILE] @reads', '--skip-to=FILE',
  '--rotate-to=FILE', '-R', '--relative[=PATH]', '--no-relative', '-a, --text', '--ignore-cr-at-eol',
  '--ignore-space-at-eol', '-b, --ignore-space-change', '-w, --ignore-all-space', '--ignore-blank-lines',
  '-I, --ignore-matching-lines=REGEX', '--inter-hunk-context=N', '-W, --function-context', '--exit-code', '--quiet',
  '--ext-diff @runs', '--no-ext-diff', '--textconv', '--no-textconv', '--ignore-submodules[=WHEN]', '--src-prefix=P',
  '--dst-prefix=P', '--no-prefix', '--line-prefix=P', '--ita-invisible-in-index', '--ita-visible-in-index',
];

const LOG = [
  '--follow', '--no-decorate', '--decorate[=STYLE]', '--decorate-refs=P', '--decorate-refs-exclude=P',
  '--clear-decorations', '--source', '--mailmap', '--no-mailmap', '--use-mailmap', '--no-use-mailmap', '--full-diff',
  '--log-size', '-L RANGE', '-n, --max-count=N', '--skip=N', '--since=DATE', '--after=DATE', '--until=DATE',
  '--before=DATE', '--since-as-filter=DATE', '--author=P', '--committer=P', '--grep-reflog=P', '--grep=P',
  '--all-match', '--invert-grep', '-i, --regexp-ignore-case', '--basic-regexp', '-E, --extended-regexp',
  '-F, --fixed-strings', '-P, --perl-regexp', '--remove-empty', '--merges', '--no-merges', '--min-parents=N (attached)',
  '--max-parents=N (attached)', '--no-min-parents', '--no-max-parents', '--first-parent', '--exclude-first-parent-only', '--not',
  '--all', '--branches[=P]', '--tags[=P]', '--remotes[=P]', '--glob=P', '--exclude=P', '--reflog', '--alternate-refs',
  '--single-worktree', '--ignore-missing', '--bisect', '--cherry-mark', '--cherry-pick', '--left-only', '--right-only',
  '--cherry', '-g, --walk-reflogs', '--merge', '--boundary', '--simplify-by-decoration', '--show-pulls',
  '--full-history', '--dense', '--sparse', '--simplify-merges', '--ancestry-path[=COMMIT]', '--date-order',
  '--author-date-order', '--topo-order', '--reverse', '--no-walk[=HOW]', '--do-walk', '--pretty[=FORMAT]',
  '--format=FORMAT (attached)', '--abbrev-commit', '--no-abbrev-commit', '--oneline', '--encoding=E', '--expand-tabs[=N]',
  '--no-expand-tabs', '--notes[=REF]', '--no-notes', '--show-notes[=REF]', '--show-signature @runs', '--relative-date',
  '--date=FORMAT', '--parents', '--children', '--left-right', '--graph', '--show-linear-break[=BARRIER]', '-c', '--cc',
  '--remerge-diff', '--no-diff-merges', '--diff-merges=FORMAT', '--combined-all-paths', '-m', '-r', '-t',
  '--root', '-q',
];

function gitSpec(sub: string, options: readonly string[]): ProgramSpec {
  return defineProgram({ name: `git ${sub}`, source: SOURCE, prefixes: false, numeric: true, operands: 'reads', options });
}

export const SPECS: Readonly<Record<string, ProgramSpec>> = {
  log: gitSpec('log', [...DIFF, ...LOG]),
  show: gitSpec('show', [...DIFF, ...LOG]),
  diff: gitSpec('diff', [...DIFF, '--cached', '--staged', '--merge-base', '--no-index', '-0', '-1, --base', '-2, --ours', '-3, --theirs']),
  status: gitSpec('status', [
    '-s, --short', '-b, --branch', '--show-stash', '--porcelain[=VERSION]', '--long', '-v, --verbose',
    '-u[MODE], --untracked-files[=MODE]', '--ignore-submodules[=WHEN]', '--ignored[=MODE]', '-z', '--column[=OPTIONS]',
    '--no-column', '--ahead-behind', '--no-ahead-behind', '--renames', '--no-renames', '-M[N], --find-renames[=N]',
  ]),
  branch: gitSpec('branch', [
    '-l, --list', '-a, --all', '-r, --remotes', '-v, --verbose', '-q, --quiet', '--show-current', '--abbrev=N',
    '--no-abbrev', '--color[=WHEN]', '--no-color', '-i, --ignore-case', '--column[=OPTIONS]', '--no-column',
    // git takes the next word as these options' commit when there is one: listing either way.
    '--sort=KEY', '--contains[=COMMIT]', '--no-contains[=COMMIT]', '--merged[=COMMIT]', '--no-merged[=COMMIT]',
    '--points-at=OBJECT', '--format=FORMAT',
    // Changing forms: recognised so they are named, never approved.
    '-d, --delete @ask', '-D @ask', '-m, --move @ask', '-M @ask', '-c, --copy @ask', '-C @ask', '-f, --force @ask',
    '-t, --track[=HOW] @ask', '--no-track @ask', '-u, --set-upstream-to=UPSTREAM @ask', '--unset-upstream @ask',
    '--edit-description @ask', '--create-reflog @ask', '--recurse-submodules @ask',
  ]),
  'rev-parse': gitSpec('rev-parse', [
    '--parseopt', '--sq-quote', '--keep-dashdash', '--stop-at-non-option', '--stuck-long', '--revs-only', '--no-revs',
    '--flags', '--no-flags', '--default=ARG', '--prefix=ARG', '--verify', '-q, --quiet', '--sq', '--short[=N]', '--not',
    '--abbrev-ref[=MODE]', '--symbolic', '--symbolic-full-name', '--all', '--branches[=P]', '--tags[=P]',
    '--remotes[=P]', '--glob=P', '--exclude=P', '--disambiguate=PREFIX', '--local-env-vars', '--path-format=FMT',
    '--git-dir', '--git-common-dir', '--resolve-git-dir=PATH', '--git-path=PATH', '--show-toplevel',
    '--show-superproject-working-tree', '--shared-index-path', '--absolute-git-dir', '--is-inside-git-dir',
    '--is-inside-work-tree', '--is-bare-repository', '--is-shallow-repository', '--show-cdup', '--show-prefix',
    '--show-object-format[=WHICH]', '--since=DATE', '--after=DATE', '--until=DATE', '--before=DATE',
  ]),
  'ls-files': gitSpec('ls-files', [
    '-c, --cached', '-d, --deleted', '-m, --modified', '-o, --others', '-i, --ignored', '-s, --stage', '-u, --unmerged',
    '-k, --killed', '--directory', '--no-empty-directory', '--eol', '--deduplicate', '-x, --exclude=PATTERN',
    '-X, --exclude-from=FILE @reads', '--exclude-per-directory=FILE @ask', '--exclude-standard', '--error-unmatch',
    '--with-tree=TREE', '-t', '-v', '-f', '--full-name', '--recurse-submodules', '--abbrev[=N]', '--debug', '--sparse',
    '--format=FORMAT', '-z',
  ]),
  blame: gitSpec('blame', [
    '-b', '--root', '--show-stats', '-L RANGE', '-l', '-t', '-S REVS_FILE @reads', '--reverse', '--first-parent',
    '-p, --porcelain', '--line-porcelain', '--incremental', '--encoding=E', '--contents=FILE @reads', '--date=FORMAT',
    '--progress', '--no-progress', '-M[NUM]', '-C[NUM]', '--ignore-rev=REV', '--ignore-revs-file=FILE @reads',
    '--color-lines', '--color-by-age', '-h', '-c', '--score-debug', '-f, --show-name', '-n, --show-number', '-s',
    '-e, --show-email', '-w', '--abbrev=N', '--minimal', '--since=DATE',
  ]),
  remote: gitSpec('remote', ['-v, --verbose']),
};

const BRANCH_LISTING: ReadonlySet<string> = new Set(['--list', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--verbose']);

/**
 * True when a pretty format has a placeholder that verifies a signature (`%G?`, `%GS`, `%GK`, …,
 * with a `+`, `-` or space modifier): git runs gpg for each signed commit, as `--show-signature`
 * does (pretty.c). `%%` is a literal percent sign.
 */
export function formatVerifiesSignatures(format: string): boolean {
  return /%[-+ ]?G/.test(format.replace(/%%/g, ''));
}

export const GIT_REASON = {
  signatures: (option: string) => `\`${option}\` has a signature placeholder (\`%G…\`): git runs gpg to verify each signed commit`,

  branchCreates: () => '`git branch NAME` creates a branch (only `git branch --list PATTERN` reads)',
  remoteChanges: (sub: string) => `\`git remote ${sub}\` is not a listing form`,
} as const;

/** The git read form's judgement, or undefined for a subcommand without a spec. */
export function judgeGit(args: readonly ArgWord[]): ProgramJudgement | undefined {
  const sub = args[0] as ArgWord | undefined;
  if (!sub || sub.dynamic || !Object.hasOwn(SPECS, sub.text)) return undefined;
  const spec = SPECS[sub.text];
  const rest = args.slice(1);
  const parsed = parseArgs(spec, rest);
  const j = judgeBySpec(spec, `git ${sub.text}`, rest, parsed);
  // Indexes are into the args after the subcommand: shift them to the program's args.
  for (const p of j.paths) p.index += 1;
  j.canonical = j.canonical.map((c) => [sub.text, ...c]);
  // builtin/branch.c lists (operands are patterns) with `--list` or any filter or `-v`; else it creates.
  if (sub.text === 'branch' && parsed.operands.length > 0 && !parsed.options.some((o) => BRANCH_LISTING.has(o.def.canonical))) {
    j.reason ??= GIT_REASON.branchCreates();
  }
  if (sub.text === 'log' || sub.text === 'show') {
    const format = parsed.options.find((o) => (o.def.canonical === '--format' || o.def.canonical === '--pretty') && (o.valueDynamic === true || formatVerifiesSignatures(o.value ?? '')));
    if (format) j.reason ??= GIT_REASON.signatures(`${format.written}=${format.value ?? ''}`);
  }
  if (sub.text === 'branch' || sub.text === 'rev-parse' || sub.text === 'remote') {
    // Patterns and revisions, not paths: an unquoted expansion among them is not checked as one.
    const split = parsed.operands.find((o) => o.splits === true);
    if (split) j.reason ??= SPEC_REASON.splits(`git ${sub.text}`, split.text);
  }
  if (sub.text === 'branch' || sub.text === 'rev-parse') j.paths = []; // patterns and revisions, not paths
  if (sub.text === 'remote') {
    if (parsed.operands.length > 0) j.reason ??= GIT_REASON.remoteChanges(parsed.operands[0].text);
    j.paths = [];
  }
  return j;
}

/** What the policy must allow and must ask of git (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['git status', 'git log -3', 'git diff'], ask: ['git -c core.pager=x log', 'git --bare log', 'git diff --output=../x'] };

export const program: ProgramModule = {
  examples: EXAMPLES,
  names: ['git'],
  judge: (_name, args) => judgeGit(args),
};

const GIT_RUNNERS = /^--(?:upload-pack|receive-pack|exec|exec-path|ext-diff|open-files-in-pager|config-env|extcmd|tool|ssh)$/;
const GIT_WRITERS = /^--(?:output|output-directory)$/;

/**
 * The older option table for git's forms without a spec (`git push --receive-pack=…`): why its options
 * make it a writer or a runner, or undefined.
 */
export function gitOptionReason(args: readonly Word[]): string | undefined {
  for (const w of args) {
    const t = w.text;
    if (t === '--') break;
    const name = longName(t);
    if (GIT_WRITERS.test(name)) return RISKY_OPTION.writes('git', name);
    if (GIT_RUNNERS.test(name)) return RISKY_OPTION.runs('git', name);
    if (t === '-O' || /^-O./.test(t)) return RISKY_OPTION.runs('git', '-O');
    if (t === '-o' && args.some((a) => a.text === 'archive' || a.text === 'format-patch')) return RISKY_OPTION.writes('git', '-o');
  }
  return undefined;
}
