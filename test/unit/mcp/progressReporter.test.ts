// Progress for MCP clients: the newest output at most every interval, and a keep-alive while silent.
import assert from 'node:assert/strict';
import { keepAliveMessage, ProgressReporter } from '../../../src/mcp/progressReporter';

describe('mcp/progressReporter', () => {
  it('sends a keep-alive while nothing new happens, and nothing after stop', async () => {
    const sent: Array<{ n: number; message: string }> = [];
    let notify: () => void = () => undefined;
    const reporter = new ProgressReporter((n, message) => {
      sent.push({ n, message });
      notify();
      return Promise.resolve();
    }, 5, 40);
    // Two beats, waited for as they arrive (no guess of how long they take).
    await new Promise<void>((resolve) => {
      notify = () => {
        if (sent.length >= 2) resolve();
      };
    });
    reporter.stop();
    const count = sent.length;
    assert.deepEqual(sent.slice(0, 2).map((s) => s.n), [1, 2]);
    assert.match(sent[0].message, /^Still running after \d+ s \(waiting for output or for the user's approval\)\.$/);
    assert.equal(keepAliveMessage(12), "Still running after 12 s (waiting for output or for the user's approval).");
    // A stopped reporter's interval is gone: one more update sends nothing.
    reporter.update('late');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(sent.length, count);
  });

  it('sends output as it comes and no keep-alive while output flows', async () => {
    const sent: string[] = [];
    const reporter = new ProgressReporter((_n, message) => (sent.push(message), Promise.resolve()), 1, 60_000);
    reporter.update('a');
    reporter.stop();
    assert.deepEqual(sent, ['a']);
  });
});
