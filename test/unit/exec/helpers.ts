// Shared pieces of the exec tests: a sink that keeps every raw byte (so byte-exactness can be
// asserted without the real OutputSink's sanitising), and process checks read from /proc.
import { readdirSync, readFileSync } from 'node:fs';
import type { BashSettings, OutputSinkLike, OutputSummary, PolicyRule } from '../../../src/core/contracts';
import { DEFAULT_INTERCEPTOR_RULES } from '../../../src/core/interceptor';

/** Keeps every pushed byte (or only counts them, for huge streams). */
export class FakeSink implements OutputSinkLike {
  readonly chunks: Buffer[] = [];
  bytes = 0;
  notice: string | undefined;
  dumped = 0;
  pushesAfterDump = 0;

  /** Called after every push (tests use it to act once some output has arrived). */
  onPush: (() => void) | undefined;

  constructor(private readonly keep = true) {}

  push(chunk: Uint8Array | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    if (this.dumped > 0) this.pushesAfterDump += 1;
    this.bytes += buf.length;
    if (this.keep) this.chunks.push(buf);
    this.onPush?.();
  }

  buffer(): Buffer {
    return Buffer.concat(this.chunks);
  }

  text(): string {
    return this.buffer().toString('utf8');
  }

  async dump(notice?: string): Promise<OutputSummary> {
    this.dumped += 1;
    this.notice = notice;
    const body = this.text();
    const output = notice ? `[${notice}]\n${body}` : body;
    return {
      output,
      truncated: false,
      totalLines: body.split('\n').length,
      totalBytes: this.bytes,
      outputLines: body.split('\n').length,
      outputBytes: Buffer.byteLength(output),
    };
  }

  dispose(): void {}
}

interface Stat {
  pid: number;
  ppid: number;
  state: string;
  comm: string;
}

function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const open = text.indexOf('(');
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    return { pid, comm: text.slice(open + 1, close), state: fields[0], ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/**
 * Records the test process's live descendants now; `leftSince()` then lists the ones that appeared
 * after and are still running. Suites from other files may share this process, so a suite only
 * answers for what it started.
 */
export function processBaseline(): { leftSince(): Stat[] } {
  const before = new Set(liveDescendants().map((s) => s.pid));
  return { leftSince: () => liveDescendants().filter((s) => !before.has(s.pid)) };
}

/** Running (not zombie) descendants of `root`, for the "nothing left behind" checks. */
export function liveDescendants(root: number = process.pid): Stat[] {
  const all: Stat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = stat(Number(entry));
    if (s && s.state !== 'Z') all.push(s);
  }
  const out: Stat[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const s of all) {
      if (s.ppid === pid) {
        out.push(s);
        queue.push(s.pid);
      }
    }
  }
  return out;
}

/**
 * True while `pid` runs. `process.kill(pid, 0)` alone is not enough here: this machine's PID 1 does
 * not reap orphans, so a killed grandchild stays a zombie (dead, state Z) forever.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const s = stat(pid);
  return s !== undefined && s.state !== 'Z';
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `check()` or the deadline; returns the last answer. */
export async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await sleep(20);
  }
  return check();
}

/**
 * Live processes whose whole command line is `commandLine` (argv joined by spaces, e.g. a unique
 * `sleep 300.123`). Pids a command prints from inside a PID namespace mean nothing outside it; the
 * command line does. Exact, so the shell or CLI that carries the text in a longer line never counts.
 */
export function processesWithArg(commandLine: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0$/, '').split('\0').join(' ');
    } catch {
      continue;
    }
    if (cmdline === commandLine && alive(Number(entry))) out.push(Number(entry));
  }
  return out;
}

/** `text` as a regular expression that matches it literally (a shell path inside an expected error line). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Pipeline settings for tests: these rules as one layer, everything else at its default. */
export function settingsWith(patterns: PolicyRule[], direnv: 'auto' | 'off' = 'off'): BashSettings {
  return {
    ruleLayers: [{ layer: 'file', source: 'test rules', rules: patterns }],
    interceptor: { enabled: false, patterns: [...DEFAULT_INTERCEPTOR_RULES] },
    maxTimeout: 0,
    asyncEnabled: true,
    asyncMaxJobs: 10,
    autoBackground: { enabled: false, thresholdMs: 60_000 },
    artifactHeadBytes: 20,
    outputMaxColumns: 768,
    shell: {},
    direnv,
  };
}
