// Which words go to the expander: the fast path (no expansion syntax, no helper) and the strict
// lexical check (only literal characters, quotes, backslashes and glob/brace/tilde syntax).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { EXPANSION, globs, lexicalProblem, needsExpansion } from '../../../../../src/core/policy/analysis/wordExpansion';

describe('core/policy/wordExpansion', () => {
  it('needs the expander only for unquoted, unescaped tilde, brace or glob syntax', () => {
    for (const w of ['~', 'a*', '?', '[ab]', '{a,b}', 'x{1..3}', "'a'*", "a=~/x", 'b:~/y', 'a\\\\*']) assert.equal(needsExpansion(w), true, w);
    for (const w of ['HEAD~1', 'a~b', 'plain', '-la', "'*'", '"{a,b}"', '\\*', '\\~', 'a\\[b]', "'~'/x", '"a*b"']) assert.equal(needsExpansion(w), false, w);
    assert.equal(globs('~/x{a,b}'), false);
    assert.equal(globs('~/x[ab]'), true);
  });

  it('passes literal words with glob, brace and tilde syntax, quotes and escapes', () => {
    for (const w of ['*.ts', '~/x', '~root/x', '~+/x', 'a=~/x', "'a b'*", '"x y"{1,2}', '\\;*', '[[:alpha:]]', '[!a]*', '{a..z..2}', 'é*', '"a;b"*', "'$x'*", '{a..c}', '{A..C}', '{1..9}']) {
      assert.equal(lexicalProblem(w), undefined, w);
    }
  });

  it('refuses anything else, saying what', () => {
    const cases: Array<[string, string]> = [
      ['$x*', EXPANSION.lexical('`$` (an expansion)')],
      ['"$x"*', EXPANSION.lexical('`$` (an expansion)')],
      ["$'\\x41'*", EXPANSION.lexical('`$` (an expansion)')],
      ['`id`*', EXPANSION.lexical('a backtick (command substitution)')],
      ['a;b*', EXPANSION.lexical('`;`')],
      ['a>b*', EXPANSION.lexical('`>`')],
      ['a(b)*', EXPANSION.lexical('`(`')],
      ['a b*', EXPANSION.lexical('white space')],
      ['a\nb*', EXPANSION.lexical('a newline')],
      ['a\\\nb*', EXPANSION.lexical('a line continuation')],
      ['a*\\', EXPANSION.lexical('a trailing backslash')],
      ["'a*", EXPANSION.lexical('an unbalanced quote')],
      ['#*', EXPANSION.lexical('a leading `#`')],
      ['a\u00a0*', EXPANSION.lexical('white space')],
      ['~-', EXPANSION.dirStack],
      ['~-/x', EXPANSION.dirStack],
      ['~+2', EXPANSION.dirStack],
      ['~1/x', EXPANSION.dirStack],
      ['x=~-', EXPANSION.dirStack],
      ['{Z..a}', EXPANSION.mixedCaseSequence('{Z..a}')],
      ['x{a..Z..2}y', EXPANSION.mixedCaseSequence('{a..Z..2}')],
      ['{A..z..+1}', EXPANSION.mixedCaseSequence('{A..z..+1}')],
    ];
    for (const [w, why] of cases) assert.equal(lexicalProblem(w), why, JSON.stringify(w));
  });

  it('a letter sequence across cases makes bash scan a backtick for a command (why it is refused)', () => {
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', "printf '%s\\n' x{Z..c}y"], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /bad substitution: no closing "`"/);
  });
});
