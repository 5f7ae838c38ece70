// Normalisation of one simple command's words, independent of the parser: argv0 basename,
// prefix-wrapper stripping (`sudo`, `env`, `timeout 5`, …), and classification of commands that
// run code the analysis cannot see (opaque) or whose code we can re-parse (`bash -c`, `eval`, `trap`).
// Keeping this parser-free lets the rules be read and tested as plain tables.

/** One shell word after unquoting. `text` is the static value, or the source text when dynamic. */
export interface Word {
  text: string;
  /** Contains an expansion or substitution whose value is only known at run time. */
  dynamic: boolean;
  /** Contains unquoted glob or brace characters, so bash may turn it into other words. */
  expandable: boolean;
}

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
  /** A privilege wrapper (`sudo`, `doas`) was stripped. */
  privileged: boolean;
}

interface WrapperSpec {
  /** Short options without an argument. */
  flags: string;
  /** Short options that take an argument (attached or next word). */
  argFlags: string;
  long?: readonly string[];
  longArg?: readonly string[];
  /** Words consumed after the options (`timeout`'s duration). */
  positional?: number;
  /** `env`: `NAME=value` words before the command. */
  assignments?: boolean;
  /** `nice -10`. */
  numericFlag?: boolean;
  /** Options that mean "this is not running a command" (`command -v`): stop stripping. */
  notWrapper?: string;
  /** Options whose meaning we refuse to model (`env -S`, `sudo -e`): the segment becomes opaque. */
  opaque?: string;
  longOpaque?: readonly string[];
  privileged?: boolean;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: {
    flags: '0iv',
    argFlags: 'uC',
    long: ['ignore-environment', 'null', 'debug'],
    longArg: ['unset', 'chdir'],
    assignments: true,
    opaque: 'S',
    longOpaque: ['split-string'],
  },
  command: { flags: 'p', argFlags: '', notWrapper: 'vV' },
  builtin: { flags: '', argFlags: '' },
  exec: { flags: 'cl', argFlags: 'a' },
  nice: { flags: '', argFlags: 'n', longArg: ['adjustment'], numericFlag: true },
  nohup: { flags: '', argFlags: '' },
  time: {
    flags: 'pvaq',
    argFlags: 'fo',
    long: ['portability', 'verbose', 'append', 'quiet'],
    longArg: ['format', 'output'],
  },
  timeout: {
    flags: 'v',
    argFlags: 'sk',
    long: ['preserve-status', 'foreground', 'verbose'],
    longArg: ['signal', 'kill-after'],
    positional: 1,
  },
  sudo: {
    flags: 'AbEHKknPSisB',
    argFlags: 'ughpCrtTUDR',
    long: [
      'askpass', 'background', 'preserve-env', 'set-home', 'login', 'remove-timestamp',
      'reset-timestamp', 'non-interactive', 'preserve-groups', 'stdin', 'shell', 'bell',
    ],
    longArg: ['user', 'group', 'prompt', 'close-from', 'role', 'type', 'command-timeout', 'other-user', 'chdir', 'chroot', 'host'],
    notWrapper: 'lvV',
    opaque: 'e',
    longOpaque: ['edit'],
    privileged: true,
  },
  doas: { flags: 'ns', argFlags: 'u', opaque: 'C', privileged: true },
  stdbuf: { flags: '', argFlags: 'ioe', longArg: ['input', 'output', 'error'] },
  setsid: { flags: 'cfw', argFlags: '', long: ['ctty', 'fork', 'wait'] },
  ionice: { flags: 't', argFlags: 'cn', longArg: ['class', 'classdata'], notWrapper: 'pPu' },
  busybox: { flags: '', argFlags: '' },
  chroot: { flags: '', argFlags: '', longArg: ['userspec', 'groups'], long: ['skip-chdir'], positional: 1, privileged: true },
};

export const SHELLS: ReadonlySet<string> = new Set([
  'sh', 'bash', 'rbash', 'zsh', 'dash', 'ksh', 'mksh', 'pdksh', 'ash', 'yash', 'posh', 'fish', 'tcsh', 'csh',
]);

/** Interpreters and the options that hand them program text on the command line. */
const INTERPRETERS: ReadonlyArray<{ name: RegExp; codeFlags: readonly string[] }> = [
  { name: /^python[0-9.]*$/, codeFlags: ['-c'] },
  { name: /^pypy[0-9.]*$/, codeFlags: ['-c'] },
  { name: /^perl[0-9.]*$/, codeFlags: ['-e', '-E'] },
  { name: /^ruby[0-9.]*$/, codeFlags: ['-e'] },
  { name: /^(node|nodejs)$/, codeFlags: ['-e', '--eval', '-p', '--print'] },
  { name: /^bun$/, codeFlags: ['-e', '--eval', '-p', '--print'] },
  { name: /^php[0-9.]*$/, codeFlags: ['-r'] },
  { name: /^(lua|luajit)[0-9.]*$/, codeFlags: ['-e'] },
  { name: /^Rscript$/, codeFlags: ['-e'] },
  { name: /^osascript$/, codeFlags: ['-e'] },
  { name: /^(pwsh|powershell)$/, codeFlags: ['-c', '-command', '-encodedcommand', '-e', '-ec'] },
  { name: /^(tclsh|wish)$/, codeFlags: [] },
];

