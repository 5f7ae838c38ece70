// Where tree-sitter and bash put word boundaries differently, bash is the judge: every line below
// makes bash read a secret outside the workspace (checked by running it), and none may be allowed by
// the built-in read-only list. Found by the grammar fuzzer (`[\k]eys`) and by reading the parse of a
// redirect's words (`cat < a /etc/x`, `cat <<EOF /etc/x`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ShellAnalyzer } from '../../../../src/core/contracts';
import { BUILTIN_LAYER_SOURCE, BUILTIN_RULES } from '../../../../src/core/policy/rules/builtinRules';
import { decide } from '../../../../src/core/policy/policy';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';
import { TEST_EXPANDER } from './testExpander';

describe('core/policy: word boundaries as bash draws them', function () {
  this.timeout(60_000);
  let analyzer: ShellAnalyzer;
  let base: string;
  let ws: string;
  let secret: string;
  before(async () => {
    analyzer = await createShellAnalyzer();
    base = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-words-'));
    ws = path.join(base, 'ws');
    mkdirSync(ws);
    mkdirSync(path.join(base, 'secret'));
    secret = path.join(base, 'secret', 'key');
    writeFileSync(secret, 'SECRET-WORDS\n');
    symlinkSync(path.join(base, 'secret'), path.join(ws, 'keys'));
    writeFileSync(path.join(ws, 'README.md'), 'readme\n');
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const lines = (): string[] => [
    'cat [\\k]eys/key',
    'cat k[\\e]ys/key',
    'head [\\k]eys/k[\\e]y',
    `cat < README.md ${secret}`,
    `cat 2>/dev/null ${secret}`,
    `grep -h SECRET < README.md ${secret}`,
    `cat <<EOF ${secret}\nhi\nEOF`,
    `cat <<'EOF' README.md ${secret}\nhi\nEOF`,
  ];

  it('bash reads the secret with each line (the test can fail)', () => {
    for (const line of lines()) {
      const r = spawnSync('bash', ['-c', line], { cwd: ws, encoding: 'utf8' });
      assert.match(`${r.stdout}${r.stderr}`, /SECRET-WORDS/, line);
    }
  });

  it('none of them is allowed by the built-in read-only list', () => {
    const layers = [{ layer: 'builtin' as const, source: BUILTIN_LAYER_SOURCE, rules: [...BUILTIN_RULES] }];
    for (const line of lines()) {
      const d = decide(analyzer.analyze(line), layers, { cwd: ws, workspaceRoots: [ws], expander: TEST_EXPANDER });
      assert.notEqual(d.decision, 'allow', `${line}: ${d.reason}`);
    }
    // The same programs on plain words stay allowed: the check is about the boundaries only.
    const plain = decide(analyzer.analyze('cat README.md 2>/dev/null'), layers, { cwd: ws, workspaceRoots: [ws], expander: TEST_EXPANDER });
    assert.equal(plain.decision, 'allow', plain.reason);
  });
});
