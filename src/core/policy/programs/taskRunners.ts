// A floor for the task runners people allow by rule (`make test*`, `python3 -m pytest*`): the
// forms that change WHAT they run ask whatever rule matched, like an opaque command. A rule that
// allows a project's test target trusts that project's Makefile and tests, not a line that swaps
// the shell make runs recipes with or loads another Makefile, nor one that makes pytest write
// where it likes or import a plugin.
//
// - make (GNU make 4.3): a variable on the command line (`SHELL=rm`, `.SHELLFLAGS=…`,
//   `X:=$(shell …)`, `X!=cmd`, and any `CC=…` a recipe runs) and the options that read other
//   make text or run elsewhere: `-f`/`--file`/`--makefile` (`-f -` reads stdin), `-E`/`--eval`,
//   `-C`/`--directory`, `-I`/`--include-dir`, `-e`/`--environment-overrides`, `-t`/`--touch`
//   (writes). Long options may be abbreviated (getopt_long): any prefix of these asks.
// - pytest (`pytest`, `py.test`, `python -m pytest`): only options that choose which tests run
//   and how results are shown are approved; every other (`--junitxml`, `--basetemp`,
//   `-o cache_dir=…`, `-p plugin`, `-c file`, `--rootdir`, `-W` with a class to import, `--pdb`)
//   asks, and so does a test path outside the folder (`/x`, `~/x`, `../x`).
import type { Word } from '../analysis/shellWord';

export const TASK_RUNNER_REASON = {
  makeVariable: (word: string) =>
    `\`make ${word}\` sets a make variable from the command line, which can change the shell or the programs its recipes run`,
  makeOption: (option: string) => `\`make ${option}\` reads other make text, runs in another folder or writes files`,
  pytestOption: (name: string, option: string) =>
    `\`${name} ${option}\` is not one of the options that only choose which tests run and how results are shown`,
  pytestPath: (name: string, word: string) => `\`${name} ${word}\` runs tests from outside the folder`,
  dynamic: (name: string) => `\`${name}\` has an argument that cannot be read statically`,
  pythonOption: (option: string) => `\`python ${option}\` before \`-m pytest\` is not approved without asking`,
} as const;

const MAKE = /^(make|gmake|gnumake)$/;
const MAKE_SHORT_RISKY = 'fECIet';
const MAKE_LONG_RISKY = ['file', 'makefile', 'eval', 'directory', 'include-dir', 'environment-overrides', 'touch'];
/** Short options of make that take a value (attached or the next word). */
const MAKE_SHORT_VALUE = 'fCIjlWoO';
/** Of those, the ones whose value is optional (attached only). */
const MAKE_SHORT_OPTIONAL = 'jlO';

function makeReason(args: readonly Word[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    const t = w.text;
    if (w.dynamic) return TASK_RUNNER_REASON.dynamic('make');
    if (t === '--') continue;
    if (t.startsWith('--')) {
      const long = t.slice(2).split('=')[0];
      if (long !== '' && MAKE_LONG_RISKY.some((r) => r.startsWith(long))) return TASK_RUNNER_REASON.makeOption(t);
      continue;
    }
    if (t.startsWith('-') && t.length > 1) {
      for (let k = 1; k < t.length; k++) {
        const c = t[k];
        if (MAKE_SHORT_RISKY.includes(c)) return TASK_RUNNER_REASON.makeOption(`-${c}`);
        if (MAKE_SHORT_VALUE.includes(c)) {
          // `-j`, `-l`, `-O` take an optional value; the rest a required one (the next word when not attached).
          if (k === t.length - 1 && !MAKE_SHORT_OPTIONAL.includes(c)) i++;
          break;
        }
      }
      continue;
    }
    if (t.includes('=')) return TASK_RUNNER_REASON.makeVariable(t);
  }
  return undefined;
}

