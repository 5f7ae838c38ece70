import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { artifactFileName, artifactUrl, FileArtifactStore, pruneArtifactSessions } from '../../../../src/core/output/artifacts';

describe('FileArtifactStore', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bash-artifacts-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('allocates short increasing ids with <id>.<kind>.log paths, creating nothing', () => {
    const dir = path.join(tmp, 'nested', 'artifacts');
    const store = new FileArtifactStore(dir);
    assert.equal(store.dir, dir);
    assert.deepEqual(store.allocate('bash'), { id: '1', path: path.join(dir, '1.bash.log') });
    assert.deepEqual(store.allocate('bash'), { id: '2', path: path.join(dir, '2.bash.log') });
    // The writer makes both (a killed or output-less run leaves no empty directory behind).
    assert.equal(fs.existsSync(dir), false, 'the directory is created lazily by the writer');
    assert.equal(fs.existsSync(path.join(dir, '1.bash.log')), false, 'the file is created lazily by its writer');
  });

  it('saves text as a new artifact and resolves ids to paths', async () => {
    const store = new FileArtifactStore(tmp);
    store.allocate('bash');
    const id = await store.save('bash-original', 'full text 日本\n');
    assert.equal(id, '2');
    assert.equal(store.pathOf('2'), path.join(tmp, '2.bash-original.log'));
    assert.equal(fs.readFileSync(path.join(tmp, '2.bash-original.log'), 'utf8'), 'full text 日本\n');
    assert.equal(store.pathOf('99'), undefined);
    assert.equal(store.pathOf('../etc/passwd'), undefined);
  });

  it('continues after ids already in a reused directory and finds their files', async () => {
    const first = new FileArtifactStore(tmp);
    await first.save('bash', 'one');
    await first.save('bash', 'two');
    const second = new FileArtifactStore(tmp);
    assert.equal(second.pathOf('1'), path.join(tmp, '1.bash.log'));
    assert.equal(second.allocate('bash').id, '3');
  });

  it('keeps kinds to one safe word in file names', () => {
    assert.equal(artifactFileName('4', 'bash original/../x'), '4.bash_original_x.log');
    assert.equal(artifactFileName('5', ''), '5.output.log');
    assert.equal(artifactUrl('7'), 'artifact://7');
  });
});

describe('core: pruneArtifactSessions', () => {
  it('removes session directories older than the limit, never the current one', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, utimesSync, existsSync, rmSync } = fs;
    const root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-prune-'));
    try {
      const old = path.join(root, 'vscode-old');
      const current = path.join(root, 'vscode-now');
      const recent = path.join(root, 'vscode-recent');
      for (const d of [old, current, recent]) mkdirSync(d);
      writeFileSync(path.join(old, '1.bash.log'), 'x');
      const now = Date.now();
      const eightDays = (now - 8 * 24 * 3600 * 1000) / 1000;
      utimesSync(old, eightDays, eightDays);
      utimesSync(current, eightDays, eightDays);
      const removed = await pruneArtifactSessions(root, current, 7 * 24 * 3600 * 1000, now);
      assert.deepEqual(removed, ['vscode-old']);
      assert.equal(existsSync(old), false);
      assert.equal(existsSync(current), true);
      assert.equal(existsSync(recent), true);
      assert.deepEqual(await pruneArtifactSessions(path.join(root, 'missing'), current), []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
