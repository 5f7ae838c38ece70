import * as assert from 'assert';
import { Worker } from 'worker_threads';
import { cpuNow, cpuClockSource } from '../../../../src/core/util/cpuClock';

// The policy's budgets must count the deciding thread's CPU only: another thread busy at the same
// time (V8's compilers, the bash expander's worker starting) is not the decision's cost.
describe('policy CPU clock', () => {
  it('reads this thread\'s own run time on Linux', () => {
    assert.equal(cpuClockSource(), 'thread');
  });

  it('does not count a worker thread that burns 150 ms of CPU while this thread sleeps', async () => {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const mainBefore = cpuNow();
    const processBefore = process.cpuUsage();
    // The worker spins until ITS OWN clock says 150 ms, then wakes this thread: a condition, not a guess.
    const worker = new Worker(
      `const { workerData } = require('worker_threads');
       const { cpuNow } = require(${JSON.stringify(require.resolve('../../../../src/core/util/cpuClock'))});
       const flag = new Int32Array(workerData);
       const start = cpuNow();
       while (cpuNow() - start < 150) { /* spin */ }
       Atomics.store(flag, 0, 1);
       Atomics.notify(flag, 0);`,
      { eval: true, workerData: flag.buffer },
    );
    try {
      // Sleeps without CPU until the worker is done (bounded: a broken worker fails the test, not hangs it).
      while (Atomics.load(flag, 0) === 0) {
        if (Atomics.wait(flag, 0, 0, 60_000) === 'timed-out') throw new Error('the worker never finished');
      }
      const mainSpent = cpuNow() - mainBefore;
      const p = process.cpuUsage(processBefore);
      const processSpent = (p.user + p.system) / 1000;
      assert.ok(processSpent >= 150, `process CPU ${processSpent} ms`);
      assert.ok(mainSpent < 100, `this thread was charged ${mainSpent} ms for the worker's 150 ms`);
    } finally {
      await worker.terminate();
    }
  });
});
