// The older table of options that turn an otherwise harmless program into one that writes files
// or runs other programs (`git push --receive-pack=…`, `npm test --script-shell=./x.sh`). Such a
// command is opaque: an allow rule for the program cannot approve it, a person must. Programs and
// forms with a spec (programs/) are read by their spec instead; this table covers the rest: git
// subcommands and npm forms without a spec, `npx`/`bun`, and the pagers `more` and `most`.
import type { Word } from '../analysis/shellWord';

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

const PAGER_WRITERS = /^--(?:log-file|LOG-FILE)$/;

function pager(name: string, args: readonly Word[]): string | undefined {
  for (const w of beforeDashDash(args)) {
    const t = w.text;
    if (t.startsWith('+')) return RISKY_OPTION.script(name, 'runs `+` commands at start (they may run programs)');
    if (PAGER_WRITERS.test(longName(t)) || t.startsWith('-o') || t.startsWith('-O')) return RISKY_OPTION.writes(name, longName(t));
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
    case 'more':
    case 'most':
      return pager(name, args);
    default:
      return undefined;
  }
}
