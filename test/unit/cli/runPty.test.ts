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
