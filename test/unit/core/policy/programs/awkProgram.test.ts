import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readAwkProgram } from '../../../../../src/core/policy/programs/awkProgram';

// awk itself is the judge: each program is run by gawk and mawk (where installed) in an empty
// folder with one input file; a program that created a file (by writing, or by running `touch`)
// must be one the reader reports, and the plain ones it lets through must create nothing.
const PROGRAMS: ReadonlyArray<[string, 'plain' | 'risky']> = [
  ['{print $1}', 'plain'],
  ['$1 > 5 {print $2}', 'plain'],
  ['{ a = $1 / 2; print a }', 'plain'],
  ['/x/ {n++} END {print n}', 'plain'],
  ['{print (NF > 0)}', 'plain'],
  ['{ printf "%s\\n", $0 }', 'plain'],
  ['{ s = s "|" $0 } END { print s }', 'plain'],
  ['$0 ~ /a|b/ || NR == 1 { print }', 'plain'],
  ['{ x[$1]++ } END { for (k in x) print k, x[k] }', 'plain'],
  ['{ print $1 > "W1" }', 'risky'],
  ['{ print $1 >> "W2" }', 'risky'],
  ['{ printf("%s", $0) > "W3" }', 'risky'],
  ['{ print > "W4" }', 'risky'],
  ['BEGIN { system("touch S1") }', 'risky'],
  ['{ print "touch S2" | "sh" }', 'risky'],
  ['BEGIN { "touch S3" | getline x }', 'risky'],
  ['BEGIN { f = "W5"; print "x" > f }', 'risky'],
  ['{ n = $1 / 2 } END { print n > "W6" }', 'risky'],
  ['BEGIN { a = 1; b = 2; print a, b > "W7" }', 'risky'],
  ['{ print $1, $2 > ("W" "8") }', 'risky'],
  ['BEGIN { printf "x" | "cat > W9" }', 'risky'],
  ['BEGIN { x = "/"; system("touch S4") }', 'risky'],
  ['$2 ~ /[/]/ { system("touch S5") }', 'risky'],
  ['BEGIN { print 1 / 2 / 3 > "W10" }', 'risky'],
];

describe('core/policy/programs awk program reader (awk is the judge)', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-awk-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const awk of ['gawk', 'mawk']) {
    it(`${awk}: every program that creates a file is reported, and the plain ones create nothing`, function () {
      if (spawnSync('sh', ['-c', `command -v ${awk}`]).status !== 0) this.skip();
      const wrong: string[] = [];
      for (const [program, expected] of PROGRAMS) {
        const found = readAwkProgram(program);
        const reported = found.runs === true || found.risk !== undefined;
        const work = fs.mkdtempSync(path.join(dir, 'run-'));
        fs.writeFileSync(path.join(work, 'in'), '7 a/b\n3 c\n');
        spawnSync(awk, [program, 'in'], { cwd: work, input: '', encoding: 'utf8', timeout: 10000 });
        const created = fs.readdirSync(work).filter((f) => f !== 'in');
        if (created.length > 0 && !reported) wrong.push(`${awk} created ${created.join(',')}, not reported: ${program}`);
        if (expected === 'risky' && created.length === 0) wrong.push(`${awk} created nothing for a program meant to write or run: ${program}`);
        if (expected === 'plain' && reported) wrong.push(`reported a plain program: ${program}: ${found.risk ?? 'runs'}`);
        fs.rmSync(work, { recursive: true, force: true });
      }
      assert.deepEqual(wrong, []);
    });
  }
});
