import * as assert from 'node:assert/strict';
import path from 'node:path';

// The panel's Markdown reader is plain JS loaded by the webview; it exports itself to CommonJS too.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const md = require(path.resolve(__dirname, '../../../../media/markdown.js')) as {
  parse(text: string): unknown[];
  inline(text: string): unknown[];
};

describe('webview/markdown (agent messages in the panel)', () => {
  it('reads fenced code, headings, lists, quotes and paragraphs', () => {
    assert.deepEqual(md.parse('# Title\n\nRan `ls`:\n```sh\na <b>\n```\n- one\n- **two**\n1. first\n> quoted'), [
      { type: 'heading', level: 1, children: [{ type: 'text', text: 'Title' }] },
      { type: 'para', children: [{ type: 'text', text: 'Ran ' }, { type: 'code', text: 'ls' }, { type: 'text', text: ':' }] },
      { type: 'code', lang: 'sh', text: 'a <b>' },
      { type: 'list', ordered: false, items: [[{ type: 'text', text: 'one' }], [{ type: 'strong', children: [{ type: 'text', text: 'two' }] }]] },
      { type: 'list', ordered: true, items: [[{ type: 'text', text: 'first' }]] },
      { type: 'quote', children: [{ type: 'text', text: 'quoted' }] },
    ]);
  });

  it('raw HTML stays text, and only http(s) links become links', () => {
    assert.deepEqual(md.inline('<img src=x onerror=alert(1)> *it* [a](javascript:void) [b](https://x.dev)'), [
      { type: 'text', text: '<img src=x onerror=alert(1)> ' },
      { type: 'em', children: [{ type: 'text', text: 'it' }] },
      { type: 'text', text: ' ' },
      { type: 'text', text: '[a](javascript:void)' },
      { type: 'text', text: ' ' },
      { type: 'link', href: 'https://x.dev', children: [{ type: 'text', text: 'b' }] },
    ]);
  });

  it('an unfinished fence (a message still streaming) is code up to the end', () => {
    assert.deepEqual(md.parse('```\nline 1\nline 2'), [{ type: 'code', lang: '', text: 'line 1\nline 2' }]);
  });
});
