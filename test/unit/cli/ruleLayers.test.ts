// `--rules FILE` more than once (one layer each), `--managed-rules FILE`, `--no-builtin-rules`: the
// same for `run`, `explain` and `mcp`, through the bundled CLI.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BUILTIN_LAYER_SOURCE } from '../../../src/core/policy/rules/builtinRules';
import { EXPLAIN_USAGE } from '../../../src/cli/explain';
import { MCP_USAGE } from '../../../src/cli/mcp';
import { RUN_USAGE } from '../../../src/cli/run';

const ROOT = path.resolve(__dirname, '../../../..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(sub: string, args: string[], cwd: string): Promise<Run> {
  const child = spawn(process.execPath, [CLI, sub, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: cwd } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

function explain(args: string[], cwd: string): Record<string, unknown> {
  const r = spawnSync(process.execPath, [CLI, 'explain', ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

describe('cli: rule layers (--rules FILE..., --managed-rules FILE, --no-builtin-rules)', function () {
  this.timeout(180_000);
  let dir: string;
  let denyTouch: string;
  let allowAll: string;
  let promptTouch: string;
  let managed: string;
  const write = (name: string, rules: unknown): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify(rules));
    return file;
  };

  before(() => {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-layers-')));
    denyTouch = write('deny.json', [{ match: 'touch *', approval: 'deny' }]);
    allowAll = write('allow.json', [{ match: '*', approval: 'allow' }]);
    promptTouch = write('prompt.json', [{ match: 'touch *', approval: 'prompt' }]);
    managed = write('managed.json', [{ match: 'touch *', approval: 'deny' }]);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('run: a deny in one --rules layer beats `*` allow in another, in both orders; nothing runs', async () => {
    for (const [first, second] of [[denyTouch, allowAll], [allowAll, denyTouch]]) {
      const marker = path.join(dir, `denied-${path.basename(first)}`);
      const r = await cli('run', ['--rules', first, '--rules', second, '--cwd', dir, '--', `touch ${marker}`], dir);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, `Command denied: \`touch ${marker}\` in segment 1 matched deny rule \`touch *\`\n`);
      assert.equal(fs.existsSync(marker), false);
    }
    // The allow layer still applies to what the deny does not catch.
    const ran = path.join(dir, 'ran');
    const ok = await cli('run', ['--rules', denyTouch, '--rules', allowAll, '--cwd', dir, '--', `mkdir ${ran}`], dir);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(fs.statSync(ran).isDirectory(), true);
  });

  it('run: a prompt in one layer beats an allow in another; refused without --yes, nothing runs', async () => {
    for (const [first, second] of [[promptTouch, allowAll], [allowAll, promptTouch]]) {
      const marker = path.join(dir, `asked-${path.basename(first)}`);
      const r = await cli('run', ['--rules', first, '--rules', second, '--cwd', dir, '--', `touch ${marker}`], dir);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, `agent-bash run: refused: this command needs approval (\`touch ${marker}\` in segment 1 matched prompt rule \`touch *\`); rerun with --yes to approve it\n`);
      assert.equal(fs.existsSync(marker), false);
    }
  });

  it('run: a --managed-rules deny is not relaxed by a `*` allow in --rules', async () => {
    const marker = path.join(dir, 'managed-denied');
    const r = await cli('run', ['--rules', allowAll, '--managed-rules', managed, '--cwd', dir, '--', `touch ${marker}`], dir);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, `Command denied: \`touch ${marker}\` in segment 1 matched deny rule \`touch *\`\n`);
    assert.equal(fs.existsSync(marker), false);
  });

  it('explain: "layer" and "layerSource" beside "rule"; both orders give deny', () => {
    for (const args of [['--rules', denyTouch, '--rules', allowAll], ['--rules', allowAll, '--rules', denyTouch]]) {
      const out = explain([...args, '--cwd', dir, '--', 'touch x'], dir);
      assert.equal(out.decision, 'deny');
      assert.deepEqual(out.rule, { match: 'touch *', approval: 'deny' });
      assert.equal(out.layer, 'file');
      assert.equal(out.layerSource, denyTouch);
    }
    const m = explain(['--rules', allowAll, '--managed-rules', managed, '--cwd', dir, '--', 'touch x'], dir);
    assert.equal(m.layer, 'managed');
    assert.equal(m.layerSource, managed);
    const p = explain(['--rules', allowAll, '--rules', promptTouch, '--cwd', dir, '--', 'touch x'], dir);
    assert.equal(p.decision, 'prompt');
    assert.equal(p.layer, 'file');
    assert.equal(p.layerSource, promptTouch);
  });

  it('explain: the built-in list names itself; --no-builtin-rules turns it off', () => {
    const on = explain(['--cwd', dir, '--', 'ls -la'], dir);
    assert.equal(on.decision, 'allow');
    assert.equal(on.layer, 'builtin');
    assert.equal(on.layerSource, BUILTIN_LAYER_SOURCE);
    const off = explain(['--no-builtin-rules', '--cwd', dir, '--', 'ls -la'], dir);
    assert.equal(off.decision, 'prompt');
    assert.equal(off.layer, null);
    // A deny in a rules file beats the built-in allow.
    const denyCat = write('deny-cat.json', [{ match: 'cat *', approval: 'deny' }]);
    const denied = explain(['--rules', denyCat, '--cwd', dir, '--', 'cat notes.txt'], dir);
    assert.equal(denied.decision, 'deny');
    assert.equal(denied.layerSource, denyCat);
  });

  describe('exit 2 with the exact message, nothing run', () => {
    const cases: Array<[string, () => string[], () => string]> = [
      ['missing --managed-rules file', () => ['--managed-rules', path.join(dir, 'none.json')], () => `cannot read rules file ${path.join(dir, 'none.json')}: ENOENT`],
      ['--managed-rules given twice', () => ['--managed-rules', managed, '--managed-rules', managed], () => 'option --managed-rules given twice'],
      ['--no-builtin-rules given twice', () => ['--no-builtin-rules', '--no-builtin-rules'], () => 'option --no-builtin-rules given twice'],
      ['--no-builtin-rules with a value', () => ['--no-builtin-rules=yes'], () => 'unknown option: --no-builtin-rules=yes'],
      ['--managed-rules without a value', () => ['--managed-rules'], () => 'option --managed-rules needs a value'],
      ['an invalid second --rules file', () => ['--rules', allowAll, '--rules', write('bad.json', [{ match: 'x', approval: 'block' }])], () => `rules file ${path.join(dir, 'bad.json')}: [0].approval: approval must be "allow", "prompt" or "deny"`],
    ];
    for (const [name, args, message] of cases) {
      it(name, async () => {
        const marker = path.join(dir, 'never');
        const r = await cli('run', ['--cwd', dir, '--yes', ...args(), '--', `touch ${marker}`], dir);
        assert.equal(r.code, 2);
        assert.equal(r.stdout, '');
        const want = message();
        if (want.endsWith(': ')) assert.ok(r.stderr.startsWith(`agent-bash run: ${want}`) && r.stderr.endsWith(`\n${RUN_USAGE}\n`), r.stderr);
        else assert.equal(r.stderr, `agent-bash run: ${want}\n${RUN_USAGE}\n`);
        assert.equal(fs.existsSync(marker), false);
        const e = spawnSync(process.execPath, [CLI, 'explain', ...args(), '--', 'ls'], { cwd: dir, encoding: 'utf8' });
        assert.equal(e.status, 2);
        assert.ok(e.stderr.startsWith(`agent-bash explain: ${want}`) && e.stderr.endsWith(`\n${EXPLAIN_USAGE}\n`), e.stderr);
        const m = spawnSync(process.execPath, [CLI, 'mcp', ...args()], { cwd: dir, encoding: 'utf8', input: '' });
        assert.equal(m.status, 2);
        assert.ok(m.stderr.startsWith(`agent-bash mcp: ${want}`) && m.stderr.endsWith(`\n${MCP_USAGE}\n`), m.stderr);
      });
    }
  });

  it('an invalid --managed-rules file (like the machine\'s): a warning, and every command asks; nothing runs', async () => {
    const bad = path.join(dir, 'bad-managed.json');
    fs.writeFileSync(bad, '[{');
    const marker = path.join(dir, 'asked-broken');
    const r = await cli('run', ['--rules', allowAll, '--managed-rules', bad, '--cwd', dir, '--', `touch ${marker}`], dir);
    assert.equal(r.code, 1);
    const lines = r.stderr.split('\n');
    const problem = /^agent-bash run: warning: (the managed rules file cannot be used \(rules file .* is not valid JSON: .*\), so every command asks until it is fixed)$/.exec(lines[0]);
    assert.ok(problem, r.stderr);
    assert.equal(lines[1], `agent-bash run: refused: this command needs approval (${problem[1]}); rerun with --yes to approve it`);
    assert.equal(fs.existsSync(marker), false);
    const out = explain(['--rules', allowAll, '--managed-rules', bad, '--cwd', dir, '--', 'echo hi'], dir);
    assert.equal(out.decision, 'prompt');
    assert.equal(out.rule, null);
    assert.equal(out.reason, problem[1]);
    // A deny still denies.
    const denied = explain(['--rules', denyTouch, '--managed-rules', bad, '--cwd', dir, '--', 'touch x'], dir);
    assert.equal(denied.decision, 'deny');
  });

  it('mcp: the same layers; a managed deny beats a `*` allow and nothing runs', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--rules', allowAll, '--managed-rules', managed, '--cwd', dir],
      cwd: dir,
      env: { ...process.env, HOME: dir } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'layers-test', version: '1.0.0' });
    await client.connect(transport, { timeout: 120_000 });
    try {
      const marker = path.join(dir, 'mcp-denied');
      const r = (await client.callTool({ name: 'bash', arguments: { command: `touch ${marker}` } }, undefined, { timeout: 120_000 })) as { content: Array<{ text: string }>; isError?: boolean };
      assert.equal(r.isError, true);
      assert.equal(r.content.map((c) => c.text).join('\n'), `Command denied: \`touch ${marker}\` in segment 1 matched deny rule \`touch *\``);
      assert.equal(fs.existsSync(marker), false);
      const made = path.join(dir, 'mcp-made');
      const ok = (await client.callTool({ name: 'bash', arguments: { command: `mkdir ${made}` } }, undefined, { timeout: 120_000 })) as { isError?: boolean };
      assert.notEqual(ok.isError, true);
      assert.equal(fs.statSync(made).isDirectory(), true);
    } finally {
      await client.close();
    }
  });
});
