// Normalisation of one simple command's words, independent of the parser: argv0 basename,
// prefix-wrapper stripping (`sudo`, `env`, `timeout 5`, …), and classification of commands that
// run code the analysis cannot see (opaque) or whose code we can re-parse (`bash -c`, `eval`, `trap`).
// Keeping this parser-free lets the rules be read and tested as plain tables.
import { programOptionReason } from '../programs/optionVerdict';
import { taskRunnerReason } from '../programs/taskRunners';
import { WRAPPERS, type WrapperSpec } from '../programs/wrappers';
import { INTERPRETERS, RUNNERS, SHELLS } from '../programs/runners';
import { assignedName, isSensitiveVariable } from './sensitiveVariables';
import type { Word } from './shellWord';

export type { Word } from './shellWord';

/** Code carried as text that we re-parse as nested commands. */
export interface Payload {
  kind: 'shell -c' | 'eval' | 'trap' | 'stdin';
  text: string;
}

export interface NormalizedCommand {
  argv: string[];
  /** Index-aligned with argv: true when that word was not static. */
  argvDynamic: boolean[];
  /** The words stripped in front of argv (`sudo -u x`, `env A=1`, `timeout 5`). */
  prefix: string[];
  /** `NAME=value` words found inside an `env` wrapper. */
  wrapperAssignments: string[];
  /** Set when the command runs code the analysis cannot see. */
  opaqueReason?: string;
  /** Code to re-parse (static payloads only). */
  payload?: Payload;
  /** A shell or interpreter that reads its program from stdin: a here-doc/here-string may supply it. */
  readsProgramFromStdin?: 'shell' | 'interpreter';
  /**
   * A wrapper that changes who, where or how the program runs (`sudo`, `chroot`, `flock`, `env -C`,
   * …) was stripped: an allow rule must name it.
   */
  privileged: boolean;
  /** Option values that name directories the program works in (`git -C DIR`, `--git-dir=DIR`). */
  optionPaths: string[];
  /** The words argv was made of (index-aligned), and the command-name words (wrappers', then the program's). */
  argvWords?: Word[];
  heads?: Word[];
}

/** Messages that name why a segment is opaque. Tests assert these. */
export const OPAQUE = {
  wrapperOption: (wrapper: string, option: string) => `\`${wrapper}\` option \`${option}\` is not modelled`,
  dynamicWrapperWord: (wrapper: string) => `\`${wrapper}\` has an argument that cannot be read statically`,
  runner: (name: string) => `\`${name}\` runs a command built at run time`,
  findExec: (name: string, option: string) => `\`${name} ${option}\` runs a command for each match`,
  interpreterCode: (name: string, flag: string) => `\`${name} ${flag}\` runs inline code`,
  programFromStdin: (name: string) => `\`${name}\` reads its program from standard input`,
  scriptFile: (name: string) => `\`${name}\` runs a script file`,
  dynamicPayload: (name: string) => `\`${name}\` runs text that cannot be read statically`,
  awkCommand: (name: string) => `\`${name}\` program runs shell commands`,
  gitConfig: () => '`git -c` can name a program for git to run',
  gitRepository: (option: string) => `\`git ${option}\` picks a repository whose configuration can name programs for git to run`,
  programOption: (name: string, option: string) => `\`${name} ${option}\` names a program to run`,
  codeLoadingVar: (name: string) => `setting \`${name}\` can make programs load other code`,
  definesCode: (name: string) => `\`${name}\` defines code that runs later`,
  replacesShell: () => '`exec` replaces the shell, so later commands of this session would run elsewhere or with other descriptors',
  envUnset: (option: string) =>
    `\`env ${option}\` removes variables Agent Bash sets for every command (such as GIT_OPTIONAL_LOCKS, npm_config_logs_max), so a read may write`,
  arithmetic: (name: string) => `\`${name}\` evaluates a variable name or subscript as arithmetic, which can run code`,
} as const;

export function isCodeLoadingAssignment(assignment: string): string | undefined {
  const name = assignedName(assignment);
  return name !== undefined && isSensitiveVariable(name) ? name : undefined;
}

