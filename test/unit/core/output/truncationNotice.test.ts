import * as assert from 'node:assert/strict';
import type { OutputSummary } from '../../../../src/core/contracts';
import {
  appendTruncationNotice,
  formatBytes,
  formatTruncationNotice,
  truncationFromSummary,
} from '../../../../src/core/output/truncationNotice';

const base = { output: '', truncated: false, totalLines: 3, totalBytes: 12, outputLines: 3, outputBytes: 12 };

describe('truncationNotice', () => {
  it('formatBytes: B, KB, MB, GB in base 1024 with one decimal', () => {
    assert.equal(formatBytes(0), '0B');
    assert.equal(formatBytes(1023), '1023B');
    assert.equal(formatBytes(1024), '1.0KB');
    assert.equal(formatBytes(1536), '1.5KB');
    assert.equal(formatBytes(30720), '30.0KB');
    assert.equal(formatBytes(1048576), '1.0MB');
    assert.equal(formatBytes(5 * 1073741824), '5.0GB');
  });

  it('gives nothing for an untouched summary', () => {
    assert.equal(truncationFromSummary(base), undefined);
    assert.equal(appendTruncationNotice('text', undefined), 'text');
  });

  it('column cap alone: a limits entry and only the column notice (no Showing lines, no limit)', () => {
    const meta = truncationFromSummary({ ...base, columnMax: 8, columnTruncatedLines: 2, columnDroppedBytes: 9 });
    assert.deepEqual(meta, { limits: { columnTruncated: { maxColumn: 8 } } });
    assert.equal(formatTruncationNotice(meta), '[Long lines cut to 8 bytes, start and end kept]');
    assert.equal(appendTruncationNotice('out', meta), 'out\n\n[Long lines cut to 8 bytes, start and end kept]');
  });

  it('column cap alone with an artifact points at it (fix for oh-my-pi #10877)', () => {
    const meta = truncationFromSummary({ ...base, columnMax: 768, columnTruncatedLines: 1, artifactId: '4' });
    assert.equal(formatTruncationNotice(meta), '[Long lines cut to 768 bytes, start and end kept. Read artifact://4 for full output]');
  });

  it('middle elision: approximate ranges, counts with thousands separators, artifact hint', () => {
    const summary: OutputSummary = {
      ...base,
      truncated: true,
      totalLines: 12401,
      totalBytes: 500000,
      outputLines: 8,
      outputBytes: 41,
      elidedBytes: 460000,
      elidedLines: 12345,
      artifactId: '3',
    };
    const meta = truncationFromSummary(summary);
    assert.deepEqual(meta, {
      truncation: {
        direction: 'middle',
        truncatedBy: 'middle',
        totalLines: 12401,
        totalBytes: 500000,
        outputLines: 8,
        outputBytes: 41,
        headRange: { start: 1, end: 4 },
        tailRange: { start: 12399, end: 12401 },
        elidedBytes: 460000,
        elidedLines: 12345,
        artifactId: '3',
      },
    });
    assert.equal(
      formatTruncationNotice(meta),
      '[Showing lines 1-4 and 12399-12401 of 12401; 12,345 middle lines (449.2KB) elided. Read artifact://3 for full output]',
    );
  });

  it('tail truncation by bytes: shown range and the limit', () => {
    const meta = truncationFromSummary({ ...base, truncated: true, totalLines: 100, totalBytes: 4096, outputLines: 40, outputBytes: 2048, artifactId: '9' });
    assert.deepEqual(meta?.truncation, {
      direction: 'tail',
      truncatedBy: 'bytes',
      totalLines: 100,
      totalBytes: 4096,
      outputLines: 40,
      outputBytes: 2048,
      shownRange: { start: 61, end: 100 },
      artifactId: '9',
    });
    assert.equal(formatTruncationNotice(meta), '[Showing lines 61-100 of 100 (2.0KB limit). Read artifact://9 for full output]');
  });

  it('client-truncated output (totals equal shown values) gets lines 1-N with the size limit', () => {
    const meta = truncationFromSummary({ ...base, truncated: true });
    assert.equal(formatTruncationNotice(meta), '[Showing lines 1-3 of 3 (12B limit)]');
  });

  it('puts the truncation part before the column part', () => {
    const meta = truncationFromSummary({ ...base, truncated: true, columnMax: 8, columnTruncatedLines: 1, artifactId: '2' });
    assert.equal(formatTruncationNotice(meta), '[Showing lines 1-3 of 3 (12B limit). Read artifact://2 for full output. Long lines cut to 8 bytes, start and end kept]');
  });
});
