// The docs name source files by path; this keeps every such name true, so a move or a rename that
// forgets a document fails here instead of leaving the reader a dead path. It also keeps the README a
// guide (short, naming the two commands CI runs) and every link between the documents, and every
// guarantee the README sums up stated in full where it points.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');
const DOCS = [
  'README.md', 'CONTRIBUTING.md',
  'docs/ARCHITECTURE.md', 'docs/POLICY.md', 'docs/SANDBOX.md', 'docs/SESSIONS.md', 'docs/CLI-AND-MCP.md',
];
/** The README is the marketplace page and a five-minute read: the rest lives in the other documents. */
const README_MAX_LINES = 200;

/** Folders a path may begin with; the ones under src/ are also written without `src/` (and `policy/…` without `core/`). */
const FROM_ROOT = ['src', 'test', 'bench', 'scripts', 'docs', 'api'];
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

describe('docs: every source path named in the documents exists', () => {
  it('reads paths the way the docs write them', () => {
    assert.deepEqual(
      namedPaths('see `core/pipeline.ts`, (policy/rules/ruleGlob.ts), src/exec/sandbox/ and test/unit/x.test.ts. Not .vscode/settings.json, @vscode/test-electron, out/test/unit, src/grep'),
      ['core/pipeline.ts', 'policy/rules/ruleGlob.ts', 'src/exec/sandbox/', 'test/unit/x.test.ts'],
    );
  });

  it('reads the documents: together they name many paths (else the pattern no longer reads them)', () => {
    const names = DOCS.flatMap((doc) => namedPaths(readFileSync(path.join(root, doc), 'utf8')));
    assert.ok(names.length >= 50, `the documents name ${names.length} paths`);
  });

  for (const doc of DOCS) {
    it(`${doc} names only paths that exist`, () => {
      const names = namedPaths(readFileSync(path.join(root, doc), 'utf8'));
      const missing = names.filter((name) => !candidates(name).some((c) => existsSync(path.join(root, c))));
      assert.deepEqual(missing, [], `${doc} names paths that do not exist`);
    });
  }
});

/** A heading's anchor as GitHub and the marketplace make it: lower case, punctuation dropped, spaces to `-`. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(path.join(root, file), 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1])));
}

describe('docs: the README is a guide, and the documents hold the rest', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

  it(`the README has at most ${README_MAX_LINES} lines and names the two commands (CI runs its test command)`, () => {
    const lines = readme.split('\n').length - 1;
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines`);
    for (const command of ['npm ci && npm start', 'npm ci && npm test']) assert.ok(readme.includes(`\`${command}\``), command);
  });

  it('reads anchors the way headings make them', () => {
    assert.equal(anchor('Use it from Claude Code, Codex, Cline…'), 'use-it-from-claude-code-codex-cline');
    assert.equal(anchor('Rule layers'), 'rule-layers');
  });

  it('every link to a heading or to another document leads somewhere', () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      const text = readFileSync(path.join(root, doc), 'utf8');
      for (const [, href] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
        const at = href.indexOf('#');
        const file = at < 0 ? href : href.slice(0, at);
        const hash = at < 0 ? undefined : href.slice(at + 1);
        const target = file === '' ? doc : path.posix.join(path.posix.dirname(doc), file);
        if (!existsSync(path.join(root, target))) broken.push(`${doc}: ${href} (no file ${target})`);
        else if (hash !== undefined && !anchors(target).has(hash)) broken.push(`${doc}: ${href} (no heading #${hash} in ${target})`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('every document the README points to is one this test reads', () => {
    const named = [...readme.matchAll(/`((?:docs\/)?[A-Z][A-Z-]*\.md)`/g)].map((m) => m[1]);
    assert.ok(named.length >= 5, `the README points to ${named.length} documents`);
    assert.deepEqual(named.filter((name) => !DOCS.includes(name)), []);
  });

  // Each guarantee the README sums up, and the text that states it in full where the README points.
  const GUARANTEES: [string, string][] = [
    ['docs/POLICY.md', '**What "auto-approved" guarantees.** A line that runs without asking anyone'],
    ['docs/POLICY.md', '**Allow is a whitelist of syntax.**'],
    ['docs/POLICY.md', '**Deny beats prompt beats allow, within a layer and across layers, whatever the order**'],
    ['docs/POLICY.md', "In a workspace you have not trusted, VS Code hands Agent Bash only your user-level values"],
    ['docs/POLICY.md', '**What this guarantees, and what it does not.** The claim is tested, not assumed'],
    ['docs/SANDBOX.md', '**Nothing outlives its command.**'],
    ['docs/SANDBOX.md', '**What the sandbox does not cover**'],
    ['docs/SANDBOX.md', '## Read-only by construction'],
  ];
  it('every guarantee the README sums up is stated in full in the document it points to', () => {
    const missing = GUARANTEES.filter(([doc, text]) => !readFileSync(path.join(root, doc), 'utf8').includes(text));
    assert.deepEqual(missing, []);
  });
});
