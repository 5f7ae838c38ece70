// Options that turn an otherwise harmless program into one that writes files or runs other
// programs (`git log --output=F`, `npm test --script-shell=./x.sh`, `sed -i`, `find -delete`, …).
// Such a command is opaque: an allow rule for the program (`git log *`) cannot approve it, a
// person must. A small table per common program; a program not listed is judged by its rules.
import type { Word } from './shellNormalize';

export const RISKY_OPTION = {
  writes: (name: string, option: string) => `\`${name} ${option}\` writes files`,
  runs: (name: string, option: string) => `\`${name} ${option}\` names a program to run`,
  script: (name: string, what: string) => `\`${name}\` ${what}`,
  config: (name: string, option: string) => `\`${name} ${option}\` sets configuration that can name programs or files`,
  hidden: (name: string, option: string) => `\`${name} ${option}\` reads a script the analysis cannot see`,
} as const;

/** `--name=value` or `--name` → `--name`. */
function longName(t: string): string {
  const eq = t.indexOf('=');
  return eq < 0 ? t : t.slice(0, eq);
}

/** True when the short-option cluster `t` (`-ni`, `-i.bak`) contains `letter` before any attached value. */
function shortCluster(t: string, letter: string, valueLetters = ''): boolean {
  if (!/^-[A-Za-z]/.test(t) || t.startsWith('--')) return false;
  for (let k = 1; k < t.length; k++) {
    if (t[k] === letter) return true;
    if (valueLetters.includes(t[k])) return false; // the rest is that option's value
  }
  return false;
}

/** Words before a lone `--` (after it, options belong to someone else). */
function beforeDashDash(args: readonly Word[]): Word[] {
  const end = args.findIndex((w) => w.text === '--');
  return end < 0 ? [...args] : args.slice(0, end);
}

// ---- per program ----

const GIT_RUNNERS = /^--(?:upload-pack|receive-pack|exec|exec-path|ext-diff|open-files-in-pager|config-env|extcmd|tool|ssh)$/;
const GIT_WRITERS = /^--(?:output|output-directory)$/;