export function basename(word: string): string {
  if (!word.includes('/')) return word;
  const trimmed = word.replace(/\/+$/, '');
  const cut = trimmed.lastIndexOf('/');
  return cut < 0 ? trimmed : trimmed.slice(cut + 1);
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** `-`, `-i`, `-u NAME` (alone or in a cluster), `--unset`, `--ignore-environment` and their prefixes. */
function unsetsEnvironment(t: string): boolean {
  if (t === '-') return true;
  if (t.startsWith('--')) {
    const long = t.slice(2).split('=')[0];
    return long !== '' && ('unset'.startsWith(long) || 'ignore-environment'.startsWith(long));
  }
  return /^-[^-]*[iu]/.test(t);
}

type OptionOutcome = { next: number; named: boolean } | { stop: 'notWrapper' } | { opaque: string };

/** Consumes a wrapper's options starting at `i` (the first word after the wrapper's name). */
function skipWrapperOptions(name: string, spec: WrapperSpec, words: Word[], i: number, assignments: string[]): OptionOutcome {
  let named = false;
  while (i < words.length) {
    const w = words[i];
    if (w.dynamic) return { opaque: OPAQUE.dynamicWrapperWord(name) };
    const t = w.text;
    if (t === '--') return { next: i + 1, named };
    if (name === 'env' && t === '-') {
      i++;
      continue;
    }
    if (!t.startsWith('-') || t === '-') break;
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const opt = eq < 0 ? t.slice(2) : t.slice(2, eq);
      if (spec.longOpaque?.includes(opt)) return { opaque: OPAQUE.wrapperOption(name, t) };
      if (spec.longNamed?.includes(opt)) named = true;
      if (spec.long?.includes(opt)) i += 1;
      else if (spec.longArg?.includes(opt)) i += eq < 0 ? 2 : 1;
      else return { opaque: OPAQUE.wrapperOption(name, t) };
      continue;
    }
    if (spec.numericFlag && /^-\d+$/.test(t)) {
      i++;
      continue;
    }
    let consumed = 1;
    for (let k = 1; k < t.length; k++) {
      const c = t[k];
      if (spec.notWrapper?.includes(c)) return { stop: 'notWrapper' };
      if (spec.opaque?.includes(c)) return { opaque: OPAQUE.wrapperOption(name, `-${c}`) };
      if (spec.named?.includes(c)) named = true;
      if (spec.flags.includes(c)) continue;
      if (spec.argFlags.includes(c)) {
        if (k === t.length - 1) consumed = 2;
        break;
      }
      return { opaque: OPAQUE.wrapperOption(name, t) };
    }
    i += consumed;
  }
  if (spec.assignments) {
    while (i < words.length && !words[i].dynamic && ASSIGNMENT.test(words[i].text)) assignments.push(words[i++].text);
  }
  if (spec.positional) {
    for (let p = 0; p < spec.positional; p++) {
      if (i >= words.length) return { stop: 'notWrapper' };
      if (words[i].dynamic) return { opaque: OPAQUE.dynamicWrapperWord(name) };
      i++;
    }
  }
  return { next: i, named };
}

/** git's global options (before the subcommand): flags, and options that take a value. */
const GIT_GLOBAL_FLAGS: ReadonlySet<string> = new Set([
  '-P', '-p', '--paginate', '--no-pager', '--bare', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs',
  '--icase-pathspecs', '--no-replace-objects', '--no-optional-locks', '--no-lazy-fetch', '--no-advice', '--html-path',
  '--man-path', '--info-path', '--exec-path',
]);
const GIT_GLOBAL_VALUES: ReadonlySet<string> = new Set([
  '-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--attr-source', '--list-cmds',
]);
/** Global options that pick the repository (and so the config git reads) or the refs it sees. */
const GIT_REPOSITORY_OPTIONS: ReadonlySet<string> = new Set(['--git-dir', '--work-tree', '--bare', '--namespace', '--super-prefix']);
/** Global options whose value is a directory git works in. */
const GIT_PATH_OPTIONS: ReadonlySet<string> = new Set(['-C', '--git-dir', '--work-tree']);

/**
 * Reads git's global options so `git -C . push` is matched as `git push`. `-c`, `--config-env` and
 * `--exec-path=DIR` can make git run any program: the segment stays opaque whatever the rules say.
 */
