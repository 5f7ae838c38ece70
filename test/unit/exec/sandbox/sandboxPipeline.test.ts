// The OS sandbox end to end through the real pipeline and local executor (real bash, real bwrap,
// real socat): writes, secrets, network, everyday development commands, the escape shapes, and how
// the sandbox composes with the policy. Judged by side effects on the real filesystem.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApprovalAnswer, ApprovalRequest, Approver, PolicyRule, ToolResult } from '../../../../src/core/contracts';
import { FileArtifactStore } from '../../../../src/core/output/artifacts';
import { BashPipeline } from '../../../../src/core/pipeline';
import { SANDBOX_OFF_REASON } from '../../../../src/core/policy/policyGate';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';
import type { ShellAnalyzer } from '../../../../src/core/contracts';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { NodePtyExecutor } from '../../../../src/exec/ptyExecutor';
import { INSTALL_HINT, probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { SANDBOX_RETRY_HINT } from '../../../../src/core/sandboxRefusals';
import { settingsWith } from '../helpers';

const textOf = (r: ToolResult): string => r.content.map((c) => c.text).join('\n');

class RecordingApprover implements Approver {
  readonly requests: ApprovalRequest[] = [];
  answer: ApprovalAnswer = { kind: 'allow' };
  async approve(req: ApprovalRequest): Promise<ApprovalAnswer> {
    this.requests.push(req);
    return this.answer;
  }
}


describe('exec/sandbox: sandboxed runs through the pipeline', function () {
  this.timeout(60_000);
  let analyzer: ShellAnalyzer;
  let root: string;
  let ws: string;
  let home: string;
  let outside: string;
  let sandboxSettings: SandboxSettings;
  let runtime: SandboxRuntime;
  let executor: LocalShellExecutor;
  let approver: RecordingApprover;
  let patterns: PolicyRule[];
  let fallbacks: string[];

  before(async function () {
    if (!probeSandbox().sandbox) this.skip();
    analyzer = await createShellAnalyzer();
  });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-sbx-'));
    ws = path.join(root, 'ws');
    home = path.join(root, 'home');
    outside = path.join(root, 'outside');
    for (const d of [ws, path.join(home, '.ssh'), outside]) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(home, '.ssh', 'id_test'), 'SECRET-KEY\n');
    writeFileSync(path.join(home, '.npmrc'), '//registry.npmjs.org/:_authToken=SECRET-TOKEN\n');
    sandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' };
    fallbacks = [];
    runtime = new SandboxRuntime({
      settings: () => sandboxSettings,
      workspaceRoots: () => [ws],
      home,
      onFallback: (m) => fallbacks.push(m),
    });
    executor = new LocalShellExecutor({ sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
    approver = new RecordingApprover();
    patterns = [
      { match: 'rm *', approval: 'deny' },
      { match: 'ask *', approval: 'prompt' },
      { match: '*', approval: 'allow', allowRedirects: true },
    ];
  });

  afterEach(async () => {
    await executor.dispose();
    runtime.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  const make = (autoApprove = false) =>
    new BashPipeline({
      settings: () => settingsWith(patterns),
      analyzer,
      approver,
      artifacts: new FileArtifactStore(path.join(root, 'artifacts')),
      executor,
      sessionCwd: () => ws,
      workspaceRoots: () => [ws],
      sessionId: 'sbx',
      sandbox: { levelFor: (off) => runtime.levelFor(off), autoApprove: () => autoApprove },
    });

  it('refuses a write outside the workspace and TMPDIR, names the path and how to retry', async () => {
    const target = path.join(outside, 'x');
    const r = await make().run({ command: `touch ${target}` });
    assert.equal(existsSync(target), false);
    assert.equal(r.details.exitCode, 1);
    assert.deepEqual(r.details.sandbox, { level: 'sandboxed', refused: { paths: [target], hosts: [] } });
    assert.match(textOf(r), new RegExp(`touch: cannot touch '${target}': Read-only file system`));
    assert.ok(textOf(r).includes(`The OS sandbox refused writing ${target} (`), textOf(r));
    assert.ok(textOf(r).endsWith(SANDBOX_RETRY_HINT), textOf(r));
  });

  it('writes to the workspace and to TMPDIR; TMPDIR is a size-limited folder of the command own', async () => {
    const r = await make().run({ command: 'echo ws > in-ws.txt && echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "$TMPDIR"' });
    assert.equal(r.isError, undefined, textOf(r));
    assert.equal(readFileSync(path.join(ws, 'in-ws.txt'), 'utf8'), 'ws\n');
    assert.ok(textOf(r).startsWith(`t\n${runtime.tmpDir()}\n`), textOf(r));
    // A tmpfs inside the sandbox: nothing of it lands on the host's disk.
    assert.equal(existsSync(path.join(runtime.tmpDir(), 't')), false);
    // With tmpMiB 0, the session folder itself (shared by the session's commands, on the host).
    sandboxSettings.limits = { processes: 0, memoryMiB: 0, tmpMiB: 0 };
    await executor.dispose();
    executor = new LocalShellExecutor({ sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
    const shared = await make().run({ command: 'echo s > "$TMPDIR/s"' });
    assert.equal(shared.isError, undefined, textOf(shared));
    assert.equal(readFileSync(path.join(runtime.tmpDir(), 's'), 'utf8'), 's\n');
  });

  it('keeps the editor settings, git hooks and git config read-only: a sandboxed command cannot allow itself the next one', async () => {
    mkdirSync(path.join(ws, '.vscode'));
    const settingsFile = path.join(ws, '.vscode', 'settings.json');
    writeFileSync(settingsFile, '{}\n');
    execFileSync('git', ['init', '-q', ws]);
    const hook = path.join(ws, '.git', 'hooks', 'pre-commit');
    const gitConfig = readFileSync(path.join(ws, '.git', 'config'), 'utf8');
    const escalate = `echo '{"agentBash.patterns":[{"match":"*","approval":"allow"}]}' > .vscode/settings.json`;
    const r = await make().run({ command: `${escalate}; printf '#!/bin/sh\\nid\\n' > ${hook}; git config core.fsmonitor ./evil; echo fine > plain.txt` });
    assert.equal(readFileSync(settingsFile, 'utf8'), '{}\n');
    assert.equal(existsSync(hook), false);
    assert.equal(readFileSync(path.join(ws, '.git', 'config'), 'utf8'), gitConfig);
    assert.equal(readFileSync(path.join(ws, 'plain.txt'), 'utf8'), 'fine\n');
    assert.deepEqual(r.details.sandbox?.refused?.paths.slice(0, 2), ['.vscode/settings.json', hook]);
    assert.ok(textOf(r).includes(`The OS sandbox refused writing .vscode/settings.json, ${hook}`), textOf(r));
    // Listed in allowWrite, the folder is the user's to open up (fresh shells: a persistent shell
    // keeps the mounts it started with, as the extension's executor holder knows).
    sandboxSettings.allowWrite = [path.join(ws, '.vscode')];
    await executor.dispose();
    executor = new LocalShellExecutor({ sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
    const opened = await make().run({ command: 'echo "{ }" > .vscode/settings.json' });
    assert.equal(opened.isError, undefined, textOf(opened));
    assert.equal(readFileSync(settingsFile, 'utf8'), '{ }\n');
  });

  it('a workspace without .vscode gets an empty read-only one: no settings can be made there', async () => {
    const r = await make().run({ command: 'mkdir -p .vscode; echo x > .vscode/settings.json; ls -A .vscode | wc -l' });
    assert.equal(existsSync(path.join(ws, '.vscode', 'settings.json')), false);
    assert.match(textOf(r), /\.vscode\/settings\.json: Read-only file system/);
    assert.match(textOf(r), /^0$/m);
  });

  it('hides the secrets in the home directory', async () => {
    const r = await make().run({ command: 'cat ~/.ssh/id_test; cat ~/.npmrc; ls -A ~/.ssh | wc -l' });
    assert.doesNotMatch(textOf(r), /SECRET/);
    assert.match(textOf(r), /cat: \S+\/\.ssh\/id_test: No such file or directory/);
    assert.match(textOf(r), /^0$/m);
  });

  it('refuses hosts that are not listed and names them; a listed host is reached', async () => {
    const server = http.createServer((_q, res) => res.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const refused = await make().run({ command: `curl -sS http://127.0.0.1:${port}/ ; curl -sS https://made-up-host.invalid/` });
      assert.doesNotMatch(textOf(refused), /hello from the host/);
      assert.deepEqual(refused.details.sandbox?.refused?.hosts, ['127.0.0.1', 'made-up-host.invalid']);
      assert.match(textOf(refused), /CONNECT tunnel failed, response 403/);
      assert.ok(textOf(refused).includes('network access to 127.0.0.1, made-up-host.invalid (allowed: agentBash.sandbox.network.allowedDomains)'));

      sandboxSettings.allowedDomains = [`127.0.0.1:${port}`];
      const allowed = await make().run({ command: `curl -sS http://127.0.0.1:${port}/` });
      assert.equal(textOf(allowed).split('\n')[0], 'hello from the host');
      assert.equal(allowed.details.sandbox?.refused, undefined);

      // A listed name that resolves to the host's loopback (/etc/hosts) is refused, and says why.
      sandboxSettings.allowedDomains = [`localhost:${port}`];
      const inside = await make().run({ command: `curl -sS http://localhost:${port}/` });
      assert.doesNotMatch(textOf(inside), /hello from the host/);
      assert.deepEqual(inside.details.sandbox?.refused?.hosts, ['localhost']);
      assert.match(textOf(inside), /network access to localhost: resolves to a loopback address \((127\.0\.0\.1|::1)\); allow it by listing the address itself\./);
    } finally {
      server.close();
    }
  });

  it('runs everyday development commands: git status/commit, node writing a file, npm test', async () => {
    sandboxSettings.gitAllowWrite = true;
    writeFileSync(path.join(ws, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'node -e "console.log(\'tests ok\')"' } }));
    const r = await make().run({
      command: [
        'git init -q .',
        'git status --short',
        'git add package.json',
        'git -c user.email=a@b.c -c user.name=n commit -qm first',
        'git log --format=%s',
        `node -e "require('fs').writeFileSync('from-node.txt', 'node')"`,
        'npm test --silent',
      ].join(' && '),
    });
    assert.equal(r.isError, undefined, textOf(r));
    assert.match(textOf(r), /^\?\? package\.json\nfirst\ntests ok\n/);
    assert.equal(readFileSync(path.join(ws, 'from-node.txt'), 'utf8'), 'node');
  });

  it('the escape shapes stay inside: the command is one argv element, never spliced into a string', async () => {
    const shapes = (out: string): string[] => [
      `";touch ${out}; #`,
      `'$(touch ${out})'`,
      `echo '$(touch ${out})'; touch ${out}`,
      `$(touch ${out})`,
      `echo ok\ntouch ${out}`,
      `\`touch ${out}\``,
      `x"; touch ${out}; echo "`,
    ];
    const judgeDir = path.join(root, 'judge');
    mkdirSync(judgeDir);
    const list = shapes('OUT');
    for (let i = 0; i < list.length; i++) {
      const target = path.join(outside, `escape-${i}`);
      const judged = path.join(judgeDir, `escape-${i}`);
      // Real bash is the judge of whether the shape writes at all.
      spawnSync('bash', ['-c', shapes(judged)[i]], { cwd: judgeDir, stdio: 'ignore' });
      const r = await make().run({ command: shapes(target)[i] });
      assert.equal(existsSync(target), false, `shape ${i} wrote outside: ${JSON.stringify(list[i])}`);
      if (existsSync(judged)) assert.deepEqual(r.details.sandbox?.refused?.paths, [target], `shape ${i}: ${textOf(r)}`);
    }
    // A NUL: bash drops it from what it reads, and whatever then runs is still inside.
    const nulTarget = path.join(outside, 'nul');
    await make().run({ command: `true\0; touch ${nulTarget}` });
    assert.equal(existsSync(nulTarget), false);
  });

  it('deny stays deny with the sandbox on, autoApprove or not', async () => {
    const canary = path.join(ws, 'canary');
    writeFileSync(canary, 'x');
    for (const auto of [false, true]) {
      const r = await make(auto).run({ command: `rm ${canary}` });
      assert.equal(r.isError, true);
      assert.match(textOf(r), /^Command denied: /);
      assert.equal(existsSync(canary), true);
    }
    assert.equal(approver.requests.length, 0);
  });

  it('prompt runs without asking only sandboxed with autoApprove; sandbox "off" always asks and says so', async () => {
    const r1 = await make(true).run({ command: 'ask; echo asked-not' });
    assert.equal(approver.requests.length, 0);
    assert.deepEqual(r1.details.decision?.decidedBy, 'sandbox');

    const r2 = await make(false).run({ command: 'ask; echo asked' });
    assert.equal(approver.requests.length, 1);
    assert.equal(r2.details.sandbox?.level, 'sandboxed');

    const r3 = await make(true).run({ command: 'echo "sandbox=$AGENT_BASH_SANDBOX"', sandbox: 'off' });
    assert.equal(approver.requests.length, 2);
    assert.equal(approver.requests[1]!.decision.decision, 'prompt');
    assert.equal(approver.requests[1]!.decision.reason, SANDBOX_OFF_REASON);
    assert.equal(r3.details.sandbox?.level, 'contained');
    assert.match(textOf(r3), /^sandbox=\n/);
    const r3b = await make(true).run({ command: 'echo "sandbox=$AGENT_BASH_SANDBOX"' });
    assert.match(textOf(r3b), /^sandbox=1\n/);

    approver.answer = { kind: 'deny' };
    const denied = path.join(outside, 'denied');
    const r4 = await make(true).run({ command: `ask; touch ${denied}`, sandbox: 'off' });
    assert.match(textOf(r4), /^Command denied by the user: .*it runs outside the OS sandbox/);
    assert.equal(existsSync(denied), false);
  });

  it('a persistent shell stays sandboxed across calls and keeps its state', async () => {
    const p = make();
    await p.run({ command: 'export KEEP=kept' });
    const r = await p.run({ command: `echo "$KEEP $AGENT_BASH_SANDBOX"; touch ${path.join(outside, 'p')}` });
    assert.match(textOf(r), /^kept 1\n/);
    assert.equal(existsSync(path.join(outside, 'p')), false);
    assert.equal(executor.sessionCount, 1);
  });

  it('a PTY run is sandboxed too', async () => {
    const pty = new NodePtyExecutor({ sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
    try {
      const target = path.join(outside, 'pty');
      const p = new BashPipeline({
        settings: () => settingsWith(patterns),
        analyzer,
        approver,
        artifacts: new FileArtifactStore(path.join(root, 'artifacts')),
        executor,
        pty,
        sessionCwd: () => ws,
        workspaceRoots: () => [ws],
        sessionId: 'sbx',
        sandbox: { levelFor: (off) => runtime.levelFor(off), autoApprove: () => false },
      });
      const r = await p.run({ command: `[ -t 1 ] && echo tty; touch ${target}`, pty: true });
      assert.match(textOf(r), /^tty\n/);
      assert.equal(existsSync(target), false);
      assert.deepEqual(r.details.sandbox?.refused?.paths, [target]);
    } finally {
      await pty.dispose();
    }
  });

  it('unavailable: `on` refuses and names what to install; `auto` runs unsandboxed with one warning', async () => {
    const missing = new SandboxRuntime({
      settings: () => sandboxSettings,
      workspaceRoots: () => [ws],
      probe: () => probeSandbox('/nonexistent-bin'),
      onFallback: (m) => fallbacks.push(m),
    });
    const exec = new LocalShellExecutor({ sandbox: missing });
    const p = new BashPipeline({
      settings: () => settingsWith(patterns),
      analyzer,
      approver,
      artifacts: new FileArtifactStore(path.join(root, 'artifacts')),
      executor: exec,
      sessionCwd: () => ws,
      workspaceRoots: () => [ws],
      sessionId: 'sbx',
      sandbox: { levelFor: (off) => missing.levelFor(off), autoApprove: () => true },
    });
    try {
      const canary = path.join(ws, 'ran');
      const on = await p.run({ command: `touch ${canary}` });
      assert.equal(on.isError, true);
      assert.equal(
        textOf(on),
        `The OS sandbox is on (agentBash.sandbox.enabled: "on") but cannot start: bubblewrap (bwrap) is not installed: ${INSTALL_HINT}. Nothing was run.`,
      );
      assert.equal(existsSync(canary), false);

      sandboxSettings.enabled = 'auto';
      const a1 = await p.run({ command: `touch ${canary}` });
      const a2 = await p.run({ command: 'true' });
      assert.equal(existsSync(canary), true);
      assert.equal(a1.details.sandbox?.level, 'plain');
      assert.equal(a2.details.sandbox?.level, 'plain');
      assert.deepEqual(fallbacks, [`Agent Bash: commands run without the OS sandbox: bubblewrap (bwrap) is not installed: ${INSTALL_HINT}.`]);
    } finally {
      await exec.dispose();
      missing.dispose();
    }
  });

  it('git is on the machine (the development test above needs it)', () => {
    assert.match(execFileSync('git', ['--version']).toString(), /^git version/);
  });
});
