import * as assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveCwd, resolveCwdPath } from '../../../src/core/cwd';
import { ToolError } from '../../../src/core/errors';

describe('core/cwd', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-cwd-'));
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(path.join(root, 'file.txt'), 'x');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('undefined or blank → the session cwd', async () => {
    assert.equal(await resolveCwd(undefined, root), root);
    assert.equal(await resolveCwd('  ', root), root);
  });

  it('relative resolves against the session cwd; absolute is kept', async () => {
    assert.equal(await resolveCwd('sub', root), path.join(root, 'sub'));
    assert.equal(await resolveCwd(path.join(root, 'sub'), '/nowhere'), path.join(root, 'sub'));
    assert.equal(await resolveCwd('sub/..', root), root);
  });

  it('expands ~ and ~/', () => {
    assert.equal(resolveCwdPath('~', '/s', '/home/me'), '/home/me');
    assert.equal(resolveCwdPath('~/p/q', '/s', '/home/me'), '/home/me/p/q');
    assert.equal(resolveCwdPath('~x', '/s', '/home/me'), '/s/~x');
  });

  it('accepts file:// URLs and unicode spaces', () => {
    assert.equal(resolveCwdPath(pathToFileURL(path.join(root, 'sub')).href, '/s'), path.join(root, 'sub'));
    assert.equal(resolveCwdPath('a\u00A0b', '/s'), '/s/a b');
  });

  it('/ is the root, not the session cwd', () => {
    assert.equal(resolveCwdPath('/', '/s'), '/');
  });

  it('missing directory: exact message with the absolute path', async () => {
    await assert.rejects(resolveCwd('nope', root), (e: unknown) => {
      assert.ok(e instanceof ToolError);
      assert.equal(e.message, `Working directory does not exist: ${path.join(root, 'nope')}`);
      return true;
    });
    await assert.rejects(resolveCwd('file.txt/below', root), {
      message: `Working directory does not exist: ${path.join(root, 'file.txt/below')}`,
    });
  });

  it('a path too long for the kernel: exact message, not a raw ENAMETOOLONG', async () => {
    const long = `/${'a'.repeat(200)}`.repeat(25);
    await assert.rejects(resolveCwd(long, root), {
      message: `Working directory path is too long (5025 bytes; a path may have 4095 bytes and each name in it 255): /${'a'.repeat(59)}…${'a'.repeat(20)}`,
    });
    const name = `/${'b'.repeat(300)}`;
    await assert.rejects(resolveCwd(name, root), { message: `Working directory path is too long (301 bytes; a path may have 4095 bytes and each name in it 255): /${'b'.repeat(59)}…${'b'.repeat(20)}` });
  });

  it('a file: exact message', async () => {
    await assert.rejects(resolveCwd('file.txt', root), (e: unknown) => {
      assert.ok(e instanceof ToolError);
      assert.equal(e.message, `Working directory is not a directory: ${path.join(root, 'file.txt')}`);
      return true;
    });
  });

  it('an internal scheme left in the cwd: exact message', () => {
    for (const [cwd, scheme] of [
      ['skill://x', 'skill'],
      ['artifact://3', 'artifact'],
      ['local://d', 'local'],
      ['local:/d', 'local'],
      ['memory://m', 'memory'],
      ['vault://v', 'vault'],
    ]) {
      assert.throws(() => resolveCwdPath(cwd, '/s'), {
        name: 'ToolError',
        message: `Path "${cwd}" uses internal scheme "${scheme}://" and must be resolved through the proper protocol handler, not as a filesystem path.`,
      });
    }
  });
});
