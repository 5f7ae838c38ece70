import assert from 'node:assert/strict';
import os from 'node:os';
import type { JobInfo, ToolResult } from '../../../src/core/contracts';
import { jobLabel, jobsAtCapacityMessage } from '../../../src/core/jobLimits';
import { autoBackgroundApplies } from '../../../src/core/autoBackground';
import { autoBackgroundWaitMs, BashJobManager } from '../../../src/exec/jobManager';
import { LocalShellExecutor } from '../../../src/exec/localExecutor';
import { FakeSink, sleep, waitFor } from './helpers';

const ok = (text: string): ToolResult => ({ content: [{ type: 'text', text }], details: {} });

function completion(jobs: BashJobManager): Promise<JobInfo> {
  return new Promise((resolve) => {
    const off = jobs.onDidComplete((job) => {
      off();
      resolve(job);
    });
  });
}

describe('exec: BashJobManager', () => {
  it('runs a job: running at once, then completed, delivered exactly once', async () => {
    const jobs = new BashJobManager();
    const delivered: JobInfo[] = [];
    jobs.onDidComplete((job) => delivered.push(job));
    const info = jobs.register('echo hi', async () => {
      await sleep(50);
      return ok('hi');
    });
    assert.equal(info.id, 'job-1');
    assert.equal(info.state, 'running');
    assert.equal(info.label, 'echo hi');
    assert.equal(jobs.list().length, 1);
    await waitFor(() => delivered.length > 0, 2000);
    await sleep(50);
    assert.equal(delivered.length, 1);
    assert.equal(delivered[0].state, 'completed');
    assert.deepEqual(delivered[0].result?.details.async, { state: 'completed', jobId: 'job-1', type: 'bash' });
    assert.equal(delivered[0].result.content[0].text, 'hi');
    assert.ok((delivered[0].endedAt ?? 0) >= delivered[0].startedAt);
    assert.equal(jobs.get('job-1')?.state, 'completed');
    await jobs.dispose();
  });

  it('marks a non-zero exit, a timeout and a throw as failed', async () => {
    const jobs = new BashJobManager();
    const exit = jobs.register('false', async () => ({ content: [{ type: 'text', text: 'x' }], details: { exitCode: 1 }, isError: true }));
    const timeout = jobs.register('sleep', async () => ({ content: [{ type: 'text', text: 't' }], details: { timedOut: true } }));
    const thrown = jobs.register('boom', async () => {
      throw new Error('exploded');
    });
    await waitFor(() => jobs.list().every((j) => j.state !== 'running'), 2000);
    for (const job of [exit, timeout, thrown]) assert.equal(jobs.get(job.id)?.state, 'failed', job.label);
    const failed = jobs.get(thrown.id)?.result;
    assert.equal(failed?.content[0].text, 'exploded');
    assert.equal(failed.isError, true);
    assert.deepEqual(failed.details.async, { state: 'failed', jobId: thrown.id, type: 'bash' });
    await jobs.dispose();
  });

  it('cancels through the job signal', async () => {
    const jobs = new BashJobManager();
    const done = completion(jobs);
    const info = jobs.register('sleep 100', (ctx) => new Promise((resolve) => {
      if (ctx.signal.aborted) resolve(ok('stopped before start'));
      ctx.signal.addEventListener('abort', () => resolve(ok('stopped')));
    }));
    await sleep(20);
    assert.equal(jobs.cancel(info.id), true);
    const job = await done;
    assert.equal(job.state, 'cancelled');
    assert.equal(jobs.cancel(info.id), false);
    assert.equal(jobs.cancel('job-999'), false);
    await jobs.dispose();
  });

  it('keeps a 50 KiB tail of progress and reports changes', async () => {
    const jobs = new BashJobManager();
    const changes: string[] = [];
    jobs.onDidChange((job) => changes.push(job.tail));
    let progress: ((tail: string) => void) | undefined;
    let finish: (() => void) | undefined;
    const info = jobs.register('gen', (ctx) => {
      progress = (tail) => ctx.onProgress(tail);
      return new Promise((resolve) => {
        finish = () => resolve(ok('done'));
      });
    });
    await waitFor(() => progress !== undefined, 1000);
    progress?.(`${'x'.repeat(60 * 1024)}END`);
    const tail = jobs.get(info.id)?.tail ?? '';
    assert.equal(Buffer.byteLength(tail), 50 * 1024);
    assert.ok(tail.endsWith('xEND'));
    assert.ok(changes.some((t) => t.endsWith('END')));
    finish?.();
    await jobs.dispose();
  });

  it('enforces the cap with atCapacity()', async () => {
    const jobs = new BashJobManager(2);
    const releases: Array<() => void> = [];
    const slow = (): Promise<ToolResult> => new Promise((resolve) => releases.push(() => resolve(ok('ok'))));
    jobs.register('a', slow);
    assert.equal(jobs.atCapacity(), false);
    jobs.register('b', slow);
    assert.equal(jobs.atCapacity(), true);
    assert.throws(() => jobs.register('c', slow), { message: jobsAtCapacityMessage(2) });
    assert.equal(jobsAtCapacityMessage(2), 'Too many background jobs are running (limit 2). Wait for one to finish or cancel one, then try again.');
    await waitFor(() => releases.length === 2, 1000);
    releases[0]();
    assert.ok(await waitFor(() => !jobs.atCapacity(), 1000));
    releases[1]();
    await jobs.dispose();
  });

  it('cuts labels longer than 120 characters to 117 plus `...`', () => {
    assert.equal(jobLabel('a'.repeat(120)), 'a'.repeat(120));
    assert.equal(jobLabel('b'.repeat(121)), `${'b'.repeat(117)}...`);
    const jobs = new BashJobManager();
    const info = jobs.register('c'.repeat(200), async () => ok(''));
    assert.equal(info.label.length, 120);
    return jobs.dispose();
  });

  it('never backgrounds a call whose timeout is not longer than the threshold (it reports its own timeout)', () => {
    assert.equal(autoBackgroundApplies(45_000, 3_000), false);
    assert.equal(autoBackgroundApplies(45_000, 45_000), false);
    assert.equal(autoBackgroundApplies(45_000, 45_001), true);
    assert.equal(autoBackgroundApplies(45_000, 0), true);
    assert.equal(autoBackgroundApplies(0, 3_000), true);
  });

  it('computes the auto-background wait as max(0, min(threshold, timeout − 1000))', () => {
    assert.equal(autoBackgroundWaitMs(60_000, 300_000), 60_000);
    assert.equal(autoBackgroundWaitMs(60_000, 30_000), 29_000);
    assert.equal(autoBackgroundWaitMs(60_000, 500), 0);
    assert.equal(autoBackgroundWaitMs(60_000, 0), 60_000);
    assert.equal(autoBackgroundWaitMs(0, 300_000), 0);
    assert.equal(autoBackgroundWaitMs(-5, 0), 0);
    assert.equal(autoBackgroundWaitMs(1500.7, 0), 1500);
  });

  it('auto-background: a fast job is handed over inline, a slow one is delivered later', async () => {
    const jobs = new BashJobManager();
    const delivered: string[] = [];
    jobs.onDidComplete((job) => delivered.push(job.id));

    const fast = jobs.register('fast', async () => ok('fast'), { suppressDelivery: true });
    assert.equal(await jobs.waitFor(fast.id, 1000), 'done');
    assert.equal(jobs.consumeResult(fast.id)?.content[0].text, 'fast');

    const slow = jobs.register('slow', async () => {
      await sleep(300);
      return ok('slow');
    }, { suppressDelivery: true });
    assert.equal(await jobs.waitFor(slow.id, 50), 'timer');
    jobs.resumeDelivery(slow.id);
    await waitFor(() => delivered.length > 0, 2000);
    await sleep(50);
    assert.deepEqual(delivered, [slow.id]);

    const controller = new AbortController();
    const aborted = jobs.register('abort', () => sleep(200).then(() => ok('')), { suppressDelivery: true });
    setTimeout(() => controller.abort(), 20);
    assert.equal(await jobs.waitFor(aborted.id, 5000, controller.signal), 'aborted');
    await jobs.dispose();
  });

  it('runs a real command as a job with tail progress', async () => {
    const jobs = new BashJobManager();
    const executor = new LocalShellExecutor();
    const done = completion(jobs);
    const tails: string[] = [];
    jobs.onDidChange((job) => tails.push(job.tail));
    jobs.register('echo one; sleep 0.3; echo two', async (ctx) => {
      const sink = new FakeSink();
      const push = sink.push.bind(sink);
      sink.push = (chunk) => {
        push(chunk);
        ctx.onProgress(sink.text());
      };
      const res = await executor.run({
        command: 'echo one; sleep 0.3; echo two',
        cwd: os.tmpdir(),
        timeoutMs: 5000,
        signal: ctx.signal,
        sessionKey: `s:async:${ctx.jobId}`,
        sink,
      });
      return { content: [{ type: 'text', text: res.summary.output }], details: res.exitCode ? { exitCode: res.exitCode } : {} };
    });
    const job = await done;
    assert.equal(job.state, 'completed');
    assert.equal(job.result?.content[0].text, 'one\ntwo\n');
    assert.ok(tails.includes('one\n'));
    assert.equal(job.tail, 'one\ntwo\n');
    await jobs.dispose();
    await executor.dispose();
  });
});
