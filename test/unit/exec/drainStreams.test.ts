import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { drainStreams } from '../../../src/exec/runControl';

/** Blocks the event loop, as a loaded machine or a busy extension host does. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: nothing else runs
  }
}

describe('exec: drainStreams', () => {
  it('reads bytes that reached the pipe while the event loop stalled past the idle window', async () => {
    // A child holds the pipe open (no EOF) and writes once, 100 ms in: exactly the case the idle
    // window exists for. The loop stalls past both the idle window and the write.
    const child = spawn('/bin/bash', ['-c', 'sleep 0.1; printf late; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      let seen = '';
      child.stdout.on('data', (b: Buffer) => (seen += b.toString('utf8')));
      await new Promise((r) => child.once('spawn', r));
      const drained = drainStreams([child.stdout], 50, 5000);
      stall(1500);
      await drained;
      assert.equal(seen, 'late');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('still ends after the idle window when nothing more comes', async () => {
    const child = spawn('/bin/bash', ['-c', 'exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise((r) => child.once('spawn', r));
      const started = Date.now();
      await drainStreams([child.stdout], 50, 5000);
      const took = Date.now() - started;
      assert.ok(took < 4000, `drain took ${took} ms: the idle window did not end it`);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
