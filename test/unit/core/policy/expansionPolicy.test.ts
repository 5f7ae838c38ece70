// The policy judges words as bash expands them (segmentExpansion.ts, exec/bashExpander.ts), with
// bash as the judge: under an allow rule `cat *`, every generated word that bash expands to a path
// outside the workspace (through `link` → /etc, `out` → a folder outside, `..`, `~`) makes the
// command ask; and the `touch WORD` commands the policy allows, run by bash, leave the folder
// outside untouched.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PolicyRule, ShellAnalyzer } from '../../../../src/core/contracts';
import { decide, UNEXPANDED_REASON } from '../../../../src/core/policy/policy';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';
import { EXPANSION } from '../../../../src/core/policy/analysis/wordExpansion';
import { expansionWorkspace, grammarWords, type ExpansionWorkspace } from './expansionGrammar';
import { TEST_EXPANDER } from './testExpander';

/** bash's own fields for `printf '%s\0' WORD` in `cwd`; undefined when bash refuses the word. */
function bashFields(word: string, cwd: string): string[] | undefined {
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', `printf '%s\\0' ${word}`], { cwd, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\0').slice(0, -1) : undefined;
}

/** The real path of the existing part of `p`, the rest appended (what opening it would reach). */
function reach(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    const parent = path.dirname(p);
    return parent === p ? p : path.join(reach(parent), path.basename(p));
  }
}