function stripGitGlobals(words: Word[]): { next: number; paths: string[]; opaqueReason?: string } {
  const paths: string[] = [];
  let opaqueReason: string | undefined;
  let i = 1;
  while (i < words.length) {
    const w = words[i];
    const t = w.text;
    if (!t.startsWith('-') || t === '-' || t === '--') break;
    if (w.dynamic) {
      opaqueReason ??= OPAQUE.dynamicWrapperWord('git');
      i++;
      continue;
    }
    const eq = t.indexOf('=');
    const name = t.startsWith('--') && eq > 0 ? t.slice(0, eq) : t;
    if (name === '-c' || name === '--config-env' || /^-c./.test(t)) opaqueReason ??= OPAQUE.gitConfig();
    if (name === '--exec-path' && eq > 0) opaqueReason ??= OPAQUE.programOption('git', '--exec-path');
    // The repository's own config may name a diff driver, a filter or textconv that `git diff` and
    // `git status` run: a repository other than the one found from the cwd (gitRepository.ts) asks.
    // `--bare` makes the working directory the git directory: a shipped `config` there is read.
    if (GIT_REPOSITORY_OPTIONS.has(name)) opaqueReason ??= OPAQUE.gitRepository(name);
    if (GIT_GLOBAL_FLAGS.has(name)) {
      i++;
    } else if (GIT_GLOBAL_VALUES.has(name)) {
      const value = eq > 0 && name.startsWith('--') ? t.slice(eq + 1) : words[i + 1]?.text;
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `git --git-dir` as the last word: words[i + 1] is past the end
      if (GIT_PATH_OPTIONS.has(name) && value !== undefined) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- words[i + 1] may be past the end (see above)
        if ((eq > 0 ? w : words[i + 1])?.dynamic) opaqueReason ??= OPAQUE.dynamicWrapperWord('git');
        paths.push(value);
      }
      i += eq > 0 && name.startsWith('--') ? 1 : 2;
    } else if (/^-C./.test(t)) {
      paths.push(t.slice(2));
      i++;
    } else if (/^-c./.test(t)) {
      i++;
    } else {
      opaqueReason ??= OPAQUE.wrapperOption('git', t);
      i++;
    }
  }
  return opaqueReason === undefined ? { next: i, paths } : { next: i, paths, opaqueReason };
}

/** Strips prefix wrappers and classifies the command. `words[0]` is the command name as written. */
export function normalizeWords(words: Word[]): NormalizedCommand {
  const out: NormalizedCommand = { argv: [], argvDynamic: [], prefix: [], wrapperAssignments: [], privileged: false, optionPaths: [] };
  let start = 0;
  let envUnset: string | undefined;
  // Each pass strips one wrapper; the bound only guards against pathological input.
  for (let pass = 0; pass < 32 && start < words.length; pass++) {
    const head = words[start];
    if (head.dynamic || head.expandable) break;
    const name = basename(head.text);
    // Own keys only: `toString` or `constructor` must not find Object.prototype's members.
    const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
    if (!spec) break;
    const assignments: string[] = [];
    const r = skipWrapperOptions(name, spec, words, start + 1, assignments);
    if ('stop' in r) break;
    if ('opaque' in r) {
      out.opaqueReason = r.opaque;
      break;
    }
    // A wrapper with nothing after it (`time`, `sudo -v`) is itself the command.
    if (r.next >= words.length) break;
    if (spec.privileged || r.named) out.privileged = true;
    // `env -u NAME`, `env -i`, `env -`: the settings every command is given (GIT_OPTIONAL_LOCKS, …) go.
    const unset = name === 'env' ? words.slice(start + 1, r.next).find((w) => unsetsEnvironment(w.text)) : undefined;
    if (unset !== undefined) envUnset ??= OPAQUE.envUnset(unset.text);
    for (let k = start; k < r.next; k++) out.prefix.push(words[k].text);
    (out.heads ??= []).push(head);
    out.wrapperAssignments.push(...assignments);
    start = r.next;
  }
  let rest = words.slice(start);
  if (rest.length > 0 && !rest[0].dynamic && !rest[0].expandable && basename(rest[0].text) === 'git') {
    const git = stripGitGlobals(rest);
    if (git.opaqueReason) out.opaqueReason = git.opaqueReason;
    out.optionPaths.push(...git.paths);
    rest = [rest[0], ...rest.slice(git.next)];
  }
  out.argv = rest.map((w, k) => (k === 0 && !w.dynamic && !w.expandable ? basename(w.text) : w.text));
  out.argvDynamic = rest.map((w) => w.dynamic);
  out.argvWords = rest;
  if (rest.length > 0) (out.heads ??= []).push(rest[0]);
  if (out.opaqueReason === undefined) classify(rest, out);
  // After the classification, so a payload (`env -i bash -c '…'`) is still read for deny rules.
  if (envUnset !== undefined) out.opaqueReason ??= envUnset;
  // `exec` replaces the persistent shell (or, with redirections only, rewires it for every later
  // call): whatever follows, the caller's next line would run elsewhere than it should.
  if ([...(out.heads ?? []), ...rest.slice(0, 1)].some((w) => !w.dynamic && basename(w.text) === 'exec')) out.opaqueReason ??= OPAQUE.replacesShell();
  return out;
}

