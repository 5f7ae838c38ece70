// Characters a person does not see (or sees as a space) anywhere in a command make it ask, naming
// the code point; bash reads them as part of a word, so `ls<NBSP>-la` runs a program `ls -la`.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { PolicyRule, ShellAnalyzer } from '../../../../../src/core/contracts';
import { INVISIBLE_REASON } from '../../../../../src/core/policy/analysis/invisibleChars';
import { decide } from '../../../../../src/core/policy/policy';
import { createShellAnalyzer } from '../../../../../src/core/policy/analysis/shellAnalysis';

const RULES: PolicyRule[] = [{ match: '*', approval: 'allow' }];

/** One from each family: non-ASCII spaces, zero-width, bidi controls, other format and control characters. */
const CODE_POINTS = [
  0x00a0, 0x1680, 0x2000, 0x2005, 0x2009, 0x200a, 0x202f, 0x205f, 0x3000, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff,
  0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c, 0x00ad, 0x180e,
  0x3164, 0xfe0f, 0x001b, 0x0007, 0x007f, 0x0085, 0xe000, 0xe0001, 0x0378,
];

describe('core/policy: invisible characters', () => {
  let analyzer: ShellAnalyzer;
  const run = (command: string) => decide(analyzer.analyze(command), RULES, { cwd: '/', workspaceRoots: ['/'] });
  before(async () => {
    analyzer = await createShellAnalyzer();
  });

  it('each makes the command ask, naming its code point and offset, quoted or not', () => {
    for (const cp of CODE_POINTS) {
      const ch = String.fromCodePoint(cp);
      const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
      for (const [command, offset] of [[`ls${ch}-la`, 2], [`echo 'a${ch}b'`, 7], [`printf %s x${ch}`, 11]] as const) {
        const d = run(command);
        assert.equal(d.decision, 'prompt', `${hex} in ${JSON.stringify(command)}`);
        // C0 controls and U+0085 were already named by the raw-text scan (a construct, or a line separator).
        if (cp >= 0xa0) assert.equal(d.reason, INVISIBLE_REASON(hex, offset), `${hex} in ${JSON.stringify(command)}`);
      }
    }
  });

  it('tab, newline and visible non-ASCII letters do not', () => {
    for (const command of ['ls\t-la', 'ls\nls -la', "echo 'café' naïve", 'echo 日本語']) assert.equal(run(command).decision, 'allow', command);
  });

  it('bash reads a no-break space as part of the word: the program is another one', () => {
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', 'ls\u00a0-la'], { encoding: 'utf8' });
    assert.equal(r.status, 127);
  });
});
