// What the model is told about output it did not see in full (docs/ARCHITECTURE.md, Output):
// `details.meta`, built from the sink's summary, and the bracketed notice appended to the result text.

import type { OutputSummary } from './outputContracts';
import { artifactUrl } from './artifacts';

export interface LineRange {
  start: number;
  end: number;
}

export interface MiddleTruncation {
  direction: 'middle';
  truncatedBy: 'middle';
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
  headRange: LineRange;
  tailRange: LineRange;
  elidedBytes: number;
  elidedLines: number;
  artifactId?: string;
}

export interface TailTruncation {
  direction: 'tail';
  truncatedBy: 'bytes' | 'lines';
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
  shownRange: LineRange;
  /** The byte limit that applied, when the caller knows it (else the notice shows outputBytes). */
  maxBytes?: number;
  artifactId?: string;
}

export type Truncation = MiddleTruncation | TailTruncation;

/** `details.meta` of a result. Indexable so it fits `BashToolDetails.meta`. */
export interface OutputMeta {
  [key: string]: unknown;
  truncation?: Truncation;
  limits?: { columnTruncated?: { maxColumn: number; artifactId?: string } };
}

const UNITS = ['KB', 'MB', 'GB'];

/** `512B`, `1.5KB`, `2.0MB`, `1.0GB` (base 1024, one decimal above bytes). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)}${UNITS[unit]}`;
}

/** Thousands separators fixed to `en-US` so the text does not depend on the host's locale. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** `Read artifact://<id> for full output`. */
export function readArtifactHint(id: string): string {
  return `Read ${artifactUrl(id)} for full output`;
}

/** `Long lines cut to <N> bytes, start and end kept` (only output too long to show whole has them). */
export function columnNotice(maxColumns: number): string {
  return `Long lines cut to ${maxColumns} bytes, start and end kept`;
}

/**
 * Builds `details.meta` from a sink summary, or undefined when nothing was cut. A column cap alone
 * gives only `limits.columnTruncated` (never a "Showing lines" truncation: oh-my-pi #4735).
 */
export function truncationFromSummary(summary: OutputSummary): OutputMeta | undefined {
  const meta: OutputMeta = {};
  if ((summary.columnMax ?? 0) > 0 && (summary.columnTruncatedLines ?? 0) > 0) {
    meta.limits = { columnTruncated: { maxColumn: summary.columnMax as number } };
    if (summary.artifactId !== undefined) meta.limits.columnTruncated!.artifactId = summary.artifactId;
  }
  if (summary.truncated) {
    const { totalLines, totalBytes, outputLines, outputBytes } = summary;
    if ((summary.elidedBytes ?? 0) > 0) {
      // The sink does not record where exactly the lines were cut; split the kept lines (minus the
      // marker line) in half, the head getting the odd one, as oh-my-pi does.
      const kept = Math.max(0, outputLines - 1);
      const headCount = Math.ceil(kept / 2);
      const tailCount = kept - headCount;
      meta.truncation = {
        direction: 'middle',
        truncatedBy: 'middle',
        totalLines,
        totalBytes,
        outputLines,
        outputBytes,
        headRange: { start: 1, end: headCount },
        tailRange: { start: totalLines - tailCount + 1, end: totalLines },
        elidedBytes: summary.elidedBytes as number,
        elidedLines: summary.elidedLines ?? 0,
        ...(summary.artifactId !== undefined ? { artifactId: summary.artifactId } : {}),
      };
    } else {
      const truncatedBy = outputBytes < totalBytes ? 'bytes' : outputLines < totalLines ? 'lines' : 'bytes';
      meta.truncation = {
        direction: 'tail',
        truncatedBy,
        totalLines,
        totalBytes,
        outputLines,
        outputBytes,
        shownRange: { start: Math.max(1, totalLines - outputLines + 1), end: totalLines },
        ...(summary.artifactId !== undefined ? { artifactId: summary.artifactId } : {}),
      };
    }
  }
  return meta.truncation !== undefined || meta.limits !== undefined ? meta : undefined;
}

function middleNotice(t: MiddleTruncation): string {
  const lines = t.elidedLines === 1 ? 'line' : 'lines';
  const { headRange: h, tailRange: r } = t;
  return (
    `Showing lines ${h.start}-${h.end} and ${r.start}-${r.end} of ${t.totalLines}; ` +
    `${formatCount(t.elidedLines)} middle ${lines} (${formatBytes(t.elidedBytes)}) elided`
  );
}

function tailNotice(t: TailTruncation): string {
  let text = `Showing lines ${t.shownRange.start}-${t.shownRange.end} of ${t.totalLines}`;
  if (t.truncatedBy === 'bytes') text += ` (${formatBytes(t.maxBytes ?? t.outputBytes)} limit)`;
  return text;
}

/** The parts of the notice, or an empty list when there is nothing to say. */
export function noticeParts(meta: OutputMeta | undefined): string[] {
  if (meta === undefined) return [];
  const parts: string[] = [];
  const t = meta.truncation;
  if (t !== undefined) {
    parts.push(t.direction === 'middle' ? middleNotice(t) : tailNotice(t));
    if (t.artifactId !== undefined) parts.push(readArtifactHint(t.artifactId));
  }
  const column = meta.limits?.columnTruncated;
  if (column !== undefined) {
    parts.push(columnNotice(column.maxColumn));
    // oh-my-pi #10877: a column-only notice did not say where the full lines are. Point at the
    // artifact unless the truncation part already did.
    if (column.artifactId !== undefined && t?.artifactId === undefined) parts.push(readArtifactHint(column.artifactId));
  }
  return parts;
}

/** `[part. part. part]`, or undefined when there is nothing to say. */
export function formatTruncationNotice(meta: OutputMeta | undefined): string | undefined {
  const parts = noticeParts(meta);
  return parts.length === 0 ? undefined : `[${parts.join('. ')}]`;
}

/** Appends the notice as `\n\n[…]` (oh-my-pi's `wrapToolWithMetaNotice`). */
export function appendTruncationNotice(text: string, meta: OutputMeta | undefined): string {
  const notice = formatTruncationNotice(meta);
  return notice === undefined ? text : `${text}\n\n${notice}`;
}
