import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RuleLayer, ShellAnalyzer } from '../../../../src/core/contracts';
import { BUILTIN_LAYER_SOURCE, BUILTIN_RULES } from '../../../../src/core/policy/rules/builtinRules';
import { decide } from '../../../../src/core/policy/policy';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';
import { judgeBatch, prepareWorkspaces, sandboxAvailable, type Observed } from './differential/sandboxJudge';
import { TEST_EXPANDER } from '../../core/policy/testExpander';

// The programs are the judges of this round's red-team classes (redTeamBuiltin.test.ts asserts the
// decisions over more spellings): each line is run by real bash in a bubblewrap sandbox under strace,
// the test asserts that it really wrote or ran what the class says, and that the built-in list asks.
describe('core/policy red team, judged by the programs themselves', function () {
  this.timeout(120_000);
  let analyzer: ShellAnalyzer;
  const layers: RuleLayer[] = [{ layer: 'builtin', source: BUILTIN_LAYER_SOURCE, rules: [...BUILTIN_RULES] }];
  before(async function () {
    if (!sandboxAvailable()) this.skip();
    analyzer = await createShellAnalyzer();
  });

  const git = (cwd: string, ...args: string[]): string => {
    const r = spawnSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };

  /** A commit whose object carries a `gpgsig` header (no key needed: git verifies whatever is there). */
  function signedCommit(ws: string): void {
    git(ws, 'add', 'README.md');
    git(ws, 'commit', '-qm', 'init');
    const tree = git(ws, 'rev-parse', 'HEAD^{tree}');
    const body = `tree ${tree}\nauthor a <a@b> 1700000000 +0000\ncommitter a <a@b> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n`;
    fs.writeFileSync(path.join(ws, '.c'), body);
    const id = git(ws, 'hash-object', '-t', 'commit', '-w', '.c');
    fs.rmSync(path.join(ws, '.c'));
    git(ws, 'update-ref', 'HEAD', id);
  }

  /** `evil.git`, a bare repository inside the workspace whose config names a textconv program. */
  function bareRepository(ws: string): void {
    const bare = path.join(ws, 'evil.git');
    git(ws, 'init', '-q', '--bare', bare);
    git(bare, 'config', 'diff.x.textconv', `touch ${path.join(ws, 'TEXTCONV')}; cat`);
    fs.writeFileSync(path.join(bare, 'info', 'attributes'), '* diff=x\n');
    const work = fs.mkdtempSync(path.join(path.dirname(ws), 'bare-work-'));
    fs.writeFileSync(path.join(work, 'f'), 'a\n');
    git(work, `--git-dir=${bare}`, `--work-tree=${work}`, 'add', 'f');
    git(work, `--git-dir=${bare}`, `--work-tree=${work}`, 'commit', '-qm', 'one');
    fs.writeFileSync(path.join(work, 'f'), 'b\n');
    git(work, `--git-dir=${bare}`, `--work-tree=${work}`, 'commit', '-qam', 'two');
  }

  const wrote = (seen: Observed, file: string): boolean => seen.written.some((w) => w.path === file);

  interface Case {
    command: string;
    setup?: (ws: string) => void;
    /** What the program did that the class says it does. */
    did: (seen: Observed, ws: string) => boolean;
  }
  const cases: Case[] = [
    { command: 'uniq -- README.md{,.out}', did: (s, ws) => wrote(s, path.join(ws, 'README.md.out')) },
    { command: 'uniq README.md{,}', did: (s, ws) => wrote(s, path.join(ws, 'README.md')) },
    { command: "f=' -o pwned'; sort -t ,$f README.md", did: (s, ws) => wrote(s, path.join(ws, 'pwned')) },
    { command: "f=' -opwned'; sort --key=1$f README.md", did: (s, ws) => wrote(s, path.join(ws, 'pwned')) },
    { command: "f=' -fprint pwned'; find . -name x$f", did: (s, ws) => wrote(s, path.join(ws, 'pwned')) },
    { command: "f=' README.md pwned'; uniq -f 1$f", did: (s, ws) => wrote(s, path.join(ws, 'pwned')) },
    { command: "f=' --output=pwned'; git log --author=x$f", setup: signedCommit, did: (s, ws) => wrote(s, path.join(ws, 'pwned')) },
    { command: 'git log --format=%G?', setup: signedCommit, did: (s) => s.executed.includes('gpg') },
    { command: "git log --pretty='format:%h %GK'", setup: signedCommit, did: (s) => s.executed.includes('gpg') },
    { command: 'git -C evil.git log -p', setup: bareRepository, did: (s, ws) => wrote(s, path.join(ws, 'TEXTCONV')) },
  ];

  it('each line does what its class says under bash, and the built-in list asks for it', async () => {
    const { base, workspaces, dispose } = prepareWorkspaces(cases.length);
    try {
      cases.forEach((c, i) => c.setup?.(workspaces[i]));
      // Decided before anything runs: a line's own writes must not change its decision.
      const decisions = cases.map((c, i) => decide(analyzer.analyze(c.command), layers, { cwd: workspaces[i], workspaceRoots: [workspaces[i]], expander: TEST_EXPANDER }));
      const seen = await judgeBatch(base, cases.map((c, i) => ({ command: c.command, workspace: workspaces[i] })), 'redteam');
      cases.forEach((c, i) => {
        assert.ok(c.did(seen[i], workspaces[i]), `${JSON.stringify(c.command)} did not do what its class says: ${JSON.stringify(seen[i])}`);
        assert.equal(decisions[i].decision, 'prompt', `${JSON.stringify(c.command)}: ${decisions[i].reason}`);
      });
    } finally {
      dispose();
    }
  });
});