function git(args: readonly Word[]): string | undefined {
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

/** npm-family options that are plain switches or values with no program or file behind them. */
const NPM_SAFE = new Set([
  '--silent', '--quiet', '--loglevel', '--workspace', '--workspaces', '--if-present', '--ignore-scripts', '--json',
  '--parseable', '--long', '--color', '--no-color', '--offline', '--prefer-offline', '--verbose',
  '--include-workspace-root', '--foreground-scripts', '--no-audit', '--no-fund', '--no-progress', '--reporter',
  '--filter', '--recursive', '--stream', '--parallel', '--frozen-lockfile', '--production', '--dev', '--save-dev',
  '--save', '--global', '--yes', '--no',
]);
const NPM_SAFE_SHORT = /^-[sqdwrDSgyY]+$/;

function npmFamily(name: string, args: readonly Word[]): string | undefined {
  // Options after `--` go to the script; before it, npm reads any `--key=value` as its own
  // configuration, and many keys name programs or files (`script-shell`, `userconfig`, `node-options`).
  for (const w of beforeDashDash(args)) {
    const t = w.text;
    if (!t.startsWith('-') || t === '-') continue;
    if (t.startsWith('--') ? NPM_SAFE.has(longName(t)) : NPM_SAFE_SHORT.test(t)) continue;
    return RISKY_OPTION.config(name, longName(t));
  }
  return undefined;
}

const FIND_WRITERS = new Set(['-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

function find(args: readonly Word[]): string | undefined {
  const w = args.find((a) => FIND_WRITERS.has(a.text));
  return w ? RISKY_OPTION.writes('find', w.text) : undefined;
}

/** A sed script command that runs (`e`, `s///e`) or writes/reads a file (`w`, `W`, `r`, `R`, `s///w`). */
const SED_RISKY_COMMAND = /(?:^|[;\n{}!\s\d$/])\s*[ewWrR](?:\s|$|[;}])|s(.)(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gpiImM0-9]*[ew]/;

function sed(args: readonly Word[]): string | undefined {
  let scriptGiven = false;
  const scripts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    if (t === '--') break;
    if (t === '--in-place' || t.startsWith('--in-place=') || shortCluster(t, 'i', 'ef')) return RISKY_OPTION.writes('sed', '-i');
    if (t === '-f' || t.startsWith('--file') || shortCluster(t, 'f', 'e')) return RISKY_OPTION.hidden('sed', '-f');
    if (t === '-e' || t === '--expression') {
      scriptGiven = true;
      scripts.push(args[++i]?.text ?? '');
    } else if (t.startsWith('--expression=')) {
      scriptGiven = true;
      scripts.push(t.slice('--expression='.length));
    } else if (shortCluster(t, 'e')) {
      scriptGiven = true;
      const at = t.indexOf('e');
      scripts.push(at === t.length - 1 ? args[++i]?.text ?? '' : t.slice(at + 1));
    } else if (!t.startsWith('-') && !scriptGiven) {
      scriptGiven = true;
      scripts.push(t);
    }
  }
  if (args.some((w) => w.dynamic)) return RISKY_OPTION.hidden('sed', 'script');
  const risky = scripts.find((s) => SED_RISKY_COMMAND.test(s));
  return risky !== undefined ? RISKY_OPTION.script('sed', 'script runs a command or opens a file (`e`, `w`, `r`)') : undefined;
}

function sort(args: readonly Word[]): string | undefined {
  for (const w of args) {
    const t = w.text;
    if (t === '--') break;
    const name = longName(t);
    if (name === '--output' || name === '--temporary-directory' || shortCluster(t, 'o', 'kStT') || shortCluster(t, 'T', 'kSto')) {
      return RISKY_OPTION.writes('sort', name.startsWith('--') ? name : t.slice(0, 2));
    }
    if (name === '--compress-program') return RISKY_OPTION.runs('sort', name);
  }
  return undefined;
}

function rg(args: readonly Word[]): string | undefined {
  for (const w of beforeDashDash(args)) {
    const name = longName(w.text);
    if (name === '--pre' || name === '--search-zip' || shortCluster(w.text, 'z')) return RISKY_OPTION.runs('rg', name.startsWith('--') ? name : '-z');
  }
  return undefined;
}

const PAGER_WRITERS = /^--(?:log-file|LOG-FILE)$/;

function pager(name: string, args: readonly Word[]): string | undefined {
  for (const w of beforeDashDash(args)) {
    const t = w.text;
    if (t.startsWith('+')) return RISKY_OPTION.script(name, 'runs `+` commands at start (they may run programs)');
    if (PAGER_WRITERS.test(longName(t)) || t.startsWith('-o') || t.startsWith('-O')) return RISKY_OPTION.writes(name, longName(t));
  }
  return undefined;
}

function man(args: readonly Word[]): string | undefined {
  for (const w of beforeDashDash(args)) {
    const t = w.text;
    const name = longName(t);
    if (['--pager', '--html', '--preprocessor', '--browser', '--config-file'].includes(name)) return RISKY_OPTION.runs('man', name);
    if (/^-[A-Za-z]*[PHpC]/.test(t) && !t.startsWith('--')) return RISKY_OPTION.runs('man', t.slice(0, 2));
  }
  return undefined;
}

const AWK_WRITES = /(?:print|printf)[^;}]*>|-i\s*inplace/;

function awk(name: string, args: readonly Word[]): string | undefined {
  for (const w of args) {
    const t = w.text;
    if (t === '-f' || t.startsWith('--file') || /^-f./.test(t) || t === '-i' || t.startsWith('--include')) return RISKY_OPTION.hidden(name, '-f');
    if (AWK_WRITES.test(t)) return RISKY_OPTION.writes(name, 'print >');
  }
  return undefined;
}

/** Why this program's options make it a writer or a runner, or undefined. `name` is argv0's basename. */
export function riskyOption(name: string, args: readonly Word[]): string | undefined {
  switch (name) {
    case 'git':
      return git(args);
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'npx':
    case 'bun':
      return npmFamily(name, args);
    case 'find':
      return find(args);
    case 'sed':
    case 'gsed':
      return sed(args);
    case 'sort':
      return sort(args);
    case 'rg':
      return rg(args);
    case 'less':
    case 'more':
    case 'most':
      return pager(name, args);
    case 'man':
      return man(args);
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk':
      return awk(name, args);
    default:
      return undefined;
  }
}
