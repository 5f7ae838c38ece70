import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PolicyRule, ShellAnalyzer } from '../../../../../src/core/contracts';
import { BUILTIN_GIT_FORMS, BUILTIN_READ_ONLY_PROGRAMS, BUILTIN_RULES } from '../../../../../src/core/policy/rules/builtinRules';
import { TEST_EXPANDER } from '../testExpander';
import { decide } from '../../../../../src/core/policy/policy';
import { judgeFind } from '../../../../../src/core/policy/programs/find';
import { JQ_LONG_OPTIONS, JQ_REASON, JQ_SHORT_FLAGS, judgeJq } from '../../../../../src/core/policy/programs/jq';
import { PARSE_PROBLEM, parseArgs, type ArgWord } from '../../../../../src/core/policy/programs/getopt';
import { hasProgramSpec, judgeProgram } from '../../../../../src/core/policy/programs/index';
import { SPEC_REASON } from '../../../../../src/core/policy/programs/judge';
import { spec as sortSpec } from '../../../../../src/core/policy/programs/sort';
import { createShellAnalyzer } from '../../../../../src/core/policy/analysis/shellAnalysis';

const words = (...t: string[]): ArgWord[] => t.map((text) => ({ text, dynamic: false }));

describe('core/policy/programs getopt_long reading', () => {
  it('a unique prefix of a long option is that option; an ambiguous one is a problem', () => {
    const p = parseArgs(sortSpec, words('--outp=x', 'f'));
    assert.equal(p.options[0].def.canonical, '--output');
    assert.equal(p.options[0].value, 'x');
    assert.deepEqual(p.canonicalShort, ['--output=x', 'f']);
    assert.equal(parseArgs(sortSpec, words('--c', 'f')).problem, PARSE_PROBLEM.ambiguous('sort', '--c', ['check', 'compress-program']));
    assert.equal(parseArgs(sortSpec, words('--frob')).problem, PARSE_PROBLEM.unknown('sort', '--frob'));
  });

  it('reads `--opt v`, clusters with attached values, `--`, `-` and options after operands', () => {
    assert.equal(parseArgs(sortSpec, words('--output', 'x')).options[0].value, 'x');
    const c = parseArgs(sortSpec, words('-uoout', 'f'));
    assert.deepEqual(c.options.map((o) => [o.def.canonical, o.value]), [['--unique', undefined], ['--output', 'out']]);
    assert.deepEqual(c.canonicalShort, ['-u', '-o', 'out', 'f']);
    assert.deepEqual(c.canonicalLong, ['--unique', '--output=out', 'f']);
    const d = parseArgs(sortSpec, words('f', '--', '-o', '-'));
    assert.deepEqual(d.operands.map((o) => o.text), ['f', '-o', '-']);
    assert.equal(parseArgs(sortSpec, words('f', '-o', 'x')).options[0].def.canonical, '--output', 'GNU permutation');
    assert.equal(parseArgs(sortSpec, words('--unique=1')).problem, PARSE_PROBLEM.noValue('sort', '--unique'));
    assert.equal(parseArgs(sortSpec, words('-o')).problem, PARSE_PROBLEM.needsValue('sort', '-o'));
  });

  it('a dynamic word that may be an option is a problem where options can write or run', () => {
    assert.equal(parseArgs(sortSpec, [{ text: '"$x"', dynamic: true }]).problem, PARSE_PROBLEM.dynamic('sort', '"$x"'));
    assert.equal(parseArgs(sortSpec, [{ text: 'src/$x', dynamic: true }]).problem, undefined);
    assert.equal(parseArgs(sortSpec, [{ text: '--output="$x"', dynamic: true }]).options[0].valueDynamic, true);
  });

  it('find reads its own expression: actions and unknown primaries ask, -newer reads a path', () => {
    assert.equal(judgeFind(words('.', '-name', '*.ts', '-print')).reason, undefined);
    assert.equal(judgeFind(words('.', '-delete')).reason, '`find -delete` removes files');
    assert.equal(judgeFind(words('.', '-fprint', 'o')).reason, SPEC_REASON.writes('find', '-fprint'));
    assert.equal(judgeFind(words('-files0-from', '-')).reason, SPEC_REASON.fileList('find', '-files0-from'));
    assert.equal(judgeFind(words('.', '-frob')).reason, '`find -frob` is not a primary the policy knows for `find`');
    assert.deepEqual(judgeFind(words('src', '-newer', '../x')).paths.map((p) => p.word), ['src', '../x']);
    assert.equal(judgeFind(words('.', '-name', 'x', '-exec', 'rm', '{}', ';')).reason, '`find -exec` runs a command for each match');
  });

  it('every program of the built-in list has a spec', () => {
    for (const p of BUILTIN_READ_ONLY_PROGRAMS) assert.ok(hasProgramSpec(p), p);
    for (const sub of BUILTIN_GIT_FORMS) assert.notEqual(judgeProgram('git', words(sub)), undefined, `git ${sub}`);
  });
});

