import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ShellAnalyzer } from '../../../../../src/core/contracts';
import { BUILTIN_RULES } from '../../../../../src/core/policy/rules/builtinRules';
import { decide } from '../../../../../src/core/policy/policy';
import { createShellAnalyzer } from '../../../../../src/core/policy/analysis/shellAnalysis';
import { EVERYDAY, WRITERS_AND_RUNNERS } from './everydayCorpus';

// Issue 17, "What it must show": with only the built-in read-only list, everyday read-only agent
// commands are allowed at >= 90%, and every writer/runner form of the same programs asks.
describe('core/policy built-in list: everyday corpus', () => {
  let analyzer: ShellAnalyzer;
  let ws: string;
  before(async () => {
    analyzer = await createShellAnalyzer();
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-everyday-'));
    fs.mkdirSync(path.join(ws, 'src'));
    fs.mkdirSync(path.join(ws, 'test'));
    fs.writeFileSync(path.join(ws, 'src', 'x.ts'), 'export const foo = 1;\n// TODO bar\n');
    fs.writeFileSync(path.join(ws, 'src', 'index.ts'), 'import { foo } from "./x";\nexport function main() { return foo; }\n');
    fs.writeFileSync(path.join(ws, 'README.md'), '# readme\n\nfoo bar\n');
    fs.writeFileSync(path.join(ws, 'package.json'), '{"name":"x","version":"1.0.0","scripts":{"build":"tsc"}}\n');
    fs.writeFileSync(path.join(ws, 'tsconfig.json'), '{}\n');
    fs.writeFileSync(path.join(ws, 'a'), 'a\n');
    fs.writeFileSync(path.join(ws, 'b'), 'b\n');
  });
  after(() => fs.rmSync(ws, { recursive: true, force: true }));
  const run = (command: string) => decide(analyzer.analyze(command), [...BUILTIN_RULES], { cwd: ws, workspaceRoots: [ws] });

  it(`has at least 200 everyday lines and 60 writer/runner lines`, () => {
    assert.ok(EVERYDAY.length >= 200, String(EVERYDAY.length));
    assert.ok(WRITERS_AND_RUNNERS.length >= 60, String(WRITERS_AND_RUNNERS.length));
    assert.equal(new Set(EVERYDAY).size, EVERYDAY.length, 'no duplicates');
  });

  it('allows at least 90% of the everyday read-only lines', () => {
    const refused: string[] = [];
    for (const line of EVERYDAY) {
      const d = run(line);
      if (d.decision !== 'allow') refused.push(`${line}  ->  ${d.reason}`);
    }
    const allowed = EVERYDAY.length - refused.length;
    const pct = (100 * allowed) / EVERYDAY.length;
    console.log(`      everyday corpus: ${allowed}/${EVERYDAY.length} allowed (${pct.toFixed(1)}%)`);
    for (const r of refused) console.log(`        asks: ${r}`);
    assert.ok(pct >= 90, `${pct.toFixed(1)}% allowed`);
  });

  for (const line of WRITERS_AND_RUNNERS) {
    it(`asks for ${JSON.stringify(line)}`, () => {
      const d = run(line);
      assert.equal(d.decision, 'prompt', d.reason);
    });
  }
});
