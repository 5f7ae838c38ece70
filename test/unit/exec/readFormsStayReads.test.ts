// The environment every command runs under keeps read forms from writing: `git status` does not
// refresh .git/index (GIT_OPTIONAL_LOCKS=0). Git itself is the judge; without the environment the
// same status does rewrite the index, so the test can fail.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { commandEnv } from '../../../src/core/nonInteractiveEnv';

function repoWithStaleIndex(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-forms-'));
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: dir, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  git('init', '-q');
  fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  git('add', 'a.txt');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'a');
  // The file's times change but not its content: a status refreshes the index entry, and writes it.
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(path.join(dir, 'a.txt'), later, later);
  return dir;
}

function indexAfterStatus(dir: string, env: NodeJS.ProcessEnv): { before: string; after: string } {
  const index = path.join(dir, '.git', 'index');
  const stamp = (): string => {
    const s = fs.statSync(index);
    return `${s.ino}:${s.mtimeMs}:${s.size}`;
  };
  const before = stamp();
  execFileSync('git', ['status', '--short'], { cwd: dir, stdio: 'ignore', env: { ...env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  return { before, after: stamp() };
}

describe('exec: read forms stay reads under the command environment', () => {
  it('git status does not rewrite .git/index (and does without the environment)', () => {
    const control = repoWithStaleIndex();
    const judged = repoWithStaleIndex();
    try {
      const plain = indexAfterStatus(control, { PATH: process.env.PATH, HOME: os.tmpdir() });
      assert.notEqual(plain.after, plain.before, 'git status did not refresh the index even without the environment: the test proves nothing here');
      const env = commandEnv({ PATH: process.env.PATH, HOME: os.tmpdir() });
      assert.equal(env.GIT_OPTIONAL_LOCKS, '0');
      const ours = indexAfterStatus(judged, env);
      assert.equal(ours.after, ours.before);
    } finally {
      fs.rmSync(control, { recursive: true, force: true });
      fs.rmSync(judged, { recursive: true, force: true });
    }
  });
});