/** Index of the first word that is not an option, starting at `from`; options listed in `withArg` skip their value. */
function firstOperand(words: Word[], from: number, withArg: ReadonlySet<string>): number {
  let i = from;
  while (i < words.length) {
    const t = words[i].text;
    if (t === '--') return i + 1;
    if (!t.startsWith('-') && !t.startsWith('+')) return i;
    if (withArg.has(t)) i++;
    i++;
  }
  return i;
}

const SHELL_OPTS_WITH_ARG: ReadonlySet<string> = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);

function classifyShell(name: string, words: Word[], out: NormalizedCommand): void {
  let i = 1;
  let inline = false;
  while (i < words.length) {
    const w = words[i];
    if (w.dynamic) {
      out.opaqueReason = OPAQUE.dynamicPayload(name);
      return;
    }
    const t = w.text;
    if (t === '--' || t === '-') {
      i++;
      break;
    }
    if (SHELL_OPTS_WITH_ARG.has(t)) {
      i += 2;
      continue;
    }
    if (t.startsWith('--')) {
      if (t === '--command') inline = true;
      i++;
      continue;
    }
    if ((t.startsWith('-') || t.startsWith('+')) && t.length > 1) {
      if (t.slice(1).includes('c')) inline = true;
      i++;
      continue;
    }
    break;
  }
  if (inline) {
    const payload = words.at(i);
    if (!payload) out.opaqueReason = OPAQUE.dynamicPayload(name);
    else if (payload.dynamic) out.opaqueReason = OPAQUE.dynamicPayload(name);
    else out.payload = { kind: 'shell -c', text: payload.text };
    return;
  }
  if (i < words.length) out.opaqueReason = OPAQUE.scriptFile(name);
  else out.readsProgramFromStdin = 'shell';
}

function codeFlagIn(word: string, codeFlags: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  for (const f of codeFlags) {
    if (lower === f || lower.startsWith(`${f}=`)) return f;
    if (/^-[a-z]$/.test(f)) {
      // `-cprint(1)` (value attached) and clusters such as `perl -ne` or `python -Sc`.
      if (lower.startsWith(f) && !lower.startsWith('--')) return f;
      if (/^-[a-z]+$/.test(lower) && lower.includes(f[1])) return f;
    }
  }
  return undefined;
}

function classifyInterpreter(name: string, codeFlags: readonly string[], words: Word[], out: NormalizedCommand, infoFlags: readonly string[] = []): void {
  if (words.length > 1 && words.slice(1).every((w) => !w.dynamic && infoFlags.includes(w.text))) return;
  for (let i = 1; i < words.length; i++) {
    const t = words[i].text;
    if (t === '--') break;
    const flag = codeFlagIn(t, codeFlags);
    if (flag) {
      out.opaqueReason = OPAQUE.interpreterCode(name, flag);
      return;
    }
    if (t === '-') break;
    if (!t.startsWith('-')) return; // a script, a module name or an option value: visible to the user
  }
  out.readsProgramFromStdin = 'interpreter';
}

/** Builtins that take variable names: a name with a subscript (`a[$(cmd)]`) is evaluated as arithmetic. */
const NAME_TAKING: ReadonlySet<string> = new Set([
  'read', 'mapfile', 'readarray', 'getopts', 'wait', 'printf', 'test', '[', 'unset', 'declare', 'typeset', 'local',
  'export', 'readonly', 'let', 'shopt',
]);

const DECLARES: ReadonlySet<string> = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

