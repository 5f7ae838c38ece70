// The read-only fence end to end: the real policy (the built-in list and a user rule), the pipeline,
// the sandbox and bash. An auto-approved read runs fenced, however the policy misread it (here-
// documents, integer variables); the result says what the fence refused and how to ask; a runner a
// user rule allows and a line the person approved keep the writable sandbox; `sandbox: "write"` asks.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApprovalAnswer, ApprovalRequest, Approver, PolicyRule, ShellAnalyzer, ToolResult } from '../../../../src/core/contracts';
import { FileArtifactStore } from '../../../../src/core/output/artifacts';
import { BashPipeline } from '../../../../src/core/pipeline';
import { BUILTIN_LAYER_SOURCE, BUILTIN_RULES } from '../../../../src/core/policy/rules/builtinRules';
import { createShellAnalyzer } from '../../../../src/core/policy/analysis/shellAnalysis';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { fenceSupport } from '../../../../src/exec/sandbox/readOnly/readOnlySupport';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { settingsWith } from '../helpers';

const textOf = (r: ToolResult): string => r.content.map((c) => c.text).join('\n');

/** Lines the policy is made to misread (the seam below): each tries to write, and must not. */
const MISREAD = new Set([
  'cat <<EOF\n  $(echo pwned > keep; echo made > new1)\nEOF',
  'grep -c x <<-EOF\n\t$(echo pwned > keep)\n\tEOF',
  "OPTIND='a[$(echo pwned > keep)]'; echo ok",
  'cat keep; echo pwned > keep; cp keep new1',
]);

class CountingApprover implements Approver {
  asked: ApprovalRequest[] = [];
  async approve(req: ApprovalRequest): Promise<ApprovalAnswer> {
    this.asked.push(req);
    return { kind: 'allow' };
  }
}

describe('exec/sandbox: auto-approved reads run read-only, end to end', function () {
  this.timeout(120_000);
  let analyzer: ShellAnalyzer;
  let root: string;
  let ws: string;
  let runtime: SandboxRuntime;
  let executor: LocalShellExecutor;
  let approver: CountingApprover;
  const userRules: PolicyRule[] = [{ match: 'touch *', approval: 'allow' }, { match: 'awk *', approval: 'allow' }];

  before(async function () {
    if (!probeSandbox().sandbox || !fenceSupport('sandboxed').enforced) this.skip();
    analyzer = await createShellAnalyzer();
  });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-ropipe-'));
    ws = path.join(root, 'ws');
    mkdirSync(ws);
    writeFileSync(path.join(ws, 'keep'), 'canary\n');
    runtime = new SandboxRuntime({ settings: () => ({ ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' }), workspaceRoots: () => [ws], home: path.join(root, 'home') });
    executor = new LocalShellExecutor({ shellArgs: ['-c'], sandbox: runtime });
    approver = new CountingApprover();
  });

  afterEach(async () => {
    await executor.dispose();
    runtime.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  const make = (): BashPipeline => {
    const settings = settingsWith(userRules);
    settings.ruleLayers = [{ layer: 'builtin', source: BUILTIN_LAYER_SOURCE, rules: [...BUILTIN_RULES] }, { layer: 'user', source: 'user settings', rules: userRules }];
    return new BashPipeline({
      settings: () => settings,
      // The test seam: the policy misreads these lines as the benign one (as it once did the
      // indented here-document and the integer variable); the pipeline runs them as written.
      analyzer: { analyze: (command: string) => analyzer.analyze(MISREAD.has(command) ? 'cat keep' : command) },
      approver,
      artifacts: new FileArtifactStore(path.join(root, 'artifacts')),
      executor,
      sessionCwd: () => ws,
      workspaceRoots: () => [ws],
      sessionId: 'ro',
      sandbox: { levelFor: (off) => runtime.levelFor(off), autoApprove: () => false, watch: () => runtime.watch(), readOnly: (off) => runtime.readOnly(off) },
    });
  };

  for (const sessionKey of [undefined, 'agent-session']) {
    const route = sessionKey ? 'persistent' : 'one-shot';
    it(`${route}: a line the policy misreads as a read the built-in list allows cannot write; the result says so in one line`, async () => {
      const p = make();
      for (const command of MISREAD) {
        const r = await p.run({ command }, sessionKey ? { sessionKey } : {});
        assert.equal(r.details.decision?.decision, 'allow', command);
        assert.deepEqual(r.details.sandbox?.readOnly, { enforced: true, refused: true }, textOf(r));
        assert.match(textOf(r), /\[read-only\] This ran read-only because it was auto-approved as a read: the kernel refused `keep`/);
        assert.match(textOf(r), /send it again with `sandbox: "write"`\.$/);
        assert.equal(readFileSync(path.join(ws, 'keep'), 'utf8'), 'canary\n');
        assert.equal(readdirSync(ws).includes('new1'), false);
      }
      assert.equal(approver.asked.length, 0);
    });

    it(`${route}: a user rule for a reader (awk *) runs read-only too; a user rule for a writer (touch *) keeps the writable sandbox`, async () => {
      const p = make();
      const awk = await p.run({ command: `awk '{ print toupper($0) }' keep` }, sessionKey ? { sessionKey } : {});
      assert.deepEqual(awk.details.sandbox?.readOnly, { enforced: true }, textOf(awk));
      assert.match(textOf(awk), /^CANARY\n/);
      assert.equal(approver.asked.length, 0);
      const touch = await p.run({ command: 'touch made' }, sessionKey ? { sessionKey } : {});
      assert.equal(touch.details.sandbox?.readOnly, undefined, textOf(touch));
      assert.equal(touch.isError, undefined, textOf(touch));
      assert.equal(readdirSync(ws).includes('made'), true);
    });

    it(`${route}: \`sandbox: "write"\` asks the person, then writes in the writable sandbox`, async () => {
      const p = make();
      const r = await p.run({ command: 'sort keep -o sorted', sandbox: 'write' }, sessionKey ? { sessionKey } : {});
      assert.equal(approver.asked.length, 1);
      assert.match(approver.asked[0].decision.reason, /the caller asked to run it with write access \(`sandbox: "write"`\)/);
      assert.equal(r.details.sandbox?.readOnly, undefined);
      assert.equal(r.details.sandbox?.level, 'sandboxed');
      assert.equal(readFileSync(path.join(ws, 'sorted'), 'utf8'), 'canary\n');
    });

    it(`${route}: an everyday read is quiet: no notice, the same output`, async () => {
      const p = make();
      const r = await p.run({ command: 'cat keep; ls' }, sessionKey ? { sessionKey } : {});
      assert.deepEqual(r.details.sandbox?.readOnly, { enforced: true });
      assert.equal(r.isError, undefined, textOf(r));
      assert.match(textOf(r), /^canary\nkeep\n/);
      assert.doesNotMatch(textOf(r), /read-only/);
    });
  }
});
