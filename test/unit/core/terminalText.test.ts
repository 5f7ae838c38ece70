// What Agent Bash draws of its own in a terminal shows every character and obeys none.
import * as assert from 'node:assert/strict';
import { headerDescription, oneLine, visible } from '../../../src/core/terminalText';

describe('core/terminalText: header lines show what they hold', () => {
  it('escape sequences, bells and bidirectional overrides are shown, not obeyed', () => {
    assert.equal(visible('ls\x1b]0;pwned\x07'), 'ls␛]0;pwned␇');
    assert.equal(visible('a\x9bb\x7fc'), 'a\ufffdb\u2421c');
    assert.equal(visible('echo \u202egnp.exe'), 'echo \ufffdgnp.exe');
    assert.equal(visible('plain ünïcode ✓'), 'plain ünïcode ✓');
  });

  it('a multi-line command is one line with ⏎ marks', () => {
    assert.equal(oneLine('echo a  \n  echo b\necho c'), 'echo a ⏎ echo b ⏎ echo c');
  });

  it('a description is one line of at most 200 characters', () => {
    assert.equal(headerDescription('  List the files\n in src  '), 'List the files ⏎ in src');
    const long = headerDescription('x'.repeat(300));
    assert.equal(long.length, 200);
    assert.equal(long, `${'x'.repeat(199)}…`);
    assert.equal(headerDescription('bad \x1b[2J clear'), 'bad ␛[2J clear');
  });
});
