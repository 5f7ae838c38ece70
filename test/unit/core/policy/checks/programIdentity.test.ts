// The program that runs is the one the rule names: under an allow rule, a path-qualified command
// name must be, by real path, the file PATH lookup of its basename finds; any other asks and names
// it. Deny rules still match by basename. Allowed commands are then run by bash in a workspace
// whose look-alike programs write a canary: none of them runs.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PolicyRule, ShellAnalyzer } from '../../../../../src/core/contracts';
import { decide } from '../../../../../src/core/policy/policy';
import { foreignProgram, lookupPath, PROGRAM_IDENTITY } from '../../../../../src/core/policy/checks/programIdentity';
import { createShellAnalyzer } from '../../../../../src/core/policy/analysis/shellAnalysis';
import { TEST_EXPANDER } from '../testExpander';

const RULES: PolicyRule[] = ['ls *', 'grep *', 'cat *', 'x *', 'timeout *', 'rm *'].map((match) => ({ match, approval: 'allow' }));

describe('core/policy: the program that runs is the one the rule names', () => {
  let analyzer: ShellAnalyzer;
  let ws: string;
  let canary: string;
  const PATH = process.env.PATH ?? '';
  const run = (command: string, rules = RULES, cwd = ws) => decide(analyzer.analyze(command), rules, { cwd, workspaceRoots: [ws], expander: TEST_EXPANDER });
  const found = (name: string): string => lookupPath(name, PATH, ws) ?? assert.fail(`no ${name} on PATH`);

  before(async () => {
    analyzer = await createShellAnalyzer();
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'program-identity-')));
    canary = path.join(ws, 'CANARY');
    const fake = `#!/bin/sh\necho "$0" >> '${canary}'\n`;
    for (const p of ['ls', 'rm', 'timeout', 'src/grep', 'tools/x', 'sub/.keep']) {
      fs.mkdirSync(path.dirname(path.join(ws, p)), { recursive: true });
      fs.writeFileSync(path.join(ws, p), fake, { mode: 0o755 });
    }
  });
  after(() => fs.rmSync(ws, { recursive: true, force: true }));

  it('a path-qualified name that is not the PATH one asks, naming it', () => {
    assert.equal(run('./ls').reason, PROGRAM_IDENTITY.other('ls', 1, './ls', 'ls', found('ls')));
    assert.equal(run('"./ls" -la').reason, PROGRAM_IDENTITY.other('ls -la', 1, './ls', 'ls', found('ls')));
    assert.equal(run('src/grep x a').reason, PROGRAM_IDENTITY.other('grep x a', 1, 'src/grep', 'grep', found('grep')));
    assert.equal(run('../tools/x', RULES, path.join(ws, 'sub')).reason, PROGRAM_IDENTITY.notOnPath('x', 1, '../tools/x', 'x'));
    assert.equal(run('~/bin/cat a').reason, PROGRAM_IDENTITY.other('cat a', 1, `${os.homedir()}/bin/cat`, 'cat', found('cat')));
    assert.equal(run('/proc/self/cwd/ls').reason, PROGRAM_IDENTITY.procfs('ls', 1, '/proc/self/cwd/ls'));
    // A wrapper's own name counts too: `./timeout` would run with `5 ls` as its arguments.
    assert.equal(run('./timeout 5 ls').reason, PROGRAM_IDENTITY.other('ls', 1, './timeout', 'timeout', found('timeout')));
  });

  it('the PATH program, written with its path or through a link to it, is allowed', () => {
    const ls = found('ls');
    assert.equal(run(`${ls} -la`).decision, 'allow');
    fs.symlinkSync(ls, path.join(ws, 'ls-link'));
    try {
      assert.equal(run('./ls-link', [{ match: 'ls-link', approval: 'allow' }]).reason, PROGRAM_IDENTITY.notOnPath('ls-link', 1, './ls-link', 'ls-link'));
    } finally {
      fs.rmSync(path.join(ws, 'ls-link'));
    }
    // Another spelling of the same file (`/bin/ls` where /bin links to /usr/bin) is the same program.
    const other = ls.startsWith('/usr/bin/') ? ls.replace('/usr/bin/', '/bin/') : ls;
    assert.equal(run(`${other}`).decision, fs.realpathSync(other) === fs.realpathSync(ls) ? 'allow' : 'prompt');
  });

  it('deny and prompt rules still match by basename', () => {
    const rules: PolicyRule[] = [{ match: 'rm *', approval: 'deny' }, ...RULES];
    assert.equal(run('./rm -rf x', rules).decision, 'deny');
    assert.equal(run('/usr/bin/rm -rf x', rules).decision, 'deny');
    assert.equal(run('./ls', [{ match: 'ls', approval: 'prompt' }]).kind, 'rule');
  });

  it('no allowed command runs a look-alike program when bash runs it', () => {
    const commands = ['ls', './ls', 'ls -la', `${found('ls')} -la`, 'src/grep x a', './timeout 5 ls', '\\ls', 'l\\s', './rm x', 'cd src && ./grep x', 'tools/x', '"ls"'];
    let ran = 0;
    for (const command of commands) {
      if (run(command).decision !== 'allow') continue;
      spawnSync('bash', ['--norc', '--noprofile', '-c', command], { cwd: ws, encoding: 'utf8' });
      ran++;
    }
    assert.equal(fs.existsSync(canary), false, fs.existsSync(canary) ? fs.readFileSync(canary, 'utf8') : '');
    assert.ok(ran >= 5, `only ${ran} commands allowed`);
    // The look-alikes do run when called: the check is not vacuous.
    spawnSync('bash', ['--norc', '--noprofile', '-c', './ls'], { cwd: ws });
    assert.equal(fs.readFileSync(canary, 'utf8'), './ls\n');
    fs.rmSync(canary);
  });

  it('a bare name PATH finds through a relative entry (`.`, an empty one) is a file of the cwd: it asks', () => {
    const seg = (command: string) => analyzer.analyze(command).segments[0];
    assert.equal(foreignProgram(seg('ls -la'), 1, ws, `.:${PATH}`), PROGRAM_IDENTITY.relativePath('ls -la', 1, 'ls', path.join(ws, 'ls')));
    assert.equal(foreignProgram(seg('ls -la'), 1, ws, `:${PATH}`), PROGRAM_IDENTITY.relativePath('ls -la', 1, 'ls', path.join(ws, 'ls')));
    // Found first in an absolute entry, or a builtin (bash never looks it up): the PATH one.
    assert.equal(foreignProgram(seg('ls -la'), 1, ws, `${PATH}:.`), undefined);
    fs.writeFileSync(path.join(ws, 'echo'), '#!/bin/sh\n', { mode: 0o755 });
    try {
      assert.equal(foreignProgram(seg('echo hi'), 1, ws, `.:${PATH}`), undefined);
    } finally {
      fs.rmSync(path.join(ws, 'echo'));
    }
    assert.equal(foreignProgram(seg('ls -la'), 1, ws, PATH), undefined);
  });
});
