import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandEnv, GIT_NEUTRAL_CONFIG } from '../../../src/core/nonInteractiveEnv';
import { BridgeProcess } from '../../../src/exec/bridgeProcess';
import { LocalShellExecutor } from '../../../src/exec/localExecutor';
import { NodePtyExecutor } from '../../../src/exec/ptyExecutor';
import { FakeSink, processBaseline, waitFor } from './helpers';

/**
 * A repository whose `core.fsmonitor` names a script that writes a canary: a `git status` that runs
 * the repository's fsmonitor leaves the canary behind. Every route must run git with the neutral
 * settings (commandEnv), so the canary never appears.
 */
describe('exec: the neutralising environment on every route (repo-configured fsmonitor)', function () {
  this.timeout(30_000);
  let repo: string;
  let canary: string;
  let baseline: ReturnType<typeof processBaseline>;
  const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };

  before(() => {
    baseline = processBaseline();
    repo = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-fsmonitor-'));
    canary = path.join(repo, '..', `${path.basename(repo)}.canary`);
    const hook = path.join(repo, '..', `${path.basename(repo)}.hook.sh`);
    writeFileSync(hook, `#!/bin/sh\necho ran >> '${canary}'\n`);
    chmodSync(hook, 0o755);
    execFileSync('git', ['init', '-q', repo]);
    execFileSync('git', ['-C', repo, 'config', 'core.fsmonitor', hook]);
    writeFileSync(path.join(repo, 'a'), 'x\n');
    execFileSync('git', ['-C', repo, 'add', 'a'], { env: gitEnv });
    execFileSync('git', ['-C', repo, 'commit', '-qm', 'x'], { env: gitEnv });
    rmSync(canary, { force: true });
    // The trap is real: a plain `git status` here runs the script.
    spawnSync('git', ['status'], { cwd: repo, env: process.env });
    assert.equal(existsSync(canary), true, 'the fsmonitor script did not run under plain git: the test would prove nothing');
    rmSync(canary, { force: true });
  });

  afterEach(() => {
    assert.equal(existsSync(canary), false, 'the repository-configured fsmonitor ran');
  });

  after(async () => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(canary, { force: true });
    rmSync(`${repo}.hook.sh`, { force: true });
    assert.ok(await waitFor(() => baseline.leftSince().length === 0, 3000), JSON.stringify(baseline.leftSince()));
  });

  it('commandEnv puts the git settings after any the caller gave, and keeps them on a terminal', () => {
    const env = commandEnv({ PATH: '/usr/bin' }, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: '/evil' });
    assert.equal(env.GIT_CONFIG_KEY_0, 'core.fsmonitor');
    assert.equal(env.GIT_CONFIG_VALUE_0, '/evil');
    assert.equal(env.GIT_CONFIG_KEY_1, 'core.fsmonitor');
    assert.equal(env.GIT_CONFIG_VALUE_1, 'false');
    assert.equal(env.GIT_CONFIG_COUNT, String(1 + GIT_NEUTRAL_CONFIG.length));
    // A caller's key past its own count cannot take one of our slots either.
    const stray = commandEnv({}, { GIT_CONFIG_KEY_3: 'core.fsmonitor', GIT_CONFIG_VALUE_3: '/evil' });
    assert.equal(stray.GIT_CONFIG_KEY_4, 'core.fsmonitor');
    assert.equal(stray.GIT_CONFIG_VALUE_4, 'false');
    const term = commandEnv({ PATH: '/usr/bin' }, { MINE: 'x' }, { terminal: 'xterm-256color' });
    assert.equal(term.TERM, 'xterm-256color');
    assert.equal(term.PAGER, 'cat');
    assert.equal(term.GIT_CONFIG_KEY_0, 'core.fsmonitor');
    assert.equal(term.NO_COLOR, undefined);
    assert.equal(term.CI, undefined);
    assert.equal(term.MINE, 'x');
  });

  it('one-shot and persistent local shells (CLI run, stdio MCP, bang, local route)', async () => {
    const executor = new LocalShellExecutor({ shellArgs: ['-c'] });
    try {
      for (const sessionKey of [undefined, 'fsmonitor-session', 'fsmonitor-session']) {
        const sink = new FakeSink();
        const r = await executor.run({ command: 'git status --short; echo done', cwd: repo, timeoutMs: 20_000, sink, ...(sessionKey ? { sessionKey } : {}) });
        assert.equal(r.exitCode, 0, sink.text());
        assert.equal(sink.text().trim().split('\n').pop(), 'done');
      }
      // Even a caller's own GIT_CONFIG_* (an approved env parameter) cannot displace the neutral settings.
      const env = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: `${repo}.hook.sh` };
      for (const sessionKey of [undefined, 'fsmonitor-session']) {
        const sink = new FakeSink();
        const r = await executor.run({ command: 'git status --short', cwd: repo, timeoutMs: 20_000, sink, env, ...(sessionKey ? { sessionKey } : {}) });
        assert.equal(r.exitCode, 0, sink.text());
      }
    } finally {
      await executor.dispose();
    }
  });

  it('the PTY route (CLI run --pty, the editor PTY)', async () => {
    const pty = new NodePtyExecutor({ shellArgs: ['-c'] });
    try {
      const sink = new FakeSink();
      const r = await pty.start({ command: 'git status --short; echo done', cwd: repo, timeoutMs: 20_000, sink }).result;
      assert.equal(r.exitCode, 0, sink.text());
      assert.ok(sink.text().includes('done'));
    } finally {
      await pty.dispose();
    }
  });

  it('bridge processes (VS Code terminals, ACP terminals, API terminals), with and without caller env', async () => {
    for (const env of [undefined, [{ name: 'GIT_CONFIG_COUNT', value: '1' }, { name: 'GIT_CONFIG_KEY_0', value: 'core.fsmonitor' }, { name: 'GIT_CONFIG_VALUE_0', value: `${repo}.hook.sh` }]]) {
      const proc = new BridgeProcess({
        params: { command: 'git status --short; echo done', cwd: repo, ...(env ? { env } : {}) },
        shell: { path: '/bin/bash', args: ['-c'] },
        baseEnv: process.env,
        defaultCwd: repo,
        mark: { name: 'AGENT_BASH_TEST_FSMONITOR', value: `m${process.pid}` },
      });
      const status = await proc.exited;
      assert.equal(status.exitCode, 0, proc.output().output);
      assert.equal(proc.output().output.trim().split('\n').pop(), 'done');
    }
  });
});
