// Every count the sandbox's protection keeps within a budget fails closed: past it, the command gets
// the workspace read-only (never writable with part of its protection missing) and the result says
// why and what to do; the look after a command searches and quarantines without a budget. Each
// budget is driven past its limit, on the plan and (where a command can do it) by real commands.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { CONFIG_READ_BUDGET, gitSensitivePaths, MOUNT_BUDGET, NESTED_GIT_DIR_BUDGET, planProtected } from '../../../../src/exec/sandbox/mounts/protectedMounts';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS, resolveFsPolicy, type SandboxSettings } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { FakeSink } from '../helpers';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

describe('exec/sandbox: every budget fails closed', function () {
  this.timeout(120_000);
  let root: string;
  let ws: string;
  let home: string;

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-budget-'));
    ws = path.join(root, 'ws');
    home = path.join(root, 'home');
    mkdirSync(ws);
    mkdirSync(home);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  describe('the plan', () => {
    it('past the mount budget: read-only because, and the policy binds the workspace read-only with no mounts inside it', () => {
      for (let i = 0; i < 5; i++) mkdirSync(path.join(ws, `d${i}`, '.git'), { recursive: true });
      const within = planProtected({ roots: [ws], workspaceRoots: [ws], mountBudget: 100 });
      assert.deepEqual(within.readOnlyBecause, []);
      const plan = planProtected({ roots: [ws], workspaceRoots: [ws], mountBudget: 4 });
      // 5 .git, 5 folders above them, 6 placeholders (the protected folders).
      assert.deepEqual(plan.readOnlyBecause, ['16 protected paths (5 .git among them): over 4 mounts']);
      const tmpDir = path.join(root, 'tmp');
      const fs = resolveFsPolicy({ ...DEFAULT_SANDBOX_SETTINGS, denyWrite: ['/etc/hosts'] }, { home, workspaceRoots: [ws], tmpDir, protectedPlan: plan });
      assert.deepEqual(fs.writable, [tmpDir]);
      assert.deepEqual(fs.selfBinds, []);
      assert.deepEqual(fs.denyCreate, []);
      assert.deepEqual(fs.denyWrite, ['/etc/hosts']);
      assert.deepEqual(fs.readOnlyBecause, plan.readOnlyBecause);
    });

    it(`past ${CONFIG_READ_BUDGET} repositories whose config is read, or a config git cannot read: read-only because`, () => {
      for (let i = 0; i <= CONFIG_READ_BUDGET; i++) mkdirSync(path.join(ws, `r${i}`, '.git'), { recursive: true });
      const read: string[] = [];
      const plan = planProtected({ roots: [ws], workspaceRoots: [ws], home, gitConfig: (cwd) => (read.push(cwd), []) });
      // Past the budget none is read (the plan is read-only whatever they say).
      assert.equal(read.length, 0);
      assert.deepEqual(plan.readOnlyBecause, [`${CONFIG_READ_BUDGET + 2} repositories: over ${CONFIG_READ_BUDGET}, whose git config is read to find what it runs`]);
      rmSync(ws, { recursive: true });
      mkdirSync(path.join(ws, 'sub', '.git'), { recursive: true });
      const failing = planProtected({ roots: [ws], workspaceRoots: [ws], home, gitConfig: (cwd) => (cwd === path.join(ws, 'sub') ? undefined : []) });
      assert.deepEqual(failing.readOnlyBecause, [`${path.join(ws, 'sub')}: git could not read the config, so what it runs is unknown`]);
    });

    it('a config git itself cannot parse makes the plan read-only (the real reader)', () => {
      git(ws, 'init', '-q');
      writeFileSync(path.join(ws, '.git', 'config'), '[core\n\tbroken = \n');
      const plan = planProtected({ roots: [ws], workspaceRoots: [ws], home });
      assert.deepEqual(plan.readOnlyBecause, [`${ws}: git could not read the config, so what it runs is unknown`]);
    });

    it('past the hard-link check budget: read-only because', () => {
      mkdirSync(path.join(ws, '.vscode'));
      for (let i = 0; i < 6; i++) writeFileSync(path.join(ws, '.vscode', `f${i}.json`), '{}');
      linkSync(path.join(ws, '.vscode', 'f5.json'), path.join(ws, 'alias.json'));
      assert.deepEqual(planProtected({ roots: [ws], workspaceRoots: [ws], linkBudget: 100 }).readOnlyBecause, []);
      assert.deepEqual(planProtected({ roots: [ws], workspaceRoots: [ws], linkBudget: 3 }).readOnlyBecause, ['more than 3 protected files or 20000 folders to check for hard links']);
    });

    it(`past ${NESTED_GIT_DIR_BUDGET} submodule git dirs, the modules folder counts whole`, () => {
      const gitDir = path.join(ws, '.git');
      for (let i = 0; i <= NESTED_GIT_DIR_BUDGET; i++) {
        mkdirSync(path.join(gitDir, 'modules', `m${i}`), { recursive: true });
        writeFileSync(path.join(gitDir, 'modules', `m${i}`, 'HEAD'), 'ref: refs/heads/main\n');
      }
      const sensitive = gitSensitivePaths(gitDir);
      assert.ok(sensitive.includes(path.join(gitDir, 'modules')), sensitive.slice(0, 5).join('\n'));
      rmSync(path.join(gitDir, 'modules', 'm0'), { recursive: true });
      rmSync(path.join(gitDir, 'modules', 'm1'), { recursive: true });
      assert.ok(!gitSensitivePaths(gitDir).includes(path.join(gitDir, 'modules')));
    });
  });

  describe('real commands', function () {
    let settings: SandboxSettings;
    let runtime: SandboxRuntime;
    let executor: LocalShellExecutor;

    before(function () {
      if (!probeSandbox().sandbox) this.skip();
    });

    beforeEach(() => {
      settings = { ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' };
      runtime = new SandboxRuntime({ settings: () => settings, workspaceRoots: () => [ws], home });
      executor = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
    });

    afterEach(async () => {
      await executor.dispose();
      runtime.dispose();
    });

    /** One sandboxed command as the pipeline runs it: the protected look before and after. */
    async function run(command: string): Promise<{ exit: number | undefined; output: string; notices: string[]; skipped: string[]; changed: string[] }> {
      const watch = runtime.watch();
      const sink = new FakeSink();
      const r = await executor.run({ command, cwd: ws, timeoutMs: 100_000, sink });
      const done = watch.finish(sink.text());
      return { exit: r.exitCode, output: sink.text(), notices: done.notices, skipped: done.skipped, changed: done.protectedChanged };
    }

    it(`a command that makes over ${MOUNT_BUDGET} .git entries gets the next command the workspace read-only: .git/config and .vscode stay as they were, and the result says why`, async () => {
      git(ws, 'init', '-q');
      mkdirSync(path.join(ws, '.vscode'));
      writeFileSync(path.join(ws, '.vscode', 'settings.json'), '{"agentBash.patterns": []}\n');
      const config = readFileSync(path.join(ws, '.git', 'config'), 'utf8');
      // One process makes them all (a loop of mkdir would take a fork each).
      const first = await run(`node -e 'for (let i = 0; i < ${MOUNT_BUDGET + 20}; i++) { fs.mkdirSync("d" + i + "/.git", { recursive: true }); }' && echo made`);
      assert.equal(first.output, 'made\n');
      const second = await run(`printf '[core]\\n\\tfsmonitor = ./mon.sh\\n' >> .git/config; echo '{}' > .vscode/settings.json; touch new-file; echo "exit $?"`);
      assert.match(second.output, /Read-only file system/);
      assert.match(second.output, /exit 1\n$/);
      assert.equal(readFileSync(path.join(ws, '.git', 'config'), 'utf8'), config);
      assert.equal(readFileSync(path.join(ws, '.vscode', 'settings.json'), 'utf8'), '{"agentBash.patterns": []}\n');
      assert.equal(existsSync(path.join(ws, 'new-file')), false);
      const why = `${MOUNT_BUDGET * 2 + 47} protected paths (${MOUNT_BUDGET + 21} .git among them): over ${MOUNT_BUDGET} mounts`;
      assert.deepEqual(second.skipped.filter((l) => l.startsWith('the workspace folders were read-only')), [
        `the workspace folders were read-only: ${MOUNT_BUDGET + 21} repositories: over ${CONFIG_READ_BUDGET}, whose git config is read to find what it runs`,
        `the workspace folders were read-only: ${why}`,
      ]);
      const notice = second.notices.find((n) => n.includes('were read-only for this command'));
      assert.ok(notice?.includes(why) === true, second.notices.join('\n'));
      assert.ok(notice.includes('remove what is named'), notice);
      // TMPDIR stays writable.
      assert.equal((await run('echo x > "$TMPDIR/t" && cat "$TMPDIR/t"')).output, 'x\n');
      // Removing them (on the host) makes the workspace writable again (a new session: no plan kept).
      for (let i = 0; i < MOUNT_BUDGET + 20; i++) rmSync(path.join(ws, `d${i}`), { recursive: true });
      await executor.dispose();
      runtime.dispose();
      runtime = new SandboxRuntime({ settings: () => settings, workspaceRoots: () => [ws], home });
      executor = new LocalShellExecutor({ persistent: false, shellArgs: ['-c'], sandbox: runtime, baseEnv: { ...process.env, HOME: home } });
      const third = await run('touch new-file && echo ok');
      assert.equal(third.output, 'ok\n');
      assert.deepEqual(third.notices.filter((n) => n.includes('read-only for this command')), []);
    });

    it('past the folder search budget the next command is read-only, and the look after a command still finds and quarantines a repository made past it', async () => {
      const made = await run(
        `mkdir -p big && cd big && mkdir $(seq -f 'd%g' 1 20001) && cd .. && mkdir -p zz/evil/.git && printf '[core]\\n\\tfsmonitor = ./mon.sh\\n' > zz/evil/.git/config && echo made`,
      );
      assert.equal(made.output, 'made\n');
      const config = path.join(ws, 'zz', 'evil', '.git', 'config');
      assert.equal(existsSync(config), false, 'the new config is moved aside');
      assert.equal(readFileSync(`${config}.agent-bash-blocked`, 'utf8'), '[core]\n\tfsmonitor = ./mon.sh\n');
      assert.ok(made.changed.some((l) => l.startsWith(`${config} sets core.fsmonitor`)), made.changed.join('\n'));
      const next = await run('touch x; echo "exit $?"');
      assert.match(next.output, /Read-only file system[\s\S]*exit 1\n$/);
      assert.equal(existsSync(path.join(ws, 'x')), false);
      assert.ok(next.notices.some((n) => n.includes(`${ws}: more than 20000 folders`)), next.notices.join('\n'));
    });

    it('620 new repositories that each set core.fsmonitor: every config is moved aside (none left for a count)', async () => {
      const r = await run(`node -e 'for (let i = 1; i <= 620; i++) { fs.mkdirSync("q" + i + "/.git", { recursive: true }); fs.writeFileSync("q" + i + "/.git/config", "[core]\\n\\tfsmonitor = ./mon.sh\\n"); }' && echo made`);
      assert.equal(r.output, 'made\n');
      const live = readdirSync(ws).filter((d) => d.startsWith('q') && existsSync(path.join(ws, d, '.git', 'config')));
      assert.deepEqual(live, []);
      const moved = readdirSync(ws).filter((d) => d.startsWith('q') && existsSync(path.join(ws, d, '.git', 'config.agent-bash-blocked')));
      assert.equal(moved.length, 620);
    });
  });
});
