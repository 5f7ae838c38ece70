// Differential tests: the one-pass byte sanitiser (sanitizeBytes.ts) and the sink built on it against
// the regex sanitiser it replaced on the sink's hot path, kept here verbatim as the reference, over
// many random inputs (fixed seed) made of the pieces that make escape handling hard.
import * as assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { ESCAPE_CARRY_MAX_BYTES } from '../../../../src/core/output/outputLimits';
import { OutputSink } from '../../../../src/core/output/outputSink';
import { incompleteEscapeSuffixBytes, sanitizeUtf8Into } from '../../../../src/core/output/sanitizeBytes';

/* eslint-disable no-control-regex -- the reference matches control characters. */
// ---- the reference: the regex sanitiser as it was (sanitize.ts before the byte form) ----
const REF_NEEDS_SANITIZE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffd\ud800-\udfff]/u;
const REF_ANSI_SEQUENCE =
  /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][\s\S]*?\x1b\\|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b[ -/]*[0-~]/g;
const REF_CONTROL_CHARS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const REF_REPLACEMENT_AND_LONE_SURROGATES = /[\ufffd\ud800-\udfff]/gu;
const REF_INCOMPLETE_ESCAPE_AT_END = /(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b\n]*|[ -/]*)?|\x9b[0-?]*[ -/]*)$/;

function refSanitize(text: string): string {
  if (!REF_NEEDS_SANITIZE.test(text)) return text;
  return text.replace(REF_ANSI_SEQUENCE, '').replace(REF_CONTROL_CHARS, '').replace(REF_REPLACEMENT_AND_LONE_SURROGATES, '');
}

function refNormalize(text: string): string {
  return text.indexOf('\r') === -1 ? text : text.replace(/\r\n?/g, '\n');
}

function refIncompleteEscapeSuffixLength(text: string): number {
  const start = Math.max(text.lastIndexOf('\x1b'), text.lastIndexOf('\x9b'));
  if (start === -1) return 0;
  const m = REF_INCOMPLETE_ESCAPE_AT_END.exec(text.slice(start));
  return m !== null && m.index === 0 ? text.length - start : 0;
}

/** The sink's decode stage as it was: raw chunks in, the sanitized stream (uncapped) out. */
class RefStream {
  private carry = Buffer.alloc(0);
  private heldCR = false;
  readonly out: string[] = [];

  push(chunk: Buffer): void {
    let b = chunk;
    if (b.length === 0) return;
    if (this.carry.length > 0) {
      b = Buffer.concat([this.carry, b]);
      this.carry = Buffer.alloc(0);
    }
    const incomplete = incompleteUtf8Tail(b);
    if (incomplete > 0) {
      this.carry = Buffer.from(b.subarray(b.length - incomplete));
      b = b.subarray(0, b.length - incomplete);
      if (b.length === 0) return;
    }
    this.decode(b, false);
  }

  finish(): string {
    const carry = this.carry;
    this.carry = Buffer.alloc(0);
    this.decode(carry, true);
    return this.out.join('');
  }

  private decode(b: Buffer, final: boolean): void {
    if (this.heldCR) {
      this.heldCR = false;
      if (b[0] !== 0x0a) this.out.push('\n');
    }
    if (b.length === 0) return;
    let text = b.toString('utf8');
    if (!final) {
      if (text.charCodeAt(text.length - 1) === 0x0d) {
        this.heldCR = true;
        text = text.slice(0, -1);
      } else {
        const open = refIncompleteEscapeSuffixLength(text);
        if (open > 0) {
          const held = Buffer.from(text.slice(text.length - open), 'utf8');
          if (held.length <= ESCAPE_CARRY_MAX_BYTES) {
            this.carry = this.carry.length > 0 ? Buffer.concat([held, this.carry]) : held;
            text = text.slice(0, text.length - open);
          }
        }
      }
    }
    this.out.push(refSanitize(refNormalize(text)));
  }
}

function incompleteUtf8Tail(b: Uint8Array): number {
  const n = b.length;
  for (let back = 1; back <= 3 && back <= n; back++) {
    const c = b[n - back];
    if (c < 0x80) return 0;
    if (c >= 0xc0) {
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return need > back ? back : 0;
    }
  }
  return 0;
}

// ---- random inputs ----

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

/** Pieces of valid UTF-8: sequence starts, parameters, finals, terminators, controls, wide characters. */
const PIECES = [
  'a', 'b', 'Z', ' ', '0', '1', '9', ';', ':', '?', '<', '!', '/', '(', '#', '@', 'A', 'm', 'K', '~', '`', '[', ']',
  'P', 'X', '^', '_', '\\', '\x1b', '\x1b', '\x1b[', '\x1b]', '\x1bP', '\x1b\\', '\x1b[31m', '\x1b[0m', '\x1b]0;t',
  '\x07', '\x1b(B', '\x1b7', '\r', '\r\n', '\n', '\n', '\t', '\x00', '\x08', '\x7f', '\x1f', '\u0080', '\u0085',
  '\u009b', '\u009b3', '\u009c', '\u009f', '\u00a0', '\u00e9', '\u00ff', '\ufffd', '\uffef', '\uff21', '日本',
  '😀', '\u0800', '\u07ff',
];
/** Bytes that are not valid UTF-8 on their own (for the sink: the string path must still agree). */
const INVALID = [[0xff], [0xc3], [0xe6, 0x97], [0xed, 0xa0, 0x80], [0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80]];

