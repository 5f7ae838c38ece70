// What Agent Bash draws of its own in a terminal shows every character and obeys none.
import * as assert from 'node:assert/strict';
import { headerDescription, oneLine, statusWithRefusal, terminalStatusLine, visible } from '../../../src/core/terminalText';

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

  it("a sandboxed command the sandbox refused: the status line says so in the notification's words", () => {
    const output = "/bin/bash: line 1: /tmp/out/x.txt: Read-only file system\n";
    assert.equal(
      statusWithRefusal('exit code 1', { sandboxed: true, exitCode: 1, output }),
      'exit code 1 · The sandbox kept this command from writing /tmp/out/x.txt.',
    );
    // Not sandboxed (a read-only /proc file, say), or it succeeded, or nothing was refused: as it was.
    assert.equal(statusWithRefusal('exit code 1', { sandboxed: false, exitCode: 1, output }), 'exit code 1');
    assert.equal(statusWithRefusal('exit code 0', { sandboxed: true, exitCode: 0, output }), 'exit code 0');
    assert.equal(statusWithRefusal('exit code 2', { sandboxed: true, exitCode: 2, output: 'ls: cannot access x\n' }), 'exit code 2');
    assert.equal(statusWithRefusal('stopped with Ctrl+C', { sandboxed: true, exitCode: null, output }), 'stopped with Ctrl+C · The sandbox kept this command from writing /tmp/out/x.txt.');
  });

  it('a command a sandbox did not hold says so on its status line; no sandbox at all, or a sandboxed one, adds nothing', () => {
    const output = "/bin/bash: line 1: /tmp/out/x.txt: Read-only file system\n";
    assert.equal(terminalStatusLine('exit code 0', { level: 'contained', exitCode: 0, output: '' }), 'exit code 0 · outside the sandbox');
    assert.equal(terminalStatusLine('stopped with Ctrl+C', { level: 'plain', exitCode: null, output: '' }), 'stopped with Ctrl+C · outside the sandbox');
    assert.equal(terminalStatusLine('exit code 0', { level: 'sandboxed', exitCode: 0, output: '' }), 'exit code 0');
    assert.equal(terminalStatusLine('exit code 1', { level: 'sandboxed', exitCode: 1, output }), 'exit code 1 · The sandbox kept this command from writing /tmp/out/x.txt.');
    assert.equal(terminalStatusLine('exit code 1', { level: undefined, exitCode: 1, output }), 'exit code 1');
    // A read the fence held says so; a fenced line outside the sandbox cannot be (it never runs unfenced).
    assert.equal(terminalStatusLine('exit code 0', { level: 'sandboxed', exitCode: 0, output: '', fenced: true }), 'exit code 0 · read-only');
    assert.equal(terminalStatusLine('exit code 0', { level: 'sandboxed', exitCode: 0, output: '', fenced: false }), 'exit code 0');
  });
});
