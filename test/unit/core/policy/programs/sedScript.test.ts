import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSedScript } from '../../../../../src/core/policy/programs/sedScript';

// GNU sed is the judge: every script the parser reads, sed compiles too (`sed --debug` prints the
// program it compiled), and every script that really runs a command or creates a file when sed
// runs it (in a temp dir) is one the parser reports as running or writing.

const ADDRESSES = ['', '1', '$', '/x/', '\\%x%', '\\,x,I', '/x/I,+1', '0,/x/', '1~2', '2,~4', '1!', '/x/M !', '$!', '/x/,/y/', '\\|x|MI'];
const COMMANDS = [
  'p', 'e touch E1', 's/x/touch E2/e', 'w W1', 's/x/y/w W2', 'W W3', 'r R1', 'R R2', 'a text', 'a\\\ntext', 'i\\  lead',
  'c foo', 'y/x/y/', 'l', 'l 5', 'q', 'q5', 'Q', '=', 'F', 'z', '{p}', '{e touch E3\n}', 'b', 'bend;:end', 's/x/y/gpI',
  's|x|touch E4|e', 's/x/touch E5/2e', 's,x,y,Mw W4', 'N', 'x;G', 'h;H;g', 'D', 'P', 'n', 'v', 'T', 't lbl;:lbl',
];
const EXTRA = [
  'a foo\\\ne touch E6', '$!{e touch E7\n}', '#n\ne touch E8', ':a;e touch E9', '1e touch E10', '/x/Ie touch E11',
  '\\%x%Me touch E12', 'y/abc/xyz/;e touch E13', 's/x/y/;e touch E14', '1{\n/x/{\ne touch E15\n}\n}', 'a\\', 'i\\\n',
  's/[/]/x/', 's/\\//x/', 's/x/\\n/g', 'k', 's/x/y/z', '/x', '1,', '}', '{p', 's/x/y', 'y/ab/c/', '1~', ':', '2,+x p',
  's/x/y/ ; p', 's/x/y/ # comment', 'p # e touch E16', '1 ! ! p', 'a\ttab', '0~3p', '$ p', 'e', 'w /dev/stdout',
  's/x/y/w /dev/stderr', 'r /dev/stdin', 'l;l', '{;p;}', 'b x; :x', 'q 3', 'Q 4', 's/a/b/3g', 'c\\\nline1\\\nline2',
  's/[/]/touch E17/e', '/[/]/e touch E18', 's/a[/b/c/', 's/[[:alpha:]/]/x/', 's/[]/]/x/', 's/[^/]/x/', 's/x/[/]/',
  '1:a', '1}', '{1}', 'y/a\\/b/xyz/', 'y/a\\nb/xyz/', 's/[\\n]/x/', 's/[a/', 's/[[:alpha:]/]/touch E19/e', 's/[[.a.]]/x/w W5',
];

function corpus(): string[] {
  const out: string[] = [...EXTRA];
  for (const a of ADDRESSES) for (const c of COMMANDS) out.push(`${a}${c}`);
  return out;
}

describe('core/policy/programs sed script parser (GNU sed is the judge)', () => {
  let dir: string;
  before(function () {
    if (spawnSync('sed', ['--version'], { encoding: 'utf8' }).stdout.indexOf('GNU sed') < 0) this.skip();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-sed-'));
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads the address forms and commands of issue 17', () => {
    const s = parseSedScript('\\%x%Ie touch y');
    assert.equal(s.runs, true);
    assert.deepEqual(parseSedScript("/x/I,+2w out").writes, ['out']);
    assert.deepEqual(parseSedScript('s/a/b/gw file;p').writes, ['file;p']);
    assert.deepEqual(parseSedScript('1r in.txt').reads, ['in.txt']);
    assert.deepEqual(parseSedScript('0,/re/{p;q5}').commands, ['{', 'p', 'q', '}']);
    assert.equal(parseSedScript('a foo;e touch x').runs, false, 'one-line `a` text runs to the end of the line');
    assert.equal(parseSedScript('a foo\ne touch x').runs, true);
    assert.equal(parseSedScript('k').error, 'unknown command `k` at character 2');
  });

  const all = corpus();
  it(`agrees with sed on ${all.length} scripts: what it reads sed compiles, and what runs or writes is reported`, function () {
    this.timeout(120000);
    const wrong: string[] = [];
    for (const script of all) {
      const parsed = parseSedScript(script);
      // In a scratch folder: sed opens a script's `w` files when it compiles it (they were left in the checkout).
      const compiled = spawnSync('sed', ['--debug', '-n', script], { cwd: dir, input: '', encoding: 'utf8', timeout: 10000 });
      if (parsed.error === undefined && compiled.status !== 0) wrong.push(`parser read what sed refuses: ${JSON.stringify(script)}: ${compiled.stderr.trim()}`);
      if (parsed.error !== undefined && compiled.status === 0) wrong.push(`parser refused what sed reads: ${JSON.stringify(script)}: ${parsed.error}`);
      // Run it for real in an empty folder with one input file: any new file is a write or a run.
      const work = fs.mkdtempSync(path.join(dir, 'run-'));
      fs.writeFileSync(path.join(work, 'in'), 'x\ny\nabc\n');
      spawnSync('sed', ['-n', script, 'in'], { cwd: work, input: '', encoding: 'utf8', timeout: 10000 });
      const created = fs.readdirSync(work).filter((f) => f !== 'in');
      const reported = parsed.error !== undefined || parsed.runs || parsed.writes.length > 0;
      if (created.length > 0 && !reported) wrong.push(`sed created ${created.join(',')} but the parser saw no run or write: ${JSON.stringify(script)}`);
      fs.rmSync(work, { recursive: true, force: true });
    }
    assert.deepEqual(wrong, []);
  });
});