function inside(p: string, root: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

describe('core/policy: words judged as bash expands them', () => {
  let analyzer: ShellAnalyzer;
  let ws: ExpansionWorkspace;
  const ctx = () => ({ cwd: ws.root, workspaceRoots: [ws.root], expander: TEST_EXPANDER });
  const run = (command: string, rules: PolicyRule[]) => decide(analyzer.analyze(command), rules, ctx());
  before(async () => {
    analyzer = await createShellAnalyzer();
    ws = expansionWorkspace();
  });
  after(() => ws.dispose());

  it('every word bash expands to a path outside the workspace makes `cat WORD` ask under allow `cat *`', () => {
    const rules: PolicyRule[] = [{ match: 'cat *', approval: 'allow' }];
    let outsideWords = 0;
    let allowed = 0;
    for (const word of grammarWords(400)) {
      const fields = bashFields(word, ws.root);
      const d = run(`cat ${word}`, rules);
      if (d.decision === 'allow') allowed++;
      if (fields === undefined) continue;
      const escapes = fields.some((f) => {
        const p = path.resolve(ws.root, f);
        return !inside(p, ws.root) || !inside(reach(p), ws.root);
      });
      if (!escapes) continue;
      outsideWords++;
      assert.notEqual(d.decision, 'allow', `cat ${word} → ${fields.join(' ')}: ${d.reason}`);
    }
    // Neither half may be empty: the corpus reaches outside, and not everything asks.
    assert.ok(outsideWords > 60, `only ${outsideWords} words reach outside`);
    assert.ok(allowed > 60, `only ${allowed} commands allowed`);
  });

  it('a `touch WORD` the policy allows, run by bash, writes nothing outside the workspace', () => {
    const rules: PolicyRule[] = [{ match: 'touch *', approval: 'allow' }];
    const words = [
      ...grammarWords(200, 5).filter((w) => !w.includes('link')),
      'out/*', 'o[u]t/new', 'o{u,x}t/f', 'ou?/g', '[o]ut/{1..3}', 'out/[[:alpha:]]', '"out"/h', '\\out/i', 'o\\ut/*', '~+/out/j', 'sub/../out/k',
    ];
    let ran = 0;
    for (const word of words) {
      const command = `touch ${word}`;
      if (run(command, rules).decision !== 'allow') continue;
      const r = spawnSync('bash', ['--norc', '--noprofile', '-c', command], { cwd: ws.root, encoding: 'utf8' });
      assert.ok(r.status !== null, command);
      ran++;
    }
    assert.deepEqual(fs.readdirSync(ws.outside), []);
    assert.ok(ran > 40, `only ${ran} touch commands allowed`);
    // And the same words do write outside when bash runs them regardless: the check is not vacuous.
    spawnSync('bash', ['--norc', '--noprofile', '-c', 'touch o{u,x}t/new "out"/h'], { cwd: ws.root });
    assert.deepEqual(fs.readdirSync(ws.outside).sort(), ['h', 'new']);
    for (const f of fs.readdirSync(ws.outside)) fs.rmSync(path.join(ws.outside, f));
  });

  it('a word the expander may not evaluate asks and names the word', () => {
    const rules: PolicyRule[] = [{ match: 'ls *', approval: 'allow' }];
    assert.equal(run("ls $'\\x2a'*", rules).reason, UNEXPANDED_REASON('ls **', 1, "$'\\x2a'*", EXPANSION.lexical('`$` (an expansion)')));
    assert.equal(run('ls ~-/x', rules).reason, UNEXPANDED_REASON('ls ~-/x', 1, '~-/x', EXPANSION.dirStack));
    assert.equal(run('ls x=~2', rules).reason, UNEXPANDED_REASON('ls x=~2', 1, 'x=~2', EXPANSION.dirStack));
    // Static redirect targets: bash refuses `> {a,b}` (ambiguous redirect).
    assert.equal(run('ls > {a,b}', [{ match: 'ls *', approval: 'allow', allowRedirects: true }]).reason, UNEXPANDED_REASON('ls', 1, '{a,b}', EXPANSION.ambiguous(2)));
    // Without an expander every word with expansion syntax asks; words without it never need one.
    const bare = (command: string) => decide(analyzer.analyze(command), rules, { cwd: ws.root, workspaceRoots: [ws.root] });
    assert.equal(bare('ls *.txt').reason, UNEXPANDED_REASON('ls *.txt', 1, '*.txt', EXPANSION.noExpander));
    assert.equal(bare("ls '*.txt' b.txt").decision, 'allow');
  });

  it('tilde, brace and glob words that stay inside are allowed, and each is judged as bash reads it', () => {
    const rules: PolicyRule[] = [{ match: 'cat *', approval: 'allow' }, { match: 'ls *', approval: 'allow' }];
    for (const command of ['cat *.txt', 'cat c{1,2}', 'cat c{1..2}', 'cat [[:alpha:]]', 'cat sub/*', "cat '~'", 'ls ~+', 'cat "link"*x', 'cat [!lo]*']) {
      assert.equal(run(command, rules).decision, 'allow', `${command}: ${run(command, rules).reason}`);
    }
    assert.equal(run('cat l[[:alpha:]]nk/host[[.n.]]ame', rules).reason, '`cat l[[:alpha:]]nk/host[[.n.]]ame` in segment 1 touches `link/hostname` (/etc/hostname), outside the workspace');
    assert.equal(run('cat l{h..j}nk/passwd', rules).reason, '`cat l{h..j}nk/passwd` in segment 1 touches `link/passwd` (/etc/passwd), outside the workspace');
    assert.equal(run('ls ~', rules).reason, `\`ls ~\` in segment 1 touches \`${os.homedir()}\` (${os.homedir()}), outside the workspace`);
  });

  it('a later segment is judged where an earlier `cd` may have gone too', () => {
    const rules: PolicyRule[] = [{ match: 'cat *', approval: 'allow' }, { match: 'cd *', approval: 'allow' }, { match: 'ls *', approval: 'allow' }];
    fs.symlinkSync('/etc', path.join(ws.root, 'sub', 'l2'));
    try {
      assert.equal(run('cd sub && cat l2/passwd', rules).reason, '`cat l2/passwd` in segment 2 touches `l2/passwd` (/etc/passwd), outside the workspace');
      assert.equal(run('cd sub && cat l?/pass*', rules).reason, '`cat l?/pass*` in segment 2 touches `l2/passwd` (/etc/passwd), outside the workspace');
      assert.equal(run('cd sub; cd ..; cat sub/l2/hostname', rules).decision, 'prompt');
      for (const command of ['cd sub && cat *.txt', 'cd sub && ls -la && cat x', 'cat a && cd sub']) {
        assert.equal(run(command, rules).decision, 'allow', `${command}: ${run(command, rules).reason}`);
      }
      // And bash agrees: in `sub`, `l?/pass*` is /etc/passwd.
      const r = spawnSync('bash', ['--norc', '--noprofile', '-c', "cd sub && printf '%s\\n' l?/pass*"], { cwd: ws.root, encoding: 'utf8' });
      assert.equal(r.stdout.split('\n')[0], 'l2/passwd');
    } finally {
      fs.rmSync(path.join(ws.root, 'sub', 'l2'));
    }
  });
});
