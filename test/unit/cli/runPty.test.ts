import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

const CLI = path.resolve(__dirname, '../../../../dist/cli.js');

function runCli(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    // Decoded as a stream: a UTF-8 character split across two chunks stays whole.
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    // Typed after the program is waiting for it.
    setTimeout(() => child.stdin.end(stdin), 500);
  });
}

describe('cli: run --pty', () => {
  it('forwards stdin to the program and draws its screen on stderr, the result on stdout', async () => {
    const r = await runCli(['run', '--pty', '--yes', '--timeout', '20', '--', 'read x; echo got-$x'], 'hello\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^hello\ngot-hello\n\nWall time: [\d.]+ seconds\n$/);
    assert.match(r.stderr, /got-hello/);
  });
});

describe('cli: run --pty at end of input', function () {
  this.timeout(60_000);

  /** Runs with stdin already at its end: /dev/null, or a pipe closed after `input`. */
  function runAtEof(command: string, input: string | undefined): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const stdin = input === undefined ? 'ignore' : 'pipe';
      const child = spawn(process.execPath, [CLI, 'run', '--pty', '--yes', '--timeout', '30', '--', command], { stdio: [stdin, 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (b: Buffer) => (stdout += String(b)));
      child.stderr?.on('data', (b: Buffer) => (stderr += String(b)));
      child.once('close', (code) => resolve({ code, stdout, stderr }));
      if (input !== undefined) child.stdin?.end(input);
    });
  }

  // Without the forwarded Ctrl+D, `read` waits for the 30 s timeout and the result says so.
  it('delivers EOF to `read` when stdin is /dev/null', async () => {
    const r = await runAtEof('read x; echo "read=$? x=[$x]"', undefined);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^read=1 x=\[\]\n\nWall time: [\d.]+ seconds\n$/);
  });

  it('delivers EOF after a last line without a newline (two Ctrl+D: the line, then the end)', async () => {
    const r = await runAtEof('read x; echo "read=$? x=[$x]"', 'abc');
    assert.equal(r.code, 0, r.stderr);
    // The terminal echoes what was typed before the program prints.
    assert.match(r.stdout, /^abcread=1 x=\[abc\]\n\nWall time: [\d.]+ seconds\n$/);
  });

  it('delivers EOF after whole lines', async () => {
    const r = await runAtEof('while read -r x; do echo "got [$x]"; done; echo "end $?"', 'one\ntwo\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /got \[one\]\n(.|\n)*got \[two\]\nend 0\n\nWall time: [\d.]+ seconds\n$/);
  });
});
