// The built-in read-only list (`agentBash.builtinRules`, on by default; the CLI's
// `--no-builtin-rules`): programs that only read, allowed without asking. Each rule is a plain
// allow glob; what keeps it read-only is the policy's floors, above all the per-program option specs
// (programs/: an option or sed command a spec does not list asks, and so does every writer, runner
// or reader of a list of file names) and the workspace boundary for paths. Every program named here
// has a spec; the test `builtinRules.test.ts` checks that.
import type { PolicyRule } from '../policyContracts';

export const BUILTIN_LAYER_SOURCE = 'built-in read-only list';

/** Programs whose every spec'd form only reads (their writers and runners ask by their spec). */
export const BUILTIN_READ_ONLY_PROGRAMS = [
  'ls', 'pwd', 'cat', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'find', 'sort', 'uniq', 'cut', 'tr', 'diff',
  'cmp', 'file', 'stat', 'du', 'df', 'which', 'type', 'basename', 'dirname', 'realpath', 'readlink', 'date', 'echo',
  'printf', 'tree', 'sed', 'jq', 'true', 'false',
] as const;

/** git's read forms (programs/git.ts: `branch` only lists, `remote` only with `-v`). */
export const BUILTIN_GIT_FORMS = ['status', 'log', 'diff', 'show', 'branch', 'rev-parse', 'ls-files', 'blame', 'remote'] as const;

/**
 * npm's read forms (programs/npm.ts): they list, explain or look up packages and run no package
 * script; their options are limited to plain switches, and they ask in a project with its own
 * `.npmrc` (packageConfig.ts). pnpm and yarn are not here: what they load before doing anything
 * (`.pnpmfile.cjs`, `pnpmfile=` in `.npmrc` or `pnpm-workspace.yaml`, yarn 1's `yarn-path` in a
 * `.yarnrc` of any folder up to the root, `.yarnrc.yml`'s `yarnPath` and `plugins`, a
 * `packageManager` field that makes corepack fetch and run a release) runs repository code, and
 * the config they read is too wide to decide safely from a file list.
 */
export const BUILTIN_PACKAGE_FORMS = [
  'npm ls', 'npm list', 'npm ll', 'npm la', 'npm view', 'npm info', 'npm show', 'npm outdated', 'npm root', 'npm prefix',
  'npm explain', 'npm why', 'npm config get', 'npm config list', 'npm --version', 'npm -v',
] as const;

const allow = (match: string): PolicyRule => Object.freeze({ match, approval: 'allow' as const });

export const BUILTIN_RULES: readonly PolicyRule[] = Object.freeze([
  ...BUILTIN_READ_ONLY_PROGRAMS.map((name) => allow(`${name} *`)),
  ...BUILTIN_GIT_FORMS.map((sub) => allow(`git ${sub} *`)),
  ...BUILTIN_PACKAGE_FORMS.map((form) => allow(`${form} *`)),
]);
