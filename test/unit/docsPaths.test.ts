// The docs name source files by path; this keeps every such name true, so a move or a rename that
// forgets README.md or docs/ARCHITECTURE.md fails here instead of leaving the reader a dead path.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');
const DOCS = ['README.md', 'docs/ARCHITECTURE.md', 'docs/SANDBOX.md'];

/** Folders a path may begin with; the ones under src/ are also written without `src/` (and `policy/…` without `core/`). */
const FROM_ROOT = ['src', 'test', 'bench', 'scripts'];
const SHORT = ['core', 'exec', 'vscode', 'acp', 'mcp', 'cli', 'policy', 'output', 'sandbox'];
// A path is a word that starts with one of those folders (not inside `.vscode/` or `@vscode/`, not the
// tail of a longer path) and ends in a file extension or a slash.
const PATH = new RegExp(`(?<![\\w.@/-])(?:${[...FROM_ROOT, ...SHORT].join('|')})/[\\w./-]*`, 'g');

/** Every source path a document names, as written. */
function namedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(PATH)) {
    const name = match[0].replace(/[.,]+$/, '');
    if (name.endsWith('/') || /\/[\w.-]*\.[A-Za-z]{1,4}$/.test(name)) found.add(name);
  }
  return [...found];
}

/** Where a named path may be: from the repository root, or under src/, src/core/ or src/exec/ for the short forms. */
function candidates(name: string): string[] {
  if (FROM_ROOT.includes(name.split('/')[0])) return [name];
  return [`src/${name}`, `src/core/${name}`, `src/exec/${name}`];
}

describe('docs: every source path named in README.md and docs/ARCHITECTURE.md exists', () => {
  it('reads paths the way the docs write them', () => {
    assert.deepEqual(
      namedPaths('see `core/pipeline.ts`, (policy/ruleGlob.ts), src/exec/sandbox/ and test/unit/x.test.ts. Not .vscode/settings.json, @vscode/test-electron, out/test/unit, src/grep'),
      ['core/pipeline.ts', 'policy/ruleGlob.ts', 'src/exec/sandbox/', 'test/unit/x.test.ts'],
    );
  });

  for (const doc of DOCS) {
    it(`${doc} names only paths that exist`, () => {
      const names = namedPaths(readFileSync(path.join(root, doc), 'utf8'));
      assert.ok(names.length >= 10, `${doc} names ${names.length} paths: the pattern no longer reads it`);
      const missing = names.filter((name) => !candidates(name).some((c) => existsSync(path.join(root, c))));
      assert.deepEqual(missing, [], `${doc} names paths that do not exist`);
    });
  }
});
