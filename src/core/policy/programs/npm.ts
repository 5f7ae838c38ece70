// npm, pnpm and yarn read forms: listing what is installed (`ls`), explaining why (`explain`/`why`),
// asking the registry (`view`, `outdated`), printing folders (`root`, `prefix`) and settings
// (`config get|list`), and `--version`. These run no package script (npm 9's npm-ls(1),
// npm-view(1), npm-outdated(1), npm-config(1) on this machine; pnpm and yarn by their manuals, not
// installed here). npm reads every `--key=value` as configuration, and many keys name programs or
// files (`script-shell`, `userconfig`, `node-options`): only the switches below are approved.
// Other subcommands keep the older option table below (npmFamilyOptionReason).
import type { ArgWord } from './getopt';
import { parseArgs } from './getopt';
import { judgeBySpec, type ProgramJudgement, type ProgramModule, type ProgramExamples } from './judge';
import { defineProgram } from './spec';
import type { Word } from '../analysis/shellWord';
import { beforeDashDash, longName, RISKY_OPTION } from './optionWords';

const READ_OPTIONS = [
  '--json', '-p, --parseable', '-l, --long', '-a, --all', '--depth=N', '-g, --global', '--prod, --production', '--dev',
  '--omit=TYPE', '--include=TYPE', '-w, --workspace=NAME', '--workspaces', '--include-workspace-root', '--link',
  '--no-color', '--color=WHEN', '-s, --silent', '-q, --quiet', '--loglevel=LEVEL', '--unicode', '--no-unicode',
  '--package-lock-only', '--no-package-lock-only', '--recursive', '-r', '--filter=SELECTOR', '--offline', '--no-fund',
  '--no-audit', '--no-progress', '--depth',
];

const READ_SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  npm: ['ls', 'list', 'll', 'la', 'view', 'info', 'show', 'v', 'outdated', 'root', 'prefix', 'explain', 'why', 'config', 'c'],
  pnpm: ['ls', 'list', 'll', 'la', 'why', 'outdated', 'root'],
  yarn: ['list', 'why', 'info', 'outdated'],
};

const SPECS = new Map<string, ReturnType<typeof defineProgram>>();
function specFor(name: string): ReturnType<typeof defineProgram> {
  let s = SPECS.get(name);
  if (!s) {
    // `--depth` alone and `--depth=N` are both npm's; the first spelling wins the line.
    s = defineProgram({
      name, source: 'npm 9 manuals (npm-ls, npm-view, npm-outdated, npm-config)', prefixes: false, operands: 'none',
      options: READ_OPTIONS.filter((o) => o !== '--depth'),
    });
    SPECS.set(name, s);
  }
  return s;
}

export function judgePackageManager(name: string, args: readonly ArgWord[]): ProgramJudgement | undefined {
  const spec = specFor(name);
  if (args.length === 1 && !args[0].dynamic && (args[0].text === '--version' || args[0].text === '-v')) return { paths: [], canonical: [] };
  const subIndex = args.findIndex((a) => !a.text.startsWith('-'));
  const sub = args.at(subIndex);
  if (!sub || sub.dynamic || !(READ_SUBCOMMANDS[name] ?? []).includes(sub.text)) return undefined;
  if (sub.text === 'config' || sub.text === 'c') {
    const action = args[subIndex + 1] as ArgWord | undefined;
    if (!action || !['get', 'list', 'ls'].includes(action.text)) return undefined;
  }
  const rest = [...args.slice(0, subIndex), ...args.slice(subIndex + 1)];
  const parsed = parseArgs(spec, rest);
  const j = judgeBySpec(spec, name, rest, parsed);
  j.canonical = [];
  j.reason ??= operandReason(name, sub.text, parsed.operands);
  return j;
}

/**
 * A registry package name, optionally scoped, with an optional version, range or tag: what the read
 * forms look up. Anything else is a spec npm fetches some other way (`../dir` and `file:` read a
 * folder's or tarball's package.json outside the workspace, `user/repo` and `git+…` clone with git,
 * `http…` downloads), so it asks.
 */
const REGISTRY_SPEC = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(@[A-Za-z0-9._^~<>=*| -]*)?$/;
/** A field of `npm view NAME FIELD…` (`version`, `dist.tarball`, `versions[0]`, `dist-tags`). */
const VIEW_FIELD = /^[A-Za-z0-9_$][A-Za-z0-9_.$[\]-]*$/;
/** A configuration key for `npm config get KEY` (`registry`, `//host/:_authToken`, `@scope:registry`). */
const CONFIG_KEY = /^[A-Za-z0-9_@/:.-]+$/;

export const NPM_REASON = {
  spec: (name: string, sub: string, word: string) => `\`${name} ${sub} ${word}\` names a package that is not a registry name: it may be read from a folder, a file, git or a URL`,
} as const;

function operandReason(name: string, sub: string, operands: ReadonlyArray<{ text: string; dynamic: boolean }>): string | undefined {
  const config = sub === 'config' || sub === 'c';
  const view = name !== 'pnpm' && ['view', 'info', 'show', 'v'].includes(sub);
  for (const [k, op] of operands.entries()) {
    // `config get|list` is the first operand (checked by the caller).
    if (config && k === 0) continue;
    const ok = op.dynamic ? false : config ? CONFIG_KEY.test(op.text) : view && k > 0 ? VIEW_FIELD.test(op.text) : REGISTRY_SPEC.test(op.text);
    if (!ok) return NPM_REASON.spec(name, sub, op.text);
  }
  return undefined;
}

/** What the policy must allow and must ask of npm (ProgramExamples). */
const EXAMPLES: ProgramExamples = { allow: ['npm ls', 'npm --version'], ask: ['npm test --script-shell=./x.sh', 'npm ls --userconfig=../npmrc'] };

export const program: ProgramModule = { examples: EXAMPLES, names: ['npm', 'pnpm', 'yarn'], judge: judgePackageManager };

/** npm-family options that are plain switches or values with no program or file behind them. */
const NPM_SAFE = new Set([
  '--silent', '--quiet', '--loglevel', '--workspace', '--workspaces', '--if-present', '--ignore-scripts', '--json',
  '--parseable', '--long', '--color', '--no-color', '--offline', '--prefer-offline', '--verbose',
  '--include-workspace-root', '--foreground-scripts', '--no-audit', '--no-fund', '--no-progress', '--reporter',
  '--filter', '--recursive', '--stream', '--parallel', '--frozen-lockfile', '--production', '--dev', '--save-dev',
  '--save', '--global', '--yes', '--no',
]);
const NPM_SAFE_SHORT = /^-[sqdwrDSgyY]+$/;

/**
 * The older option table for the npm family's forms without a spec (and `npx`, `bun`): an option that
 * is not a plain switch sets configuration, which can name programs or files.
 */
export function npmFamilyOptionReason(name: string, args: readonly Word[]): string | undefined {
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
