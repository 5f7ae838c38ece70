import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileArtifactStore } from '../../../../src/core/output/artifacts';
import type { OutputSummary, TimeoutInfo } from '../../../../src/core/contracts';
import { ToolAbortError, ToolError } from '../../../../src/core/errors';
import { OutputSink } from '../../../../src/core/output/outputSink';
import {
  buildBackgroundStartResult,
  buildCompletedResult,
  errorResult,
  PTY_UNAVAILABLE_NOTICE,
  summaryFromClientOutput,
  timeoutMessage,
} from '../../../../src/core/output/results';

const T300: TimeoutInfo = { requested: 300, timeoutSec: 300, timeoutMs: 300000 };
const CLAMP = 'Timeout clamped to 3600s (requested 5000s; allowed range 1-3600s; `timeout` is in seconds, not milliseconds).';

function summary(output: string, extra: Partial<OutputSummary> = {}): OutputSummary {
  const bytes = Buffer.byteLength(output);
  const lines = output ? output.split('\n').length : 0;
  return { output, truncated: false, totalLines: lines, totalBytes: bytes, outputLines: lines, outputBytes: bytes, ...extra };
}

const textOf = (r: { content: Array<{ text: string }> }): string => r.content.map((c) => c.text).join('');

describe('results', () => {
  describe('buildCompletedResult', () => {
    it('success: output, blank line, wall time; no isError, no exitCode', async () => {
      const r = await buildCompletedResult({ summary: summary('hi'), exitCode: 0, notices: [], wallTimeMs: 420, timeout: T300 });
      assert.deepEqual(r, {
        content: [{ type: 'text', text: 'hi\n\nWall time: 0.42 seconds' }],
        details: { timeoutSeconds: 300, wallTimeMs: 420 },
      });
    });

    it('empty output becomes (no output); wall time has two decimals', async () => {
      const r = await buildCompletedResult({ summary: summary(''), exitCode: 0, notices: [], wallTimeMs: 1234.5, timeout: T300 });
      assert.equal(textOf(r), '(no output)\n\nWall time: 1.23 seconds');
    });

    it('non-zero exit: notices in order after the wall time, then the exit line; isError and exitCode', async () => {
      const timeout: TimeoutInfo = { requested: 5000, timeoutSec: 3600, timeoutMs: 3600000, notice: CLAMP };
      const r = await buildCompletedResult({
        summary: summary('out'),
        exitCode: 2,
        notices: ['(output truncated)', CLAMP, PTY_UNAVAILABLE_NOTICE],
        wallTimeMs: 420,
        timeout,
      });
      assert.equal(
        textOf(r),
        `out\n\nWall time: 0.42 seconds\n(output truncated)\n${CLAMP}\n${PTY_UNAVAILABLE_NOTICE}\n\nCommand exited with code 2`,
      );
      assert.equal(r.isError, true);
      assert.deepEqual(r.details, { timeoutSeconds: 3600, requestedTimeoutSeconds: 5000, wallTimeMs: 420, exitCode: 2 });
    });

    it('timeout with the executor notice already leading: exactly one timeout line', async () => {
      const r = await buildCompletedResult({
        summary: summary('[Command timed out after 1 seconds]\npartial'),
        exitCode: undefined,
        notices: [],
        wallTimeMs: 1000,
        timeout: { requested: 1, timeoutSec: 1, timeoutMs: 1000 },
        timedOut: true,
      });
      assert.equal(textOf(r), '[Command timed out after 1 seconds]\npartial\n\nWall time: 1.00 seconds');
      assert.equal(r.isError, true);
      assert.deepEqual(r.details, { timeoutSeconds: 1, wallTimeMs: 1000, timedOut: true });
    });

    it('timeout without a leading notice (bridge, PTY): the bracketed line is appended', async () => {
      const r = await buildCompletedResult({
        summary: summary('partial'),
        exitCode: undefined,
        notices: [],
        wallTimeMs: 1000,
        timeout: { requested: 1, timeoutSec: 1, timeoutMs: 1000 },
        timedOut: true,
        terminalId: 'term-1',
      });
      assert.equal(textOf(r), 'partial\n\nWall time: 1.00 seconds\n\n[Command timed out after 1 seconds]');
      assert.equal(r.details.terminalId, 'term-1');
      assert.equal(r.details.timedOut, true);
    });

    it('1.5 s timeout: printed as 1.5, and an executor line rounded to 2 is not doubled', async () => {
      const timeout: TimeoutInfo = { requested: 1.5, timeoutSec: 1.5, timeoutMs: 1500 };
      assert.equal(timeoutMessage(1.5), 'Command timed out after 1.5 seconds');
      const plain = await buildCompletedResult({ summary: summary('x'), exitCode: undefined, notices: [], wallTimeMs: 1500, timeout, timedOut: true });
      assert.equal(textOf(plain), 'x\n\nWall time: 1.50 seconds\n\n[Command timed out after 1.5 seconds]');
      const rounded = await buildCompletedResult({
        summary: summary('[Command timed out after 2 seconds]\nx'),
        exitCode: undefined,
        notices: [],
        wallTimeMs: 1500,
        timeout,
        timedOut: true,
      });
      assert.equal(textOf(rounded).match(/Command timed out/g)?.length, 1);
    });

    it('timeout disabled: details say so and the line has no number', async () => {
      const r = await buildCompletedResult({
        summary: summary('x'),
        exitCode: 137,
        notices: [],
        wallTimeMs: 5,
        timeout: { requested: 0, timeoutMs: 0 },
        timedOut: true,
        signal: 'SIGKILL',
      });
      assert.equal(textOf(r), 'x\n\nWall time: 0.01 seconds\n\nCommand exited with code 137\n\n[Command timed out]');
      assert.deepEqual(r.details, { timeoutDisabled: true, requestedTimeoutSeconds: 0, wallTimeMs: 5, exitCode: 137, timedOut: true, signal: 'SIGKILL' });
    });

    it('missing exit status throws ToolError with the text, notices and the failure line', async () => {
      await assert.rejects(
        buildCompletedResult({ summary: summary('out'), exitCode: undefined, notices: [CLAMP], wallTimeMs: 100, timeout: T300 }),
        (err: unknown) => {
          assert.ok(err instanceof ToolError);
          assert.equal(err.message, `out\n\nWall time: 0.10 seconds\n${CLAMP}\n\nCommand failed: missing exit status`);
          return true;
        },
      );
    });

    it('appends the truncation notice and carries meta and the artifact id (real sink)', async () => {
      const sink = new OutputSink({ spillThreshold: 20, headBytes: 5 });
      for (let i = 1; i <= 20; i++) sink.push(`l${String(i).padStart(2, '0')}\n`);
      const s = await sink.dump();
      sink.dispose();
      const r = await buildCompletedResult({ summary: { ...s, artifactId: '5' }, exitCode: 0, notices: [], wallTimeMs: 10, timeout: T300 });
      assert.equal(
        textOf(r),
        'l01\nl\n[…14ln elided…]\n17\nl18\nl19\nl20\n\nWall time: 0.01 seconds\n\n' +
          '[Showing lines 1-3 and 18-20 of 20; 14 middle lines (60B) elided. Read artifact://5 for full output]',
      );
      assert.equal(r.details.artifactId, '5');
      assert.equal((r.details.meta as { truncation: { artifactId: string } }).truncation.artifactId, '5');
    });

    it('column cap only: not truncated, column notice only (#4735)', async () => {
      // A summary as a route other than the sink may report it (the sink cuts only output it also elides).
      const s = { output: '123…89\n', truncated: false, totalLines: 1, totalBytes: 10, outputLines: 1, outputBytes: 9, columnDroppedBytes: 4, columnTruncatedLines: 1, columnMax: 8 };
      const r = await buildCompletedResult({ summary: s, exitCode: 0, notices: [], wallTimeMs: 0, timeout: T300 });
      assert.equal(textOf(r), '123…89\n\nWall time: 0.00 seconds\n\n[Long lines cut to 8 bytes, start and end kept]');
      assert.deepEqual(r.details.meta, { limits: { columnTruncated: { maxColumn: 8 } } });
    });

    it('caps oversized text inline and saves the original as a bash-original artifact', async () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-results-'));
      try {
        const store = new FileArtifactStore(tmp);
        const big = Array.from({ length: 10000 }, (_, i) => `row ${i}`).join('\n');
        const s = summaryFromClientOutput(big, false);
        const r = await buildCompletedResult({ summary: s, exitCode: 0, notices: [], wallTimeMs: 1000, timeout: T300, artifacts: store });
        const text = textOf(r);
        assert.ok(Buffer.byteLength(text) <= 53248, `${Buffer.byteLength(text)} bytes`);
        assert.ok(text.endsWith('Wall time: 1.00 seconds\n[raw output: artifact://1]'));
        assert.match(text, /\n\[…\d+B elided…\]\n/);
        assert.equal(fs.readFileSync(path.join(tmp, '1.bash-original.log'), 'utf8'), `${big}\n\nWall time: 1.00 seconds`);
        // With a sink artifact already holding the output, that id is used and nothing is saved.
        const r2 = await buildCompletedResult({ summary: { ...s, artifactId: '42' }, exitCode: 0, notices: [], wallTimeMs: 1000, timeout: T300, artifacts: store });
        assert.ok(textOf(r2).includes('[raw output: artifact://42]'));
        assert.equal(store.pathOf('2'), undefined);
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  });

  describe('buildBackgroundStartResult', () => {
    it('trimmed preview, notices, then the backgrounded line; async running details', () => {
      const r = buildBackgroundStartResult({
        jobId: '7',
        preview: '  building…\n',
        notices: ['Backgrounded early to handle an incoming message; the command keeps running.'],
        timeout: T300,
      });
      assert.deepEqual(r, {
        content: [
          {
            type: 'text',
            text:
              'building…\n\nBackgrounded early to handle an incoming message; the command keeps running.\n\n' +
              'Backgrounded as job 7; result will be delivered automatically.',
          },
        ],
        details: { async: { state: 'running', jobId: '7', type: 'bash' }, timeoutSeconds: 300 },
      });
    });

    it('just the line when there is no preview or notice; disabled timeout recorded', () => {
      const r = buildBackgroundStartResult({ jobId: '3', timeout: { requested: 0, timeoutMs: 0 } });
      assert.equal(textOf(r), 'Backgrounded as job 3; result will be delivered automatically.');
      assert.deepEqual(r.details, { async: { state: 'running', jobId: '3', type: 'bash' }, timeoutDisabled: true, requestedTimeoutSeconds: 0 });
    });
  });

  describe('errorResult', () => {
    it('turns ToolError, ToolAbortError and anything else into isError text', () => {
      assert.deepEqual(errorResult(new ToolError('Blocked: no')), { content: [{ type: 'text', text: 'Blocked: no' }], details: {}, isError: true });
      assert.equal(textOf(errorResult(new ToolAbortError('Command aborted'))), 'Command aborted');
      assert.equal(textOf(errorResult(new Error('boom'))), 'boom');
      assert.equal(textOf(errorResult('plain')), 'plain');
      assert.equal(textOf(errorResult({ code: 1 })), '{"code":1}');
      assert.equal(errorResult(undefined).isError, true);
    });
  });

  describe('summaryFromClientOutput', () => {
    it('totals equal shown values, bytes counted in UTF-8 (not UTF-16 as oh-my-pi did)', () => {
      assert.deepEqual(summaryFromClientOutput('héllo\nwörld 😀', true), {
        output: 'héllo\nwörld 😀',
        truncated: true,
        totalLines: 2,
        totalBytes: 18,
        outputLines: 2,
        outputBytes: 18,
      });
      assert.deepEqual(summaryFromClientOutput('', false), { output: '', truncated: false, totalLines: 0, totalBytes: 0, outputLines: 0, outputBytes: 0 });
    });
  });
});
