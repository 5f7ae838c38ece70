// npm, pnpm and yarn read forms: listing what is installed (`ls`), explaining why (`explain`/`why`),
// asking the registry (`view`, `outdated`), printing folders (`root`, `prefix`) and settings
// (`config get|list`), and `--version`. These run no package script (npm 9's npm-ls(1),
// npm-view(1), npm-outdated(1), npm-config(1) on this machine; pnpm and yarn by their manuals, not
// installed here). npm reads every `--key=value` as configuration, and many keys name programs or
// files (`script-shell`, `userconfig`, `node-options`): only the switches below are approved.
// Other subcommands keep the older option table (programOptions.ts).
import type { ArgWord } from './getopt';
import { parseArgs } from './getopt';
import { judgeBySpec, type ProgramJudgement, type ProgramModule } from './judge';
import { defineProgram } from './spec';

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
  const j = judgeBySpec(spec, name, rest, parseArgs(spec, rest));
  j.canonical = [];
  return j;
}

export const program: ProgramModule = { names: ['npm', 'pnpm', 'yarn'], judge: judgePackageManager };
