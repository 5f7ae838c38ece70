import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { OutputSinkOptions, OutputSummary } from '../../../../src/core/contracts';
import { DEFAULT_HEAD_BYTES, DEFAULT_MAX_BYTES, DEFAULT_MAX_COLUMNS } from '../../../../src/core/output/outputLimits';
import { elisionMarker, OutputSink } from '../../../../src/core/output/outputSink';
import { normalizeLineEndings, sanitizeText } from '../../../../src/core/output/sanitize';

type Chunk = Uint8Array | string;

async function run(chunks: Chunk[], opts: OutputSinkOptions = {}, notice?: string): Promise<OutputSummary> {
  const sink = new OutputSink({ chunkThrottleMs: 0, ...opts });
  for (const c of chunks) sink.push(c);
  const summary = await sink.dump(notice);
  sink.dispose();
  return summary;
}

/** Every way to cut `bytes` in two: the result must not depend on where the cut falls. */
async function eachSplit(bytes: Buffer, opts: OutputSinkOptions, check: (s: OutputSummary, at: number) => void): Promise<void> {
  for (let at = 1; at < bytes.length; at++) {
    check(await run([bytes.subarray(0, at), bytes.subarray(at)], opts), at);
  }
}

function openFds(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

describe('OutputSink', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-sink-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe('basics', () => {
    it('prepends the notice line and counts totals', async () => {
      const s = await run(['hello\n', Buffer.from('wor'), 'ld'], {}, 'notice');
      assert.deepEqual(s, {
        output: '[notice]\nhello\nworld',
        truncated: false,
        totalLines: 2,
        totalBytes: 11,
        outputLines: 2,
        outputBytes: 11,
      });
    });

    it('reports zero lines for no data at all', async () => {
      assert.deepEqual(await run([]), { output: '', truncated: false, totalLines: 0, totalBytes: 0, outputLines: 0, outputBytes: 0 });
      assert.deepEqual(await run([''], {}, 'Command cancelled'), {
        output: '[Command cancelled]\n',
        truncated: false,
        totalLines: 0,
        totalBytes: 0,
        outputLines: 0,
        outputBytes: 0,
      });
    });

    it('counts lines across chunks; a trailing newline ends the last line, it starts no new one', async () => {
      const s = await run(['a\nb', 'c\n']);
      assert.equal(s.output, 'a\nbc\n');
      assert.equal(s.totalLines, 2);
      assert.equal(s.outputLines, 2);
      const open = await run(['a\nb', 'c']);
      assert.equal(open.totalLines, 2);
      assert.equal(open.outputLines, 2);
    });

    it('counts UTF-8 bytes, not UTF-16 units', async () => {
      const s = await run(['日本\n😀']);
      assert.equal(s.totalBytes, 11);
      assert.equal(s.outputBytes, 11);
    });

    it('ignores pushes after dump and keeps dump repeatable', async () => {
      const sink = new OutputSink();
      sink.push('a');
      const first = await sink.dump();
      sink.push('b');
      assert.equal(first.output, 'a');
      assert.equal((await sink.dump()).output, 'a');
      sink.dispose();
      sink.dispose();
    });
  });

  describe('line endings and sanitizing', () => {
    it('turns CRLF into one newline even when split across chunks', async () => {
      assert.equal((await run(['a\r', '\nb'])).output, 'a\nb');
      assert.equal((await run([Buffer.from('a\r'), Buffer.from('\nb\r\n')])).output, 'a\nb\n');
      await eachSplit(Buffer.from('x\r\ny\r\n'), {}, (s) => assert.equal(s.output, 'x\ny\n'));
    });

    it('turns lone CRs (progress frames) into newlines, also a CR held at the end', async () => {
      const s = await run(['10%\r20%\r', '30%\r']);
      assert.equal(s.output, '10%\n20%\n30%\n');
      assert.equal(s.totalLines, 3);
    });

    it('strips ANSI and controls from the text, also when a sequence is cut by a chunk boundary', async () => {
      assert.equal((await run(['\x1b[31mred\x1b[0m a\x07b\tc\n'])).output, 'red ab\tc\n');
      await eachSplit(Buffer.from('A\x1b[1;31mB\x1b]0;title\x07C\n'), {}, (s, at) => assert.equal(s.output, 'ABC\n', `split at ${at}`));
    });

    it('drops C1 controls (C2 80–9F) but keeps other two-byte characters', async () => {
      assert.equal((await run([Buffer.from('a\u0085b©\u00a0c', 'utf8')])).output, 'ab©\u00a0c');
    });

    it('decodes code points split across chunks (emoji, CJK) at every split', async () => {
      const text = 'a😀b日c\n';
      await eachSplit(Buffer.from(text), {}, (s, at) => {
        assert.equal(s.output, text, `split at ${at}`);
        assert.equal(s.totalBytes, 11);
      });
      // Split over three chunks, one byte at a time.
      const bytes = Buffer.from('😀');
      assert.equal((await run([bytes.subarray(0, 1), bytes.subarray(1, 2), bytes.subarray(2, 3), bytes.subarray(3)])).output, '😀');
    });

    it('drops invalid bytes (after U+FFFD replacement) and an incomplete sequence at the end', async () => {
      assert.equal((await run([Buffer.from([0x61, 0xff, 0x62, 0xc3, 0x28, 0x0a])])).output, 'ab(\n');
      assert.equal((await run([Buffer.from([0x61, 0xe6, 0x97])])).output, 'a');
      assert.equal((await run([Buffer.from('a\ufffdb')])).output, 'ab');
    });

    it('accepts decoded strings, Buffers and plain Uint8Array views (with an offset)', async () => {
      assert.equal((await run(['日本', Buffer.from('語\n')])).output, '日本語\n');
      const backing = new Uint8Array(Buffer.from('xx日本語yy'));
      assert.equal((await run([new Uint8Array(backing.buffer, 2, 4), new Uint8Array(backing.buffer, 6, 5)])).output, '日本語');
    });
  });

  describe('column cap', () => {
    /** A first line longer than the budget `t`: every later line is in output too long to show whole. */
    const over = (t: number): string => `${'p'.repeat(t)}\n`;
    /** What a tail-only window of `t` bytes shows after `over(t)` and then `expected`. */
    const lastBytes = (t: number, expected: string): string => Buffer.from(over(t) + expected).subarray(-t).toString('utf8');
    const T = 32;
    const budget = { spillThreshold: T, headBytes: 0 };

    it('never cuts a line of output that fits the budget, however long the line', async () => {
      const json = `{"items":[${Array.from({ length: 400 }, (_, i) => `"item-${i}"`).join(',')}],"last":"the end"}\n`;
      const s = await run([json]);
      assert.ok(Buffer.byteLength(json) > 4 * DEFAULT_MAX_COLUMNS);
      assert.equal(s.output, json);
      assert.equal(s.columnTruncatedLines, undefined);
      const small = await run(['0123456789ABCDEFGHIJ\nxy\n'], { spillThreshold: 32, headBytes: 4, maxColumns: 8 });
      assert.equal(small.output, '0123456789ABCDEFGHIJ\nxy\n');
      assert.equal(small.columnDroppedBytes, undefined);
    });

    it('keeps the start and the end of one line too long for the budget (the windows, not a 768-byte cut)', async () => {
      const line = `START${'x'.repeat(2_000_000)}END`;
      const s = await run([line]);
      assert.equal(s.truncated, true);
      assert.equal(s.columnTruncatedLines, undefined);
      assert.ok(s.output.startsWith(`START${'x'.repeat(DEFAULT_HEAD_BYTES - 5)}\n[…`), s.output.slice(0, 40));
      assert.ok(s.output.endsWith(`${'x'.repeat(100)}END`));
      assert.equal(s.outputBytes, DEFAULT_MAX_BYTES + Buffer.byteLength(`\n${elisionMarker(0, 2_000_008 - DEFAULT_MAX_BYTES)}\n`));
    });

    it('past the budget, cuts a long line to its first and last bytes around …', async () => {
      const s = await run([over(T), '123456789\nabc\n'], { ...budget, maxColumns: 8 });
      assert.equal(s.output, lastBytes(T, '123…89\nabc\n'));
      assert.equal(s.columnDroppedBytes, 4);
      assert.equal(s.columnTruncatedLines, 1);
      assert.equal(s.columnMax, 8);
      assert.equal(s.totalBytes, T + 1 + 14);
    });

    it('keeps a line of exactly maxColumns bytes, also when its end arrives late', async () => {
      assert.equal((await run([over(T), '12345678\n'], { ...budget, maxColumns: 8 })).output, lastBytes(T, '12345678\n'));
      assert.equal((await run([over(T), '123456', '78', '\n'], { ...budget, maxColumns: 8 })).output, lastBytes(T, '12345678\n'));
      const s = await run([over(T), '1234567'], { ...budget, maxColumns: 8 });
      assert.equal(s.output, lastBytes(T, '1234567'));
      assert.equal(s.columnTruncatedLines, undefined);
    });

    it('cuts the same way wherever the chunk boundary falls', async () => {
      await eachSplit(Buffer.from(`${over(T)}123456789\nxy\n`), { ...budget, maxColumns: 8 }, (s, at) => {
        assert.equal(s.output, lastBytes(T, '123…89\nxy\n'), `split at ${at}`);
        assert.equal(s.columnDroppedBytes, 4);
      });
    });

    it('never splits CJK or emoji at either cut', async () => {
      // keep = 10 - 3 = 7: 4 bytes of start ("ab"; 日 would need 5), 3 of end (語).
      assert.equal((await run([over(T), 'ab日本語\n'], { ...budget, maxColumns: 10 })).output, lastBytes(T, 'ab…語\n'));
      // keep = 12 - 3 = 9: 5 of start, 4 of end: one emoji each.
      assert.equal((await run([over(T), '😀😀😀😀\n'], { ...budget, maxColumns: 12 })).output, lastBytes(T, '😀…😀\n'));
      // 4 bytes of end: 日 and not the last byte of 語 before it.
      await eachSplit(Buffer.from(`${over(T)}ab日本語日\n😀😀😀😀\n`), { ...budget, maxColumns: 12 }, (s, at) =>
        assert.equal(s.output, lastBytes(T, 'ab日…日\n😀…😀\n'), `split at ${at}`),
      );
    });

    it('keeps the end of a cut line that arrives over later chunks, and of a last line without newline', async () => {
      const s = await run([over(T), '1234567890', 'abcdef', '\nnext\n'], { ...budget, maxColumns: 8 });
      assert.equal(s.output, lastBytes(T, '123…ef\nnext\n'));
      assert.equal(s.columnDroppedBytes, 11);
      assert.equal(s.columnTruncatedLines, 1);
      assert.equal(s.totalBytes, T + 1 + 22);
      assert.equal((await run([over(T), '1234567890', 'abcdef'], { ...budget, maxColumns: 8 })).output, lastBytes(T, '123…ef'));
    });

    it('uses 768 by default and 0 disables it', async () => {
      const t = 2000;
      const line = `${'a'.repeat(500)}${'b'.repeat(500)}\n`;
      const s = await run([over(t), line], { spillThreshold: t, headBytes: 0 });
      assert.equal(s.output, lastBytes(t, `${'a'.repeat(383)}…${'b'.repeat(382)}\n`));
      assert.equal(s.columnMax, DEFAULT_MAX_COLUMNS);
      assert.equal((await run([over(t), line], { spillThreshold: t, headBytes: 0, maxColumns: 0 })).output, lastBytes(t, line));
    });

    it('gives onChunk the sanitized, uncapped text', async () => {
      const seen: string[] = [];
      await run(['\x1b[1mabcdefghij\x1b[0m\n'], { maxColumns: 6, onChunk: (t) => seen.push(t) });
      assert.deepEqual(seen, ['abcdefghij\n']);
    });
  });

  describe('head and tail windows', () => {
    it('elides the middle with a line-count marker', async () => {
      const lines = Array.from({ length: 20 }, (_, i) => `l${String(i + 1).padStart(2, '0')}\n`);
      const s = await run(lines, { spillThreshold: 20, headBytes: 5 });
      assert.deepEqual(s, {
        output: 'l01\nl\n[…14ln elided…]\n17\nl18\nl19\nl20\n',
        truncated: true,
        totalLines: 20,
        totalBytes: 80,
        outputLines: 7,
        outputBytes: 41,
        elidedBytes: 60,
        elidedLines: 14,
      });
    });

    it('uses a byte marker when at most one line was elided', async () => {
      const s = await run(['abcdefghijklmnopqrstuvwxyz0123'], { spillThreshold: 20, headBytes: 5 });
      assert.equal(s.output, 'abcde\n[…10B elided…]\npqrstuvwxyz0123');
      assert.equal(s.elidedBytes, 10);
      assert.equal(s.elidedLines, 0);
      assert.equal(elisionMarker(1, 7), '[…7B elided…]');
      assert.equal(elisionMarker(2, 7), '[…2ln elided…]');
    });

    it('cuts the head and the tail on code point boundaries (CJK)', async () => {
      const text = '日本語'.repeat(4);
      const expected = '日\n[…18B elided…]\n本語日本語';
      assert.equal((await run([text], { spillThreshold: 20, headBytes: 5 })).output, expected);
      await eachSplit(Buffer.from(text), { spillThreshold: 20, headBytes: 5 }, (s, at) => assert.equal(s.output, expected, `split at ${at}`));
    });

    it('tail-only (headBytes 0) keeps the last bytes, cut forward past continuation bytes (emoji)', async () => {
      const s = await run(['😀😀😀😀'], { spillThreshold: 10, headBytes: 0 });
      assert.deepEqual(s, { output: '😀😀', truncated: true, totalLines: 1, totalBytes: 16, outputLines: 1, outputBytes: 8 });
      await eachSplit(Buffer.from('😀😀😀😀'), { spillThreshold: 10, headBytes: 0 }, (s2, at) => assert.equal(s2.output, '😀😀', `split at ${at}`));
    });

    it('does not elide when everything fits', async () => {
      const text = 'abcdefghij0123456789';
      const s = await run([text.slice(0, 7), text.slice(7)], { spillThreshold: 20, headBytes: 5 });
      assert.equal(s.output, text);
      assert.equal(s.truncated, false);
      assert.equal(s.elidedBytes, undefined);
    });

    it('keeps the body within the default budget for 100,000 bytes of output', async () => {
      const line = 'x'.repeat(99) + '\n';
      const s = await run(Array.from({ length: 1000 }, () => line));
      assert.equal(s.totalBytes, 100000);
      assert.equal(s.totalLines, 1000);
      assert.equal(s.truncated, true);
      assert.ok(s.output.startsWith(line.repeat(Math.floor(DEFAULT_HEAD_BYTES / 100))));
      assert.ok(s.outputBytes <= DEFAULT_MAX_BYTES + 64, `outputBytes ${s.outputBytes}`);
      // head 20,480 B, tail 51,200 - 20,480 = 30,720 B; the rest is elided
      assert.equal(s.elidedBytes, 100000 - 20480 - 30720);
      // The output ends with the stream's final newline, which ends a line without starting one.
      assert.equal(s.output.split('\n').length - 1, s.outputLines);
    });
  });

  describe('artifact spill', () => {
    it('spills the whole stream once past the threshold (abc + def)', async () => {
      const file = path.join(tmp, 'a', 'b', '1.bash.log');
      const s = await run(['abc', 'def'], { spillThreshold: 5, headBytes: 0, artifactPath: file, artifactId: '1' });
      assert.equal(s.output, 'bcdef');
      assert.equal(s.truncated, true);
      assert.equal(s.artifactId, '1');
      assert.equal(fs.readFileSync(file, 'utf8'), 'abcdef');
    });

    it('includes the head-retained bytes in the artifact', async () => {
      const file = path.join(tmp, '2.bash.log');
      const text = Array.from({ length: 50 }, (_, i) => `line ${i}\n`).join('');
      const s = await run([text.slice(0, 30), text.slice(30)], { spillThreshold: 64, headBytes: 16, artifactPath: file, artifactId: '2' });
      assert.equal(s.artifactId, '2');
      assert.equal(fs.readFileSync(file, 'utf8'), text);
      assert.ok(s.output.startsWith('line 0\nline 1\nli'));
    });

    it('writes no file for small output with a line longer than maxColumns (nothing is cut)', async () => {
      const file = path.join(tmp, '3.bash.log');
      const s = await run(['123456789\nok\n'], { maxColumns: 8, artifactPath: file, artifactId: '3' });
      assert.equal(s.output, '123456789\nok\n');
      assert.equal(s.artifactId, undefined);
      assert.equal(fs.existsSync(file), false);
    });

    it('the artifact of a stream with cut lines holds them whole', async () => {
      const file = path.join(tmp, '5.bash.log');
      const text = `${'p'.repeat(32)}\n123456789\nok\n`;
      const s = await run([text], { spillThreshold: 32, headBytes: 0, maxColumns: 8, artifactPath: file, artifactId: '5' });
      assert.equal(s.columnTruncatedLines, 1);
      assert.equal(s.artifactId, '5');
      assert.equal(fs.readFileSync(file, 'utf8'), text);
    });

    it('writes no file and reports no artifact when everything fits', async () => {
      const file = path.join(tmp, '4.bash.log');
      const s = await run(['small\n'], { artifactPath: file, artifactId: '4' });
      assert.equal(s.artifactId, undefined);
      assert.equal(fs.existsSync(file), false);
    });

    it('swallows file errors: the run goes on without an artifact', async () => {
      const s = await run(['abcdef'], { spillThreshold: 4, headBytes: 0, artifactPath: tmp, artifactId: '5' });
      assert.equal(s.output, 'cdef');
      assert.equal(s.artifactId, undefined);
    });

    it('writes the full sanitized stream byte for byte for 5 MB of mixed input in odd chunks', async () => {
      const parts: string[] = [];
      let size = 0;
      for (let i = 0; size < 5 * 1024 * 1024; i++) {
        const line = i % 97 === 0 ? '長'.repeat(400 + (i % 50)) : i % 13 === 0 ? `😀 emoji ${i} 日本語` : `line ${i} ${'x'.repeat(i % 120)}`;
        parts.push(line, '\n');
        size += Buffer.byteLength(line) + 1;
      }
      const input = Buffer.from(parts.join(''));
      const file = path.join(tmp, 'big', '6.bash.log');
      const sink = new OutputSink({ artifactPath: file, artifactId: '6' });
      // Chunk sizes that are prime, so boundaries land inside code points and lines.
      const sizes = [65537, 1, 2, 3, 4099, 7, 65521];
      for (let off = 0, k = 0; off < input.length; k++) {
        const n = sizes[k % sizes.length];
        sink.push(input.subarray(off, off + n));
        off += n;
      }
      const s = await sink.dump();
      sink.dispose();
      const written = fs.readFileSync(file);
      assert.equal(written.length, input.length);
      assert.ok(written.equals(input), 'artifact differs from the input stream');
      assert.equal(s.totalBytes, input.length);
      assert.equal(s.artifactId, '6');
      assert.equal(s.truncated, true);
      assert.ok((s.columnTruncatedLines ?? 0) > 0);
      assert.ok(s.outputBytes <= DEFAULT_MAX_BYTES + 64);
    });

    it('writes the sanitized stream (no ANSI, CR normalised) to the artifact', async () => {
      const raw = Array.from({ length: 4000 }, (_, i) => `\x1b[3${i % 8}m${i}\x1b[0m progress\r${i} done\r\n`).join('');
      const file = path.join(tmp, '7.bash.log');
      const bytes = Buffer.from(raw);
      const sink = new OutputSink({ artifactPath: file, artifactId: '7' });
      for (let off = 0; off < bytes.length; off += 1021) sink.push(bytes.subarray(off, off + 1021));
      await sink.dump();
      sink.dispose();
      assert.equal(fs.readFileSync(file, 'utf8'), sanitizeText(normalizeLineEndings(raw)));
    });

    it('closes the file once on dump + dispose and on dispose alone', async () => {
      const before = openFds();
      const a = new OutputSink({ spillThreshold: 4, artifactPath: path.join(tmp, '8.log'), artifactId: '8' });
      a.push('abcdefgh');
      assert.equal(openFds(), before + 1);
      await a.dump();
      a.dispose();
      assert.equal(openFds(), before);
      const b = new OutputSink({ spillThreshold: 4, artifactPath: path.join(tmp, '9.log'), artifactId: '9' });
      b.push('abcdefgh');
      b.dispose();
      b.dispose();
      b.push('more');
      assert.equal(openFds(), before);
      assert.equal(fs.readFileSync(path.join(tmp, '9.log'), 'utf8'), 'abcdefgh');
    });
  });

  describe('onChunk throttle', () => {
    it('emits at once, then coalesces within the throttle window; dump flushes', async () => {
      const seen: string[] = [];
      const sink = new OutputSink({ onChunk: (t) => seen.push(t), chunkThrottleMs: 10_000 });
      sink.push('a');
      sink.push('b');
      sink.push('c');
      assert.deepEqual(seen, ['a']);
      await sink.dump();
      assert.deepEqual(seen, ['a', 'bc']);
      sink.dispose();
    });

    it('delivers a quiet tail when the throttle timer fires', async () => {
      const seen: string[] = [];
      const sink = new OutputSink({ onChunk: (t) => seen.push(t), chunkThrottleMs: 20 });
      sink.push('a');
      sink.push('b');
      assert.deepEqual(seen, ['a']);
      await new Promise((r) => setTimeout(r, 60));
      assert.deepEqual(seen, ['a', 'b']);
      sink.dispose();
    });

    it('emits every push with chunkThrottleMs 0 and nothing after dispose', async () => {
      const seen: string[] = [];
      const sink = new OutputSink({ onChunk: (t) => seen.push(t), chunkThrottleMs: 0 });
      sink.push('x');
      sink.push('y');
      sink.dispose();
      sink.push('z');
      assert.deepEqual(seen, ['x', 'y']);
    });
  });
});