describe('core/policy/programs: the policy sees what the program does', () => {
  let analyzer: ShellAnalyzer;
  let ws: string;
  before(async () => {
    analyzer = await createShellAnalyzer();
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-prog-'));
    fs.writeFileSync(path.join(ws, 'in.txt'), 'b\na\n');
    fs.mkdirSync(path.join(ws, '.vscode'));
  });
  after(() => fs.rmSync(ws, { recursive: true, force: true }));
  const run = (command: string, rules: PolicyRule[] = [...BUILTIN_RULES]) => decide(analyzer.analyze(command), rules, { cwd: ws, workspaceRoots: [ws], expander: TEST_EXPANDER });

  it('`sort --outp=X` really writes X, and the policy says it writes', () => {
    const out = path.join(ws, 'sorted.txt');
    const r = spawnSync('sort', ['--outp=sorted.txt', 'in.txt'], { cwd: ws, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(fs.readFileSync(out, 'utf8'), 'a\nb\n');
    const d = run('sort --outp=sorted.txt in.txt');
    assert.equal(d.decision, 'prompt');
    assert.match(d.reason, /`sort --outp` writes files/);
  });

  it('`sed --in-pl` really rewrites the file, and the policy says so', () => {
    fs.writeFileSync(path.join(ws, 'e.txt'), 'x\n');
    assert.equal(spawnSync('sed', ['--in-pl', 's/x/y/', 'e.txt'], { cwd: ws }).status, 0);
    assert.equal(fs.readFileSync(path.join(ws, 'e.txt'), 'utf8'), 'y\n');
    assert.match(run("sed --in-pl 's/x/y/' e.txt").reason, /`sed --in-pl` rewrites its input files/);
  });

  it("sed's `e` and `w` forms really run and write, and the policy asks for each", () => {
    spawnSync('sed', ['-n', '\\%x%Ie touch ran-e', 'in.txt'], { cwd: ws, input: '' });
    fs.writeFileSync(path.join(ws, 'x.txt'), 'x\n');
    spawnSync('sed', ['-n', '\\%x%Ie touch ran-e', 'x.txt'], { cwd: ws, input: '' });
    assert.ok(fs.existsSync(path.join(ws, 'ran-e')));
    assert.match(run("sed -n '\\%x%Ie touch ran-e' x.txt").reason, /script runs a command/);
    spawnSync('sed', ['-n', '/x/I,+2w written.txt', 'x.txt'], { cwd: ws });
    assert.ok(fs.existsSync(path.join(ws, 'written.txt')));
    assert.match(run("sed -n '/x/I,+2w written.txt' x.txt").reason, /script writes `written.txt`/);
  });

  it('written paths reach the protected-path check, and canonical spellings reach deny rules', () => {
    const d = run('sort --outp=.vscode/settings.json in.txt');
    assert.equal(d.kind, 'critical');
    assert.match(d.reason, /\.vscode\/settings\.json/);
    const deny: PolicyRule[] = [{ match: 'sort -o *', approval: 'deny' }, { match: 'sort *', approval: 'allow' }];
    assert.equal(run('sort --outp=x in.txt', deny).decision, 'prompt', 'the long spelling is not `sort -o`');
    assert.equal(run('sort -ox in.txt', deny).decision, 'deny', '`-ox` is `-o x`');
    assert.equal(run('sort -uox in.txt', [{ match: 'sort * -o *', approval: 'deny' }]).decision, 'deny', '`-uox` is `-u -o x`');
    assert.equal(run('sort --outp=x in.txt', [{ match: 'sort --output=*', approval: 'deny' }]).decision, 'deny');
    assert.equal(run('sed -n "w out" x.txt').decision, 'prompt');
  });

  it('a built-in allow never approves an unknown option, a writer, a runner or a path outside', () => {
    assert.equal(run('ls -la').decision, 'allow');
    for (const line of ['ls --frob', 'sort -o x in.txt', 'rg --pre cat x', 'cat /etc/passwd', 'grep -r x ..', 'find . -delete', 'git log --output=x']) {
      const d = run(line);
      assert.equal(d.decision, 'prompt', `${line}: ${d.reason}`);
    }
    assert.equal(run('head -n5 in.txt').decision, 'allow');
    assert.equal(run('git diff --outp=x').decision, 'prompt', 'git takes no abbreviations: an unlisted spelling asks');
    // bash expands the list to `-o x`: an option appears where the words as written had none.
    assert.match(run('sort {-o,x} in.txt').reason, /expands to `-o`, which the program would read as an option/);
    assert.equal(run('sort {a..c}').decision, 'allow', 'bash expands the sequence to `a b c`: no option');
    assert.equal(run('sort {-a,b}').decision, 'prompt', 'bash expands the list to `-a b`');
    assert.equal(run('echo *').decision, 'allow', 'nothing here is named like an option');
    assert.equal(run('date *').decision, 'prompt', 'date reads an operand that is not +FORMAT as a time to set');
  });

  it('an abbreviated option that follows links is seen as the option it is (`grep --deref`)', () => {
    fs.symlinkSync('/etc', path.join(ws, 'link'));
    try {
      const d = run('grep --deref x .');
      assert.equal(d.decision, 'prompt');
      assert.match(d.reason, /follows symbolic links/);
      assert.equal(run('grep -r x .').decision, 'allow');
    } finally {
      fs.rmSync(path.join(ws, 'link'));
    }
  });

  it('tar: the old style is read, only listing is plain, remote archives and programs ask', () => {
    const rules: PolicyRule[] = [{ match: 'tar *', approval: 'allow' }];
    assert.equal(run('tar tvf a.tar', rules).decision, 'allow');
    assert.equal(run('tar -tzf a.tgz', rules).decision, 'allow');
    assert.match(run('tar xvf a.tar', rules).reason, /`tar -x` writes files/);
    assert.match(run('tar -tf host:a.tar', rules).reason, /remote archive/);
    assert.match(run('tar --to-com=sh -xf a.tar', rules).reason, /`tar --to-com` names a program to run/);
    assert.match(run('tar -T list -cf a.tar', rules).reason, /reads a list of file names|writes files/);
    assert.match(run('tar tqf a.tar', rules).reason, /`tar -q` is not an option the policy knows/);
  });

  it('less: a log file in a cluster writes, `+` commands ask, abbreviations ask', () => {
    const rules: PolicyRule[] = [{ match: 'less *', approval: 'allow' }];
    assert.equal(run('less -N in.txt', rules).decision, 'allow');
    assert.match(run('less -so out in.txt', rules).reason, /`less -o` writes files/);
    assert.match(run('less +!id in.txt', rules).reason, /runs less commands at start/);
    assert.match(run('less --log-f=x in.txt', rules).reason, /`less --log-f` is not an option the policy knows/);
  });

  it('man: abbreviated pager and browser options are the options they abbreviate', () => {
    const rules: PolicyRule[] = [{ match: 'man *', approval: 'allow' }];
    assert.equal(run('man -k printf', rules).decision, 'allow');
    assert.match(run('man --pag=sh ls', rules).reason, /`man --pag` names a program to run/);
    assert.match(run('man -H ls', rules).reason, /`man -H` names a program to run/);
    assert.match(run('man -l /etc/passwd', rules).reason, /outside|\/etc\/passwd/);
  });

  it('a glob that would expand to an option-like file name asks', () => {
    fs.writeFileSync(path.join(ws, '-ofoo'), '');
    try {
      assert.equal(run('sort *').decision, 'prompt');
    } finally {
      fs.rmSync(path.join(ws, '-ofoo'));
    }
    assert.equal(run('sort *.txt').decision, 'allow');
  });
});

describe('core/policy/programs jq and the shell builtins', () => {
  it('jq accepts every option of its spec', function () {
    if (spawnSync('sh', ['-c', 'command -v jq']).status !== 0) this.skip();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-jq-'));
    try {
      fs.writeFileSync(path.join(dir, 'f.json'), '1\n');
      const bad: string[] = [];
      for (const [opt, { words: count, reads }] of Object.entries(JQ_LONG_OPTIONS)) {
        const values = Array.from({ length: count }, (_, k) => (reads === k + 1 ? 'f.json' : opt === '--from-file' ? 'f.json' : 'a'));
        const r = spawnSync('jq', [opt, ...values, '-n', '.'], { cwd: dir, input: '', encoding: 'utf8', timeout: 10000 });
        if (/Unknown option|Unknown arguments/i.test(r.stderr)) bad.push(`${opt}: ${r.stderr.trim()}`);
      }
      for (const c of JQ_SHORT_FLAGS) {
        const r = spawnSync('jq', [`-${c}`, '-n', '.'], { cwd: dir, input: '', encoding: 'utf8', timeout: 10000 });
        if (/Unknown option/i.test(r.stderr)) bad.push(`-${c}: ${r.stderr.trim()}`);
      }
      assert.deepEqual(bad, []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('jq: files are paths, the filter and --args values are not, modules ask', () => {
    assert.deepEqual(judgeJq(words('-r', '.a', 'x.json', '--slurpfile', 'v', 'y.json')).paths.map((p) => p.word), ['y.json', 'x.json']);
    assert.deepEqual(judgeJq(words('-n', '$ARGS', '--args', 'a', 'b')).paths, []);
    assert.equal(judgeJq(words('import "m" as m; .')).reason, JQ_REASON.modules());
    assert.equal(judgeJq(words('--frob', '.')).reason, PARSE_PROBLEM.unknown('jq', '--frob'));
  });

  it('printf -v asks in every spelling; echo, type, which, pwd take only their switches', () => {
    assert.equal(judgeProgram('printf', words('-v', 'x', '%s', 'y'))?.reason, SPEC_REASON.ask('printf', '-v'));
    assert.equal(judgeProgram('printf', words('-vx', '%s', 'y'))?.reason, SPEC_REASON.ask('printf', '-v'));
    assert.equal(judgeProgram('printf', words('%s', '-v'))?.reason, undefined, 'after the format, -v is an argument');
    assert.equal(judgeProgram('echo', words('-n', '--', '-e'))?.reason, undefined);
    assert.equal(judgeProgram('type', words('-P', 'ls'))?.reason, undefined);
    assert.equal(judgeProgram('which', words('-x', 'ls'))?.reason, PARSE_PROBLEM.unknown('which', '-x'));
  });
});