/** Variables that make ordinary programs load or run other code. */
const CODE_LOADING_VARS =
  /^(LD_[A-Z_]+|DYLD_[A-Z_]+|PATH|BASH_ENV|ENV|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|IFS|NODE_OPTIONS|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PERL5OPT|PERL5LIB|PERLLIB|PERL5DB|RUBYOPT|RUBYLIB|GIT_[A-Z_]+|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|BROWSER|HOME|ZDOTDIR|XDG_CONFIG_HOME|[Nn][Pp][Mm]_[Cc][Oo][Nn][Ff][Ii][Gg]_[A-Za-z_]+)$/;

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
  programOption: (name: string, option: string) => `\`${name} ${option}\` names a program to run`,
  codeLoadingVar: (name: string) => `setting \`${name}\` can make programs load other code`,
  definesCode: (name: string) => `\`${name}\` defines code that runs later`,
} as const;

export function isCodeLoadingAssignment(assignment: string): string | undefined {
  const name = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/.exec(assignment)?.[1];
  return name !== undefined && CODE_LOADING_VARS.test(name) ? name : undefined;
}

export function basename(word: string): string {
  if (!word.includes('/')) return word;
  const trimmed = word.replace(/\/+$/, '');
  const cut = trimmed.lastIndexOf('/');
  return cut < 0 ? trimmed : trimmed.slice(cut + 1);
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

type OptionOutcome = { next: number } | { stop: 'notWrapper' } | { opaque: string };

/** Consumes a wrapper's options starting at `i` (the first word after the wrapper's name). */
function skipWrapperOptions(name: string, spec: WrapperSpec, words: Word[], i: number, assignments: string[]): OptionOutcome {
  while (i < words.length) {
    const w = words[i];
    if (w.dynamic) return { opaque: OPAQUE.dynamicWrapperWord(name) };
    const t = w.text;
    if (t === '--') return { next: i + 1 };
    if (name === 'env' && t === '-') {
      i++;
      continue;
    }
    if (!t.startsWith('-') || t === '-') break;
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const opt = eq < 0 ? t.slice(2) : t.slice(2, eq);
      if (spec.longOpaque?.includes(opt)) return { opaque: OPAQUE.wrapperOption(name, t) };
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
  return { next: i };
}

/** Strips prefix wrappers and classifies the command. `words[0]` is the command name as written. */
export function normalizeWords(words: Word[]): NormalizedCommand {
  const out: NormalizedCommand = { argv: [], argvDynamic: [], prefix: [], wrapperAssignments: [], privileged: false };
  let start = 0;
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
    if (spec.privileged) out.privileged = true;
    for (let k = start; k < r.next; k++) out.prefix.push(words[k].text);
    out.wrapperAssignments.push(...assignments);
    start = r.next;
  }
  const rest = words.slice(start);
  out.argv = rest.map((w, k) => (k === 0 && !w.dynamic && !w.expandable ? basename(w.text) : w.text));
  out.argvDynamic = rest.map((w) => w.dynamic);
  if (out.opaqueReason === undefined) classify(rest, out);
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

function classifyInterpreter(name: string, codeFlags: readonly string[], words: Word[], out: NormalizedCommand): void {
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

const AWK = /^(awk|gawk|mawk|nawk|busybox-awk)$/;
const AWK_RUNS_COMMANDS = /system\s*\(|\|\s*getline|\|&|print[^;}]*\|\s*["'a-zA-Z_]/;

function classify(words: Word[], out: NormalizedCommand): void {
  if (words.length === 0 || words[0].dynamic || words[0].expandable) return;
  const name = out.argv[0];
  const args = words.slice(1);
  switch (name) {
    case 'xargs':
    case 'parallel':
    case 'watch':
    case 'coproc':
    case 'fc':
    case 'script':
    case 'at':
    case 'batch':
      out.opaqueReason = OPAQUE.runner(name);
      return;
    case 'source':
    case '.':
      out.opaqueReason = OPAQUE.scriptFile(name);
      return;
    case 'su':
      out.opaqueReason = OPAQUE.runner(name);
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
  if (interp) classifyInterpreter(name, interp.codeFlags, words, out);
}
