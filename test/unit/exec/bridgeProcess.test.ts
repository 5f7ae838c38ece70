import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { CreateTerminalParams } from '../../../src/core/contracts';
import { BridgeProcess, needsShell } from '../../../src/exec/bridgeProcess';
import { pidAlive, processesWithEnv } from '../../../src/exec/processTree';
import { FakeSink } from './helpers';

const SHELL = { path: '/bin/bash', args: ['-c'] };
const MARK = 'AGENT_BASH_TEST_BRIDGE';
let seq = 0;

function start(params: CreateTerminalParams, onBytes?: (b: Buffer) => void): { proc: BridgeProcess; mark: string } {
  const mark = `b${process.pid}n${Date.now()}x${seq++}`;
  const proc = new BridgeProcess({
    params,
    shell: SHELL,
    baseEnv: process.env,
    defaultCwd: '/tmp',
    mark: { name: MARK, value: mark },
    ...(onBytes ? { onBytes } : {}),
  });
  return { proc, mark };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('exec: BridgeProcess (the process half of a bridge terminal)', () => {
  it('keeps stdout+stderr byte-exact, hands the same bytes to the view and the sink, and reports the exit code', async () => {
    const seen: Buffer[] = [];
    const { proc } = start({ command: '/bin/bash', args: ['-c', "printf 'a\\xe6\\x97'; sleep 0.2; printf '\\xa5b\\n' >&2; exit 3"] }, (b) => seen.push(b));
    const sink = new FakeSink();
    proc.pipeTo(sink);
    const pushed: string[] = [];
    proc.onOutput((t) => pushed.push(t));
    assert.deepEqual(await proc.exited, { exitCode: 3, signal: null });
    assert.deepEqual(proc.output(), { output: 'a日b\n', truncated: false, exitStatus: { exitCode: 3, signal: null } });
    assert.equal(Buffer.concat(seen).toString('hex'), Buffer.from('a日b\n').toString('hex'));
    assert.equal(sink.text(), 'a日b\n');
    assert.equal(pushed.join(''), 'a日b\n');
    assert.equal(proc.running, false);
  });

  it('runs a raw command line through the shell, in the given cwd', async () => {
    const { proc } = start({ command: 'echo "$PWD" && echo two', cwd: '/usr' });
    await proc.exited;
    assert.equal(proc.output().output, '/usr\ntwo\n');
  });

  it('keeps only the last outputByteLimit bytes, starting on a code point, and says it cut', async () => {
    const { proc } = start({ command: '/bin/bash', args: ['-c', "printf 'xxxxx日本'"], outputByteLimit: 4 });
    await proc.exited;
    assert.deepEqual(proc.output(), { output: '本', truncated: true, exitStatus: { exitCode: 0, signal: null } });
  });

  it('a missing executable exits 127 with a message, and nothing throws', async () => {
    const { proc } = start({ command: '/nonexistent/agent-bash-x', args: ['a'] });
    assert.deepEqual(await proc.exited, { exitCode: 127, signal: null });
    assert.equal(proc.output().output, '/nonexistent/agent-bash-x: command not found\n');
  });

  it('kill ends the whole group and reports the signal', async () => {
    const { proc } = start({ command: '/bin/bash', args: ['-c', 'sleep 300 & echo $!; wait'] });
    while (!proc.output().output.includes('\n')) await sleep(10);
    const child = Number(proc.output().output.trim());
    assert.ok(pidAlive(child));
    await proc.kill();
    assert.deepEqual(await proc.exited, { exitCode: null, signal: 'SIGTERM' });
    for (let i = 0; i < 100 && pidAlive(child); i++) await sleep(20);
    assert.equal(pidAlive(child), false);
  });

  it('does not wait for a background child holding the pipes forever, and killAll sweeps one that left the group', async () => {
    const { proc, mark } = start({ command: '/bin/bash', args: ['-c', 'setsid sleep 300 & echo $!; sleep 300 & echo done'] });
    assert.deepEqual(await proc.exited, { exitCode: 0, signal: null });
    const [escaped] = proc.output().output.split('\n').map(Number);
    for (let i = 0; i < 100 && !readFileSync(`/proc/${escaped}/cmdline`, 'utf8').startsWith('sleep'); i++) await sleep(10);
    assert.equal(processesWithEnv(MARK, mark).length, 2, 'both sleeps carry the mark');
    await proc.killAll();
    for (let i = 0; i < 100 && processesWithEnv(MARK, mark).length > 0; i++) await sleep(20);
    assert.deepEqual(processesWithEnv(MARK, mark), []);
  });

  it('needsShell: a bare line with shell syntax needs one, an executable with args does not', () => {
    assert.equal(needsShell({ command: 'ls -la' }), true);
    assert.equal(needsShell({ command: 'ls' }), false);
    assert.equal(needsShell({ command: '/bin/bash', args: ['-c', 'ls -la'] }), false);
  });
});
