import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PROGRAM_MODULES } from '../../../../../src/core/policy/programs/index';
import { SPECS as GIT_SPECS } from '../../../../../src/core/policy/programs/git';
import type { ProgramSpec } from '../../../../../src/core/policy/programs/spec';

// Each spec file's test: where the program is installed, the program itself confirms the spec.
// Every option the spec lists is accepted by the program (it is read before `--help` ends the
// run, so nothing is done; git's read forms run in a one-commit repository), and the program's `--help` names no long option the spec lacks.

const REJECTED = /unrecognized option|invalid option|unknown option|ambiguous|doesn't allow an argument|wasn't expected|Invalid argument `|unrecognized argument|unknown switch/i;

function installed(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).status === 0;
}

/** Long option names a `--help` text lists on its option lines. */
function helpLongs(text: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    if (!/^\s{1,10}-/.test(line)) continue;
    // The option columns: `-k, --key=KEYDEF  text` and gawk's `-f progfile\t\t--file=progfile`.
    for (const part of line.trim().split(/\s{2,}|\t+/).filter((p) => p.startsWith('-'))) {
      for (const m of part.matchAll(/--([A-Za-z0-9][A-Za-z0-9_-]*)/g)) out.add(m[1]);
    }
  }
  return out;
}

/** The words that spell one option for a test run, with a value where it takes one. */
function spellings(spec: ProgramSpec, attached = false): string[][] {
  const out: string[][] = [];
  for (const [l, d] of spec.longs) out.push(d.arg === 'required' ? (attached ? [`--${l}=1`] : [`--${l}`, '1']) : [`--${l}`]);
  for (const [s, d] of spec.shorts) out.push(d.arg === 'required' ? [`-${s}`, '1'] : [`-${s}`]);
  return out;
}

/** Programs whose `--help` is not the usual GNU layout, or that have no `--help` run here. */
const NO_HELP_CHECK = new Set(['printf', 'pwd', 'type', 'which', 'git', 'npm', 'find', 'jq', 'echo', 'true']);
/** Options the programs spell in `--help` with placeholders the spec spells out. */
const HELP_PLACEHOLDERS = new Set(['GTYPE-group-format', 'LTYPE-line-format']);

describe('core/policy/programs: each spec is confirmed by its program', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-specs-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const m of PROGRAM_MODULES) {
    const spec = m.spec;
    if (!spec || NO_HELP_CHECK.has(spec.name)) continue;
    it(`${spec.name}: the program accepts every option of the spec, and --help lists none it lacks`, function () {
      this.timeout(120000);
      if (!installed(spec.name)) this.skip();
      const help = spawnSync(spec.name, ['--help'], { cwd: dir, encoding: 'utf8', input: '', timeout: 20000 });
      const listed = helpLongs(`${help.stdout}\n${help.stderr}`);
      const missing = [...listed].filter((l) => !spec.longs.has(l) && !HELP_PLACEHOLDERS.has(l));
      assert.deepEqual(missing, [], `${spec.name} --help lists options the spec lacks`);
      for (const words of spellings(spec)) {
        const r = spawnSync(spec.name, [...words, '--help'], { cwd: dir, encoding: 'utf8', input: '', timeout: 20000 });
        assert.doesNotMatch(r.stderr, REJECTED, `${spec.name} ${words.join(' ')}`);
      }
    });
  }

  // A hidden option (one `--help` does not list) sharing a prefix with a listed one would make the
  // program find that prefix ambiguous where the spec resolves it: each option's shortest prefix that
  // the spec resolves is run, and the program must accept it too.
  for (const m of PROGRAM_MODULES) {
    const spec = m.spec;
    if (!spec?.prefixes || NO_HELP_CHECK.has(spec.name)) continue;
    it(`${spec.name}: every shortest unique prefix the spec resolves, the program resolves too`, function () {
      this.timeout(120000);
      if (!installed(spec.name)) this.skip();
      const names = [...spec.longs.keys()];
      const bad: string[] = [];
      for (const name of names) {
        let prefix = '';
        for (let n = 1; n < name.length; n++) {
          const p = name.slice(0, n);
          if (new Set(names.filter((x) => x.startsWith(p)).map((x) => spec.longs.get(x))).size === 1) {
            prefix = p;
            break;
          }
        }
        if (prefix === '') continue;
        const def = spec.longs.get(name);
        const word = def?.arg === 'none' ? `--${prefix}` : `--${prefix}=1`;
        const r = spawnSync(spec.name, [word, '--help'], { cwd: dir, encoding: 'utf8', input: '', timeout: 20000 });
        if (/unrecognized option|ambiguous|invalid option|wasn't expected|Invalid argument `/i.test(r.stderr)) bad.push(`${spec.name} ${word}: ${r.stderr.split('\n')[0]}`);
      }
      assert.deepEqual(bad, []);
    });
  }

  it('git read forms: git accepts every option the specs list', function () {
    this.timeout(600000);
    if (!installed('git')) this.skip();
    const repo = path.join(dir, 'repo');
    fs.mkdirSync(repo);
    const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8', input: '', timeout: 20000, env: { ...process.env, GIT_PAGER: 'cat', PAGER: 'cat', GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
    git('init', '-q');
    fs.writeFileSync(path.join(repo, 'f'), 'x\n');
    git('add', 'f');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'c');
    const bad: string[] = [];
    for (const [sub, spec] of Object.entries(GIT_SPECS)) {
      for (const words of spellings(spec, true)) {
        // Changing forms of `git branch` are listed so they are named; they are not run here.
        const def = words[0].startsWith('--') ? spec.longs.get(words[0].slice(2).split('=')[0]) : spec.shorts.get(words[0].slice(1));
        if (def?.effect === 'ask' || def?.effect === 'runs') continue;
        const args = sub === 'blame' ? [sub, ...words, 'f'] : words[0] === '--merge-base' ? [sub, ...words, 'HEAD'] : [sub, ...words];
        const r = git(...args);
        if (REJECTED.test(r.stderr)) bad.push(`git ${args.join(' ')}: ${r.stderr.split('\n')[0]}`);
      }
    }
    assert.deepEqual(bad, []);
  });
});
