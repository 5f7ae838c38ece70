// The helper bash that expands words for the policy, with bash itself as the judge: for words drawn
// from the whole expansion grammar (brace lists and sequences, every bracket form, tilde forms,
// quote/escape mixtures, globs through a link to /etc), the fields the helper answers equal what a
// fresh `bash -c "printf '%s\0' WORD"` prints in the same directory. A helper that hangs or dies
// makes the answer a failure that says why, and the next request starts a new one.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EXPANSION, lexicalProblem, MAX_FIELDS } from '../../../src/core/policy/analysis/wordExpansion';
import { BashExpander } from '../../../src/exec/bashExpander';
import { expansionWorkspace, grammarWords } from '../core/policy/expansionGrammar';

/** What bash prints for `printf '%s\0' WORD` in `cwd`, as fields (a fresh bash per word); undefined when bash refuses it. */
function bashFields(word: string, cwd: string): string[] | undefined {
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', `printf '%s\\0' ${word}`], { cwd, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\0').slice(0, -1) : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (on the condition, never on a guessed sleep) for a process to be gone. */
async function gone(pid: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  assert.equal(alive(pid), false, `process ${pid} still runs`);
}

describe('exec/bashExpander', () => {
  let ws: { root: string; outside: string; dispose(): void };
  let expander: BashExpander;
  before(() => {
    ws = expansionWorkspace();
    expander = new BashExpander();
  });
  after(() => {
    expander.dispose();
    ws.dispose();
  });

  it("answers the fields bash's own printf '%s\\0' prints, for every word of the generated grammar", () => {
    const words = grammarWords(400).filter((w) => lexicalProblem(w) === undefined);
    assert.ok(words.length > 300, `only ${words.length} words pass the lexical check`);
    const got = expander.expand(words, ws.root);
    assert.ok(!('failure' in got), JSON.stringify(got));
    let compared = 0;
    let refused = 0;
    words.forEach((word, k) => {
      const expected = bashFields(word, ws.root);
      // bash itself refuses a few (`/{Z..c}sub/` makes a backtick: "bad substitution"): so must the helper.
      if (expected === undefined) refused++;
      assert.deepEqual(got[k], expected === undefined ? { error: 'bash reported an error' } : { fields: expected }, word);
      compared++;
    });
    assert.equal(compared, words.length);
    assert.ok(refused < 10, `${refused} words refused`);
  });

  it('expands in the cwd it is given, one request for many words, and reports a directory it cannot enter', () => {
    const sub = path.join(ws.root, 'sub');
    const got = expander.expand(['*', '~+', '{a,b}'], sub);
    assert.deepEqual(got, [{ fields: ['x', 'y.txt'] }, { fields: [sub] }, { fields: ['a', 'b'] }]);
    assert.deepEqual(expander.expand(['*'], path.join(ws.root, 'missing')), { failure: EXPANSION.helper('could not enter the working directory') });
  });

  it('a word that expands to too many fields is an error, not a flood', () => {
    const got = expander.expand([`{0..${MAX_FIELDS}}`], ws.root);
    assert.deepEqual(got, [{ error: EXPANSION.tooMany(MAX_FIELDS) }]);
  });

  it('a glob answer is never reused: a file made since counts', () => {
    assert.deepEqual(expander.expand(['new*'], ws.root), [{ fields: ['new*'] }]);
    fs.writeFileSync(path.join(ws.root, 'new-file'), '');
    assert.deepEqual(expander.expand(['new*'], ws.root), [{ fields: ['new-file'] }]);
    fs.rmSync(path.join(ws.root, 'new-file'));
  });

  it('a killed helper is replaced by the next request', async () => {
    assert.ok(!('failure' in expander.expand(['{x,y}1'], ws.root)));
    const pid = expander.helperPid();
    assert.ok(pid > 0);
    process.kill(-pid, 'SIGKILL');
    await gone(pid);
    // The worker notices the exit on its own thread; the next request starts a new helper.
    let got = expander.expand(['{x,y}2'], ws.root);
    if ('failure' in got) got = expander.expand(['{x,y}2'], ws.root);
    assert.deepEqual(got, [{ fields: ['x2', 'y2'] }]);
    assert.notEqual(expander.helperPid(), pid);
  });

  it('a helper that does not answer in time is killed, the answer says why, and the next request starts again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'expander-hang-'));
    const hang = path.join(dir, 'hang');
    const marker = path.join(dir, 'starts');
    // A stand-in for bash that never answers; it counts its starts.
    fs.writeFileSync(hang, `#!/bin/sh\necho x >> '${marker}'\nexec sleep 300\n`, { mode: 0o755 });
    const slow = new BashExpander({ bash: hang, timeoutMs: 300, startTimeoutMs: 500 });
    try {
      assert.deepEqual(slow.expand(['*'], dir), { failure: EXPANSION.helper('did not answer within 500 ms') });
      assert.equal(slow.helperPid(), 0);
      assert.deepEqual(slow.expand(['*'], dir), { failure: EXPANSION.helper('did not answer within 500 ms') });
      assert.equal(fs.readFileSync(marker, 'utf8'), 'x\nx\n');
    } finally {
      slow.dispose();
    }
    // Nothing of it is left running.
    const left = spawnSync('pgrep', ['-f', `${hang}`], { encoding: 'utf8' });
    assert.equal(left.stdout.trim(), '');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a helper that exits says so', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'expander-exit-'));
    const quit = path.join(dir, 'quit');
    fs.writeFileSync(quit, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    const broken = new BashExpander({ bash: quit });
    try {
      assert.deepEqual(broken.expand(['*'], dir), { failure: EXPANSION.helper('exited before answering') });
    } finally {
      broken.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