function randomText(rnd: () => number, maxPieces: number): string {
  const count = Math.floor(rnd() * maxPieces);
  let s = '';
  for (let k = 0; k < count; k++) s += PIECES[Math.floor(rnd() * PIECES.length)];
  return s;
}

function randomBytes(rnd: () => number, maxPieces: number, invalidShare: number): Buffer {
  const parts: Buffer[] = [];
  const count = Math.floor(rnd() * maxPieces);
  for (let k = 0; k < count; k++) {
    if (rnd() < invalidShare) parts.push(Buffer.from(INVALID[Math.floor(rnd() * INVALID.length)]));
    else parts.push(Buffer.from(PIECES[Math.floor(rnd() * PIECES.length)], 'utf8'));
  }
  return Buffer.concat(parts);
}

function sanitizeBytes(b: Buffer): Buffer {
  const out = Buffer.alloc(b.length);
  return out.subarray(0, sanitizeUtf8Into(b, out));
}

async function sinkStream(chunks: Buffer[]): Promise<string> {
  const got: string[] = [];
  const sink = new OutputSink({ chunkThrottleMs: 0, onChunk: (t) => got.push(t) });
  for (const c of chunks) sink.push(c);
  await sink.dump();
  sink.dispose();
  return got.join('');
}

/** Cuts `b` at random byte offsets (inside sequences and code points too). */
function randomCuts(rnd: () => number, b: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  let off = 0;
  while (off < b.length) {
    const size = 1 + Math.floor(rnd() * (rnd() < 0.5 ? 4 : 40));
    chunks.push(b.subarray(off, off + size));
    off += size;
  }
  return chunks;
}

describe('sanitizeBytes (differential, against the regex sanitiser)', () => {
  it('sanitizes 30000 random valid UTF-8 inputs byte for byte like the regex form', () => {
    const rnd = lcg(20261202);
    for (let k = 0; k < 30000; k++) {
      const text = randomText(rnd, 40);
      // At every alignment: the scan reads four bytes at a time from the first aligned one.
      const shift = k & 7;
      const b = Buffer.concat([Buffer.alloc(shift), Buffer.from(text, 'utf8')]).subarray(shift);
      const want = Buffer.from(refSanitize(refNormalize(text)), 'utf8');
      const got = sanitizeBytes(b);
      if (!got.equals(want)) assert.fail(`input ${JSON.stringify(text)}: got ${JSON.stringify(got.toString())}, want ${JSON.stringify(want.toString())}`);
    }
  });

  it('finds the same open escape suffix as the regex form on 30000 random inputs', () => {
    const rnd = lcg(7);
    for (let k = 0; k < 30000; k++) {
      const text = randomText(rnd, 12);
      const open = refIncompleteEscapeSuffixLength(text);
      const want = Buffer.byteLength(text.slice(text.length - open), 'utf8');
      assert.equal(incompleteEscapeSuffixBytes(Buffer.from(text, 'utf8')), want, JSON.stringify(text));
    }
  });

  it('handles the cases named in the issue exactly', () => {
    const cases = [
      'a\x1b[31mred\x1b[0m b',
      'x\x1b]0;title\x07y\x1b]8;;http://h\x1b\\link\x1b]8;;\x1b\\z',
      'osc open \x1b]0;never ends\nnext\x1b[1mline',
      'dcs \x1bPq#0;2~~\x1b\\ after \x1bPnot closed',
      'c1 \u0085 \u009b31m csi8 \u009b? \u009c',
      'cr\r\nlf\rlone\r\r\n\n',
      'bs a\bb \x00 \x7f',
      '\ufffd日本😀\x1b[3😀m',
      '\x1b',
      '\x1b[',
      '\x1b(\x1b)0',
    ];
    for (const text of cases) {
      assert.equal(sanitizeBytes(Buffer.from(text)).toString(), refSanitize(refNormalize(text)), JSON.stringify(text));
    }
  });

  it('streams 3000 random inputs cut at random byte offsets exactly like the old decode stage', async function () {
    this.timeout(120000);
    const rnd = lcg(99);
    for (let k = 0; k < 3000; k++) {
      const input = randomBytes(rnd, 60, k % 3 === 0 ? 0.1 : 0);
      const chunks = randomCuts(rnd, input);
      const ref = new RefStream();
      for (const c of chunks) ref.push(c);
      const want = ref.finish();
      const got = await sinkStream(chunks);
      if (got !== want) {
        assert.fail(`input ${input.toString('hex')} valid=${isUtf8(input)} cuts ${chunks.map((c) => c.length).join(',')}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      }
    }
  });

  it('streams a long coloured log cut into 64 KiB and odd-sized chunks exactly like the old decode stage', async () => {
    const rnd = lcg(5);
    const lines: string[] = [];
    for (let k = 0; k < 20000; k++) {
      const line = `${k} ${randomText(rnd, 8).replace(/[\x1b\r\u009b]/g, '')} 日本 😀`;
      lines.push(rnd() < 0.05 ? `\x1b[3${k % 8}m${line}\x1b[0m` : rnd() < 0.02 ? `\x1b]8;;http://x/${k}\x07${line}\x1b]8;;\x07` : line);
    }
    const input = Buffer.from(lines.join(rnd() < 0.5 ? '\n' : '\r\n'), 'utf8');
    for (const size of [65536, 4093, 7]) {
      const chunks: Buffer[] = [];
      for (let off = 0; off < input.length; off += size) chunks.push(input.subarray(off, off + size));
      const ref = new RefStream();
      for (const c of chunks) ref.push(c);
      assert.equal(await sinkStream(chunks), ref.finish(), `chunk size ${size}`);
    }
  });
});
