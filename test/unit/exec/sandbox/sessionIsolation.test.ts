// Where the session's shell has the fence's builtin (a sandboxed bash), every command runs in a
// subshell of it and what carries comes back as data (persistentShell.ts `evalText`,
// readOnlyCarry.ts `syncScript`): the shell itself never runs a command's code. So what an approved
// command does to bash itself — disabled builtins with functions of their names, traps, options —
// cannot take over the wrapper of a later call, and the read-only fence of a later auto-approved
// read is set as written. What carries is still what the docs promise.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ExecRequest, ExecResult } from '../../../../src/core/contracts';
import { LocalShellExecutor } from '../../../../src/exec/localExecutor';
import { fenceSupport } from '../../../../src/exec/sandbox/readOnly/readOnlySupport';
import { probeSandbox } from '../../../../src/exec/sandbox/sandboxProbe';
import { DEFAULT_SANDBOX_SETTINGS } from '../../../../src/exec/sandbox/sandboxPolicy';
import { SandboxRuntime } from '../../../../src/exec/sandbox/sandboxRuntime';
import { FakeSink } from '../helpers';

const CANARY = 'canary\n';

/**
 * An approved command that disables `builtin` and `unset` and defines functions of those names: the
 * one for `builtin read` edits the block it reads (the next call's whole text) to write HIJACKED
 * first. At top level this reaches the wrapper of the next call; in a subshell it dies with it.
 */
function hijacker(marker: string): string {
  return [
    'enable -n unset builtin',
    'unset() { case "$1" in -f) return 0;; esac; command enable unset; command unset "$@"; command enable -n unset; }',
    'builtin() {',
    '  case "$1" in',
    '    enable) shift; local a=(); for x in "$@"; do [ "$x" = unset ] || [ "$x" = builtin ] || a+=("$x"); done; command enable "${a[@]}";;',
    `    read) command "$@"; local r=$? v="\${!#}"; printf -v "$v" '%s' "echo HIJACKED >> ${marker}; \${!v}"; return $r;;`,
    '    *) command "$@";;',
    '  esac',
    '}',
    "trap 'echo TRAPPED >> " + marker + "' DEBUG",
    'echo poisoned',
  ].join('\n');
}

describe('exec/sandbox: a session\'s commands run in subshells of its shell, and only variables carry back', function () {
  this.timeout(120_000);
  let root: string;
  let ws: string;
  let runtime: SandboxRuntime;
  let executor: LocalShellExecutor;

  before(function () {
    if (!probeSandbox().sandbox || !fenceSupport('sandboxed').enforced) this.skip();
  });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-iso-'));
    ws = path.join(root, 'ws');
    mkdirSync(ws);
    writeFileSync(path.join(ws, 'keep'), CANARY);
    runtime = new SandboxRuntime({ settings: () => ({ ...DEFAULT_SANDBOX_SETTINGS, enabled: 'on' }), workspaceRoots: () => [ws], home: path.join(root, 'home') });
    executor = new LocalShellExecutor({ shellArgs: ['-c'], sandbox: runtime });
  });

  afterEach(async () => {
    await executor.dispose();
    runtime.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  async function run(command: string, extra: Partial<ExecRequest> = {}): Promise<ExecResult & { text: string; notice?: string }> {
    const sink = new FakeSink();
    const r = await executor.run({ command, cwd: ws, timeoutMs: 60_000, sink, sessionKey: 'iso', ...extra });
    return { ...r, text: sink.text(), notice: sink.notice };
  }

  it('an approved command that disables builtins and defines functions of their names takes over no later call', async () => {
    const marker = path.join(ws, 'marker');
    assert.equal((await run('x=kept; export E=exported')).exitCode, 0);
    const poison = await run(hijacker(marker));
    assert.equal(poison.text, 'poisoned\n');
    assert.equal(poison.notice, undefined);
    const left = (): string => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');
    const afterPoison = left();
    // The next allowed call, then an auto-approved read that tries to write: both as written.
    const next = await run('echo "clean $x $E"');
    assert.deepEqual({ text: next.text, notice: next.notice, exitCode: next.exitCode }, { text: 'clean kept exported\n', notice: undefined, exitCode: 0 });
    const read = await run('echo pwned > keep; echo "read $x"', { readOnly: { programs: ['echo'] } });
    assert.match(read.text, /keep: Permission denied\nread kept\n$/);
    assert.equal(readFileSync(path.join(ws, 'keep'), 'utf8'), CANARY);
    // The DEBUG trap ran only inside the poisoning call's own subshell, never after it.
    assert.match(afterPoison, /^(TRAPPED\n)+$/);
    assert.equal(left(), afterPoison);
  });

  it('plain and exported variables carry, as do unset and export -n; arrays, readonly ones and sensitive names do not', async () => {
    assert.equal((await run('x=1; export Y=2; a=(1 2); declare -i n=3+4; readonly R=9; PATH=/nowhere; export BASH_ENV=/x TMOUT=1 npm_config_x=1; echo set')).text, 'set\n');
    assert.equal((await run('printf "[%s]" "$x" "$Y" "${a[1]-none}" "$n" "${R-none}" "${BASH_ENV-none}" "${TMOUT-none}" "${npm_config_x-none}"; echo; printenv Y; type -P ls')).text, '[1][2][none][7][none][none][none][none]\n2\n/usr/bin/ls\n');
    assert.equal((await run('unset x; export -n Y; n+=1')).exitCode, 0);
    assert.equal((await run('echo "[${x-unset}][$Y][$n]"; printenv Y || echo not-exported')).text, '[unset][2][71]\nnot-exported\n');
  });

  it('exit ends the command, not the session; a variable set for one call stays so', async () => {
    assert.equal((await run('kept=yes')).exitCode, 0);
    const ended = await run('echo before; exit 3');
    assert.deepEqual({ text: ended.text, exitCode: ended.exitCode, notice: ended.notice }, { text: 'before\n', exitCode: 3, notice: undefined });
    assert.equal((await run('z=1; echo "$kept $ONLY_NOW"', { env: { ONLY_NOW: 'now' } })).text, 'yes now\n');
    const after = await run('echo "$kept $z ${ONLY_NOW-unset}"');
    assert.deepEqual({ text: after.text, notice: after.notice }, { text: 'yes 1 unset\n', notice: undefined });
  });
});
