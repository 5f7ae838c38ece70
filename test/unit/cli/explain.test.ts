import * as assert from 'node:assert/strict';
import { fenceSupport } from '../../../src/exec/sandbox/readOnly/readOnlySupport';
import { probeSandbox } from '../../../src/exec/sandbox/sandboxProbe';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// Runs the bundled CLI (`npm run build` first, as `npm run test:unit` does).
const ROOT = path.resolve(__dirname, '../../../..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function explain(args: string[], cwd = ROOT): Run {
  const r = spawnSync(process.execPath, [CLI, 'explain', ...args], { cwd, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const USAGE = 'usage: agent-bash explain [--rules FILE]... [--managed-rules FILE] [--no-builtin-rules] [--cwd DIR] [--workspace DIR]... [--sandbox auto|on|off] [--trace] -- COMMAND';

describe('cli/explain', () => {
  let dir: string;
  let rulesFile: string;
  before(function () {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-explain-'));
    rulesFile = path.join(dir, 'rules.json');
    fs.writeFileSync(rulesFile, JSON.stringify([
      { match: 'git status*', approval: 'allow' },
      { match: 'ls *', approval: 'allow' },
      { match: 'rm *', approval: 'deny' },
    ]));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prints the decision object for an allowed compound command', () => {
    const r = explain(['--rules', rulesFile, '--cwd', dir, '--', 'git status && ls -la']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      decision: 'allow',
      rule: { match: 'git status*', approval: 'allow' },
      layer: 'file',
      layerSource: rulesFile,
      kind: 'rule',
      reason: 'every segment matched an allow rule: `git status*`, `ls *`',
      summary: 'Agent Bash would run it without asking, because allow rules cover each of its 2 commands.',
      segments: [
        {
          text: 'git status',
          argv: ['git', 'status'],
          decision: 'allow',
          rule: { match: 'git status*', approval: 'allow' },
          layer: 'file',
          kind: 'rule',
          reason: '`git status` in segment 1 matched allow rule `git status*`',
          opaque: false,
          redirects: [],
        },
        {
          text: 'ls -la',
          argv: ['ls', '-la'],
          decision: 'allow',
          rule: { match: 'ls *', approval: 'allow' },
          layer: 'file',
          kind: 'rule',
          reason: '`ls -la` in segment 2 matched allow rule `ls *`',
          opaque: false,
          redirects: [],
        },
      ],
      uncertain: false,
      // `run` would sandbox it exactly where bubblewrap works here.
      sandboxed: probeSandbox().sandbox,
      // `git status*` in a rules file is not the built-in list's git read form: it keeps the writable sandbox.
      readOnly: null,
    });
  });

  it('says when an auto-approved read runs read-only, and where it is not enforced', () => {
    const on = JSON.parse(explain(['--cwd', dir, '--', 'ls -la && git log -3']).stdout) as { readOnly: string | null };
    const fence = fenceSupport('sandboxed');
    const expected = !probeSandbox().sandbox ? 'not enforced: read-only not enforced: no OS sandbox here' : fence.enforced ? 'enforced' : `not enforced: ${fence.why}`;
    assert.equal(on.readOnly, expected);
    assert.equal(JSON.parse(explain(['--cwd', dir, '--sandbox', 'off', '--', 'ls']).stdout).readOnly, 'not enforced: read-only not enforced: no OS sandbox here');
    // A line that asks is no auto-approved read.
    assert.equal(JSON.parse(explain(['--cwd', dir, '--', 'touch x']).stdout).readOnly, null);
  });

  it('--trace lists every check per segment and for the line with its code; without it there is no trace; twice is a usage error', () => {
    const r = explain(['--rules', rulesFile, '--cwd', dir, '--trace', '--', 'ls -la > out.txt && cat ../y']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { segments: Array<{ trace: Array<{ check: string; result: string; detail?: string }> }>; trace: Array<{ check: string; result: string }> };
    assert.deepEqual(out.segments[0]?.trace.map((t) => `${t.check}:${t.result}`), [
      'rule:pass', 'critical_pattern:pass', 'opaque:pass', 'expansion:pass', 'expanded_words:pass', 'protected_write:pass',
      'workspace_scope:pass', 'program_identity:pass', 'nested_repository:pass', 'package_config:pass', 'symlink_walk:pass', 'redirect:ask',
    ]);
    assert.equal(out.segments[0]?.trace.at(-1)?.detail, '`ls -la` in segment 1 writes to `out.txt`; allow rule `ls *` does not set allowRedirects');
    // `cat` is allowed by the built-in list; the path outside asks, so the link walk is not needed.
    assert.deepEqual(out.segments[1]?.trace.filter((t) => t.result !== 'pass').map((t) => `${t.check}:${t.result}:${t.detail ?? ''}`), [
      `workspace_scope:ask:\`cat ../y\` in segment 2 touches \`../y\` (${path.join(path.dirname(dir), 'y')}), outside the workspace`,
      'symlink_walk:skip:a path outside the workspace already asks',
    ]);
    // With only the file's rules, no rule covers `cat`: the default asks and the allow's guards do not run.
    const bare = JSON.parse(explain(['--rules', rulesFile, '--no-builtin-rules', '--cwd', dir, '--trace', '--', 'cat a']).stdout) as typeof out;
    assert.deepEqual(bare.segments[0]?.trace.filter((t) => t.result !== 'pass').map((t) => `${t.check}:${t.result}:${t.detail ?? ''}`), [
      'rule:ask:no rule matched',
      'program_identity:skip:runs only where an allow rule matched',
      'nested_repository:skip:runs only where an allow rule matched',
      'package_config:skip:runs only where an allow rule matched',
      'symlink_walk:skip:runs only where an allow rule matched',
      'redirect:skip:runs only where an allow rule matched',
    ]);
    assert.deepEqual(out.trace.map((t) => `${t.check}:${t.result}`), ['line_rule:pass', 'shell_construct:pass', 'analysis:pass', 'invisible_characters:pass']);
    const plain = JSON.parse(explain(['--rules', rulesFile, '--cwd', dir, '--', 'ls -la']).stdout) as Record<string, unknown> & { segments: Array<Record<string, unknown>> };
    assert.equal('trace' in plain, false);
    assert.equal('trace' in (plain.segments[0] ?? {}), false);
    const twice = explain(['--trace', '--trace', '--', 'ls']);
    assert.equal(twice.code, 2);
    assert.equal(twice.stderr, `agent-bash explain: option --trace given twice\n${USAGE}\n`);
  });

  it('judges words as its helper bash expands them', () => {
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src', 'a.ts'), '');
    const inside = explain(['--rules', rulesFile, '--cwd', dir, '--', 'ls src/*.ts src/{a,b}']);
    assert.equal(JSON.parse(inside.stdout).decision, 'allow', inside.stdout);
    const outside = explain(['--rules', rulesFile, '--cwd', dir, '--', 'ls /etc/host[n]ame']);
    assert.equal(JSON.parse(outside.stdout).reason, '`ls /etc/host[n]ame` in segment 1 touches `/etc/hostname` (/etc/hostname), outside the workspace');
  });

  it('says whether run would sandbox: never with --sandbox off; a bad --sandbox value exits 2', () => {
    const off = explain(['--cwd', dir, '--sandbox', 'off', '--', 'true']);
    assert.equal(JSON.parse(off.stdout).sandboxed, false);
    const bad = explain(['--cwd', dir, '--sandbox', 'maybe', '--', 'true']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^agent-bash explain: --sandbox maybe is not one of auto, on, off\n/);
  });

  it('denies with the rule and the segment, and joins words after --', () => {
    const r = explain(['--rules', rulesFile, '--cwd', dir, '--', 'ls', '&&', 'sudo', '/bin/rm', '-rf', 'build']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.decision, 'deny');
    assert.deepEqual(out.rule, { match: 'rm *', approval: 'deny' });
    assert.equal(out.reason, '`rm -rf build` in segment 2 matched deny rule `rm *`');
    assert.equal(out.summary, `Agent Bash would refuse it, because the deny rule \`rm *\` in ${rulesFile} matches \`sudo /bin/rm -rf build\`.`);
    assert.deepEqual(out.segments[1].argv, ['rm', '-rf', 'build']);
    // Each command of the line keeps its own rule, layer, code and reason (not only the deciding one).
    assert.equal(out.kind, 'rule');
    assert.deepEqual(
      out.segments.map((s: Record<string, unknown>) => [s.rule, s.layer, s.kind, s.reason]),
      [
        [{ match: 'ls *', approval: 'allow' }, 'file', 'rule', '`ls` in segment 1 matched allow rule `ls *`'],
        [{ match: 'rm *', approval: 'deny' }, 'file', 'rule', '`rm -rf build` in segment 2 matched deny rule `rm *`'],
      ],
    );
  });

  it('shows redirects, opaque segments and uncertainty', () => {
    const redirect = JSON.parse(explain(['--rules', rulesFile, '--cwd', dir, '--', 'ls > out.txt 2>&1']).stdout);
    assert.equal(redirect.decision, 'prompt');
    assert.deepEqual(redirect.segments[0].redirects, [{ op: '>', target: 'out.txt' }, { op: '>&', fd: '2', target: '1' }]);
    const opaque = JSON.parse(explain(['--rules', rulesFile, '--cwd', dir, '--', 'ls | xargs echo']).stdout);
    assert.deepEqual(opaque.segments.map((s: { opaque: boolean }) => s.opaque), [false, true]);
    const uncertain = JSON.parse(explain(['--cwd', dir, '--', '$cmd x']).stdout);
    assert.equal(uncertain.uncertain, true);
    assert.equal(uncertain.decision, 'prompt');
  });

  it("answers the issue's slow inputs: cubic critical regex, backtracking rules, deep nesting", function () {
    this.timeout(180_000); // five CLI starts on a loaded machine; each decision itself is bounded
    const slowRules = path.join(dir, 'slow.json');
    fs.writeFileSync(slowRules, JSON.stringify([{ match: '*a*a*a*a*a*a*a*a*a*b', approval: 'deny' }, { match: 'echo *', approval: 'allow' }]));
    const cases: Array<[string, string]> = [
      [`echo "${'curl|'.repeat(2000)}"`, 'allow'],
      [`echo ${'a'.repeat(40)}`, 'allow'],
      // A fresh process's first decision: the analyzer warms up at load, outside the budget (without
      // that, `echo a; ` × 50 was "too long to analyse" here).
      ['echo a; '.repeat(100), 'allow'],
      [`${'echo $('.repeat(1000)}ls${')'.repeat(1000)}`, 'prompt'],
      [`${'{ '.repeat(5000)}ls${'; }'.repeat(5000)}`, 'prompt'],
    ];
    for (const [cmd, decision] of cases) {
      // A long spawn timeout: CLI start-up is slow on a loaded machine; the decision is bounded.
      const s = spawnSync(process.execPath, [CLI, 'explain', '--rules', slowRules, '--cwd', dir, '--', cmd], { encoding: 'utf8', timeout: 60_000 });
      const r = { code: s.status, stdout: s.stdout, stderr: s.stderr };
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).decision, decision, cmd.slice(0, 40));
    }
    // A 50,000-`*a` rule is refused when the rules are read, with the limit in the message.
    fs.writeFileSync(slowRules, JSON.stringify([{ match: '*a'.repeat(50_000), approval: 'deny' }]));
    const bad = explain(['--rules', slowRules, '--', 'ls']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /\[0\]\.match: match is longer than 512 characters/);
  });

  it('with no rules (and --no-builtin-rules) everything prompts', () => {
    const r = explain(['--no-builtin-rules', '--', 'ls']);
    assert.equal(r.code, 0);
    const out = JSON.parse(r.stdout);
    assert.equal(out.decision, 'prompt');
    assert.equal(out.rule, null);
    assert.equal(out.layer, null);
    assert.equal(out.layerSource, null);
    assert.equal(out.reason, '`ls` in segment 1 matched no rule');
  });

  it('--workspace sets the roots, --cwd resolves relative paths', () => {
    const all = path.join(dir, 'all.json');
    fs.writeFileSync(all, JSON.stringify([{ match: '*', approval: 'allow' }]));
    const sub = path.join(dir, 'sub');
    fs.mkdirSync(sub, { recursive: true });
    assert.equal(JSON.parse(explain(['--rules', all, '--cwd', sub, '--', 'cat ../x']).stdout).decision, 'prompt');
    assert.equal(JSON.parse(explain(['--rules', all, '--cwd', sub, '--workspace', dir, '--', 'cat ../x']).stdout).decision, 'allow');
    assert.equal(JSON.parse(explain([`--rules=${all}`, `--cwd=${sub}`, `--workspace=${dir}`, '--', 'cat ../x']).stdout).decision, 'allow');
  });

  describe('exit 2 with a message', () => {
    const cases: Array<[string, () => string[], () => string]> = [
      ['unknown option', () => ['--nope', '--', 'ls'], () => 'unknown option: --nope'],
      ['missing --', () => ['ls'], () => 'the command must follow `--` (found ls where an option was expected)'],
      ['no -- at all', () => [], () => 'missing `--` before the command'],
      ['empty command', () => ['--'], () => 'empty command after `--`'],
      ['missing value', () => ['--rules'], () => 'option --rules needs a value'],
      ['value is --', () => ['--cwd', '--', 'ls'], () => 'option --cwd needs a value'],
      ['twice', () => ['--cwd', '/', '--cwd', '/', '--', 'ls'], () => 'option --cwd given twice'],
      ['bad cwd', () => ['--cwd', '/definitely/not/here', '--', 'ls'], () => '--cwd /definitely/not/here is not a directory'],
      ['missing rules file', () => ['--rules', path.join(dir, 'none.json'), '--', 'ls'], () => `cannot read rules file ${path.join(dir, 'none.json')}: ENOENT`],
    ];
    for (const [name, args, message] of cases) {
      it(name, () => {
        const r = explain(args());
        assert.equal(r.code, 2);
        assert.equal(r.stdout, '');
        assert.equal(r.stderr, `agent-bash explain: ${message()}\n${USAGE}\n`);
      });
    }

    it('rules file that is not JSON', () => {
      const bad = path.join(dir, 'bad.json');
      fs.writeFileSync(bad, '[{');
      const r = explain(['--rules', bad, '--', 'ls']);
      assert.equal(r.code, 2);
      assert.match(r.stderr, new RegExp(`^agent-bash explain: rules file ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON: `));
    });

    it('rules file with an invalid rule', () => {
      const bad = path.join(dir, 'invalid.json');
      fs.writeFileSync(bad, JSON.stringify([{ match: 'ls *', approval: 'allow' }, { match: 'rm *', approval: 'block' }]));
      const r = explain(['--rules', bad, '--', 'ls']);
      assert.equal(r.code, 2);
      assert.equal(r.stderr, `agent-bash explain: rules file ${bad}: [1].approval: approval must be "allow", "prompt" or "deny"\n${USAGE}\n`);
    });
  });
});
