// An MCP result's text under the client's cap: head, a line naming the cut and the artifact, tail.
import assert from 'node:assert/strict';
import { capResultText, capText, DEFAULT_MCP_RESULT_CHARS, GEMINI_CLI_RESULT_THRESHOLD, namedArtifact } from '../../../src/mcp/resultCap';
import type { ArtifactStore } from '../../../src/core/contracts';

function lines(n: number, width = 20): string {
  return Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(6, '0')} ${'y'.repeat(width)}`).join('\n');
}

describe('mcp/resultCap', () => {
  it('leaves a text at or under the cap alone and asks for no artifact', async () => {
    const text = 'a'.repeat(100);
    assert.equal(await capText(text, 100, () => Promise.reject(new Error('no artifact wanted'))), text);
  });

  it('cuts the middle on line boundaries, keeps start and end, and names the cut and the artifact', async () => {
    const text = `${lines(5000)}\n[exit code 3]`;
    const out = await capText(text, 10_000, () => Promise.resolve('7'));
    assert.ok(out.length <= 10_000, `${out.length}`);
    assert.ok(out.startsWith('000001 y'));
    assert.ok(out.endsWith('\n[exit code 3]'));
    const m = /\n\[… (\d+) characters cut here to fit the client's 10000-character limit; the whole text is artifact:\/\/7 \(read_artifact\) …\]\n/.exec(out);
    assert.ok(m, out.slice(3000, 4500));
    // What is shown plus what was cut is the whole text: head + cut + tail.
    const [head, tail] = out.split(m[0]);
    assert.equal(head.length + 1 + Number(m[1]) + tail.length, text.length);
    assert.equal(text.slice(0, head.length), head);
    assert.equal(text.slice(text.length - tail.length), tail);
    assert.match(tail, /^\d{6} y/);
  });

  it('leaves room at the default for the wrapper Gemini CLI puts around a result before its 40,000-character cut', async () => {
    // `seq 1 300000` (2 MB) as the pipeline returns it: 39,997 characters, which Gemini CLI 0.61 cut.
    const lines = Array.from({ length: 300000 }, (_, i) => String(i + 1));
    const text = `${lines.slice(0, 4354).join('\n')}\n${lines.slice(295647).join('\n')}\n\n[Showing lines 1-4354 and 295648-300000 of 300000]`;
    const out = await capText(text, DEFAULT_MCP_RESULT_CHARS, () => Promise.resolve('2'));
    const wrapped = `<untrusted_context>\n${out}\n</untrusted_context>`;
    assert.ok(wrapped.length <= GEMINI_CLI_RESULT_THRESHOLD, `${wrapped.length} characters`);
    assert.ok(out.endsWith('\n300000\n\n[Showing lines 1-4354 and 295648-300000 of 300000]'));
  });

  it('holds for 2 MB and 200 MB texts', async () => {
    for (const size of [2 * 1024 * 1024, 200 * 1024 * 1024]) {
      const text = `${'z'.repeat(size)}\nEND`;
      const out = await capText(text, 40_000, () => Promise.resolve('1'));
      assert.ok(out.length <= 40_000, `${size}: ${out.length}`);
      assert.ok(out.endsWith('\nEND'));
      assert.match(out, /\n\[… \d+ characters cut here to fit the client's 40000-character limit; the whole text is artifact:\/\/1 \(read_artifact\) …\]\n/);
    }
  });

  it('reuses the artifact the text names when this session owns it, else saves the whole text once', async () => {
    const saved: string[] = [];
    const store = { save: (_kind: string, text: string) => (saved.push(text), Promise.resolve('42')) } as unknown as ArtifactStore;
    const owned: string[] = [];
    const named = `${'x\n'.repeat(30_000)}Read artifact://9 for full output`;
    assert.equal(namedArtifact(named), '9');
    const [withNamed] = await capResultText([named], 5_000, store, (id) => id === '9', (id) => owned.push(id));
    assert.match(withNamed, /the whole text is artifact:\/\/9 /);
    assert.deepEqual(saved, []);
    const plain = 'p\n'.repeat(30_000);
    const [withSaved] = await capResultText([plain, 'second part'], 5_000, store, () => false, (id) => owned.push(id));
    assert.match(withSaved, /the whole text is artifact:\/\/42 /);
    assert.deepEqual(saved, [`${plain}\nsecond part`]);
    assert.deepEqual(owned, ['42']);
  });
});