/** pytest options that only select tests or shape the report: flags, and options with a value. */
const PYTEST_FLAGS: ReadonlySet<string> = new Set([
  '-v', '-vv', '-vvv', '--verbose', '-q', '-qq', '--quiet', '-x', '--exitfirst', '-s', '-l', '--showlocals', '--lf',
  '--last-failed', '--ff', '--failed-first', '--nf', '--new-first', '--sw', '--stepwise', '--sw-skip', '--stepwise-skip',
  '--co', '--collect-only', '--no-header', '--no-summary', '--disable-warnings', '--disable-pytest-warnings',
  '--strict-markers', '--strict-config', '--runxfail', '--full-trace', '--setup-show', '--setup-only', '--setup-plan',
  '--fixtures', '--fixtures-per-test', '--markers', '--version', '-V', '-h', '--help', '--doctest-modules', '--no-cov',
  '-ra', '-rA', '-rf', '-rE', '-rs', '-rx', '-rX', '-rp', '-rP', '-rN', '--import-mode=importlib', '--import-mode=prepend',
  '--import-mode=append', '--lfnf=all', '--lfnf=none', '--last-failed-no-failures=all', '--last-failed-no-failures=none',
]);
const PYTEST_VALUES: ReadonlySet<string> = new Set([
  '-k', '-m', '--tb', '--maxfail', '--durations', '--durations-min', '--deselect', '--ignore', '--ignore-glob', '--color',
  '--code-highlight', '--capture', '-n', '--numprocesses', '--dist', '--count', '--timeout', '-r', '--verbosity',
]);
/** Values of these name paths (judged like test paths). */
const PYTEST_PATH_VALUES: ReadonlySet<string> = new Set(['--deselect', '--ignore', '--ignore-glob']);

const outside = (t: string): boolean => t.startsWith('/') || t.startsWith('~') || /(^|\/)\.\.(\/|$|::)/.test(t);

function pytestReason(name: string, args: readonly Word[]): string | undefined {
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    const t = w.text;
    if (w.dynamic) return TASK_RUNNER_REASON.dynamic(name);
    if (options && t === '--') {
      options = false;
      continue;
    }
    if (!options || !t.startsWith('-') || t === '-') {
      if (outside(t)) return TASK_RUNNER_REASON.pytestPath(name, t);
      continue;
    }
    if (PYTEST_FLAGS.has(t) || /^-[vqxsl]+$/.test(t)) continue;
    // `-p no:NAME` turns a plugin off; `-p NAME` imports one.
    if (t === '-p' && /^no:[\w.-]+$/.test(args[i + 1]?.text ?? '') && args[i + 1]?.dynamic !== true) {
      i++;
      continue;
    }
    const eq = t.indexOf('=');
    const opt = t.startsWith('--') && eq > 0 ? t.slice(0, eq) : t.startsWith('--') ? t : t.slice(0, 2);
    if (!PYTEST_VALUES.has(opt)) return TASK_RUNNER_REASON.pytestOption(name, t);
    const attached = t.startsWith('--') ? eq > 0 : t.length > 2;
    const next = attached ? undefined : args.at(++i);
    if (next?.dynamic === true) return TASK_RUNNER_REASON.dynamic(name);
    const value = attached ? t.slice(t.startsWith('--') ? eq + 1 : 2) : next?.text;
    if (value !== undefined && PYTEST_PATH_VALUES.has(opt) && outside(value)) return TASK_RUNNER_REASON.pytestPath(name, `${opt} ${value}`);
  }
  return undefined;
}

const PYTHON = /^python[0-9.]*$/;
/** Interpreter switches that change nothing about which code runs or where it writes. */
const PYTHON_PLAIN = new Set(['-B', '-u', '-I', '-E', '-s', '-q', '-b', '-bb', '-O', '-OO']);

/** Why `make …` / `pytest …` / `python -m pytest …` must ask whatever rule allowed it, or undefined. */
export function taskRunnerReason(name: string, args: readonly Word[]): string | undefined {
  if (MAKE.test(name)) return makeReason(args);
  if (name === 'pytest' || name === 'py.test') return pytestReason(name, args);
  if (PYTHON.test(name)) {
    for (let i = 0; i < args.length; i++) {
      const t = args[i].text;
      if (args[i].dynamic) return undefined; // the interpreter check decides
      if (t === '-m' || t === '-mpytest') {
        const module = t === '-m' ? args[i + 1] : { text: 'pytest', dynamic: false };
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- args[i + 1] may be past the end
        if (module?.text !== 'pytest' && module?.text !== 'py.test') return undefined;
        for (const before of args.slice(0, i)) if (!PYTHON_PLAIN.has(before.text)) return TASK_RUNNER_REASON.pythonOption(before.text);
        return pytestReason(`${name} -m pytest`, args.slice(t === '-m' ? i + 2 : i + 1));
      }
      if (!t.startsWith('-')) return undefined;
    }
  }
  return undefined;
}