function variableNameRisk(name: string, args: readonly Word[]): string | undefined {
  if (!NAME_TAKING.has(name)) return undefined;
  if (name === 'let') return OPAQUE.arithmetic(name);
  // `printf` and `test` only take a name after `-v` (`test -R` too); elsewhere their words are text.
  const namesFollow = name === 'printf' || name === 'test' || name === '[' ? args.some((w) => w.text === '-v' || w.text === '-R') : true;
  if (!namesFollow) return undefined;
  // In `export A=$x` only the name matters; a dynamic or subscripted name is the risk.
  const nameOf = (t: string): string => (DECLARES.has(name) && t.includes('=') ? t.slice(0, t.indexOf('=')) : t);
  return args.some((w) => nameOf(w.text).includes('[') || (w.dynamic && /[$`]/.test(nameOf(w.text)))) ? OPAQUE.arithmetic(name) : undefined;
}

const AWK = /^(awk|gawk|mawk|nawk|busybox-awk)$/;
const AWK_RUNS_COMMANDS = /system\s*\(|\|\s*getline|\|&|print[^;}]*\|\s*["'a-zA-Z_]/;

function classify(words: Word[], out: NormalizedCommand): void {
  if (words.length === 0 || words[0].dynamic || words[0].expandable) return;
  const name = out.argv[0];
  const args = words.slice(1);
  if (RUNNERS.has(name)) {
    out.opaqueReason = OPAQUE.runner(name);
    return;
  }
  const subscript = variableNameRisk(name, args);
  if (subscript !== undefined) {
    out.opaqueReason = subscript;
    return;
  }
  const risky = programOptionReason(name, args) ?? taskRunnerReason(name, args);
  if (risky !== undefined) {
    out.opaqueReason = risky;
    return;
  }
  switch (name) {
    case 'source':
    case '.':
      out.opaqueReason = OPAQUE.scriptFile(name);
      return;
    case 'find': {
      const opt = args.find((w) => ['-exec', '-execdir', '-ok', '-okdir'].includes(w.text));
      if (opt) out.opaqueReason = OPAQUE.findExec(name, opt.text);
      return;
    }
    case 'fd':
    case 'fdfind': {
      const opt = args.find((w) => ['-x', '--exec', '-X', '--exec-batch'].includes(w.text));
      if (opt) out.opaqueReason = OPAQUE.findExec(name, opt.text);
      return;
    }
    case 'eval': {
      if (args.some((w) => w.dynamic)) out.opaqueReason = OPAQUE.dynamicPayload(name);
      else if (args.length > 0) out.payload = { kind: 'eval', text: args.map((w) => w.text).join(' ') };
      return;
    }
    case 'trap': {
      const first = firstOperand(words, 1, new Set());
      const action = words.at(first);
      if (!action || first + 1 >= words.length || action.text === '-' || action.text === '') return;
      if (action.dynamic) out.opaqueReason = OPAQUE.dynamicPayload(name);
      else out.payload = { kind: 'trap', text: action.text };
      return;
    }
    case 'alias':
      if (args.some((w) => w.text.includes('='))) out.opaqueReason = OPAQUE.definesCode(name);
      return;
    case 'hash':
      if (args.some((w) => w.text.startsWith('-') && w.text.includes('p'))) out.opaqueReason = OPAQUE.definesCode(name);
      return;
    case 'enable':
      if (args.some((w) => w.text.startsWith('-') && w.text.includes('f'))) out.opaqueReason = OPAQUE.definesCode(name);
      return;
    case 'git': {
      // Global options come before the subcommand; `-c`/`--config-env` can set core.pager, core.fsmonitor, ….
      for (const w of args) {
        if (!w.text.startsWith('-')) break;
        if (w.text === '-c' || w.text.startsWith('--config-env') || /^-c./.test(w.text)) {
          out.opaqueReason = OPAQUE.gitConfig();
          return;
        }
      }
      // Transport options name a program git runs (`git fetch --upload-pack='cmd'`, `git push --exec=…`).
      const program = args.find((w) => /^(--upload-pack|--receive-pack|--exec)(=|$)/.test(w.text));
      if (program) out.opaqueReason = OPAQUE.programOption(name, program.text.split('=')[0]);
      return;
    }
    case 'rg':
    case 'sort':
    case 'tar': {
      const programOptions: Record<string, RegExp> = {
        rg: /^--pre(=|$)/,
        sort: /^--compress-program(=|$)/,
        tar: /^(--to-command|--use-compress-program|--checkpoint-action|--info-script|--new-volume-script|--rsh-command)(=|$)|^-I$|^-F$/,
      };
      const opt = args.find((w) => programOptions[name].test(w.text));
      if (opt) out.opaqueReason = OPAQUE.programOption(name, opt.text.split('=')[0]);
      return;
    }
    default:
      break;
  }
  if (SHELLS.has(name)) {
    classifyShell(name, words, out);
    return;
  }
  if (AWK.test(name)) {
    if (args.some((w) => w.dynamic || AWK_RUNS_COMMANDS.test(w.text))) out.opaqueReason = OPAQUE.awkCommand(name);
    return;
  }
  const interp = INTERPRETERS.find((x) => x.name.test(name));
  if (interp) classifyInterpreter(name, interp.codeFlags, words, out, interp.infoFlags);
}
