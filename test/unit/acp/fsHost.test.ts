import * as assert from 'node:assert/strict';
import { rejection } from './acpRejection';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  AcpFsHost,
  EDIT_REFUSED_MESSAGE,
  FILE_NOT_FOUND_CODE,
  FS_DENIED_CODE,
  fsDeniedMessage,
  sliceLines,
  type DocumentStore,
  type FsGuard,
} from '../../../src/acp/fsHost';

/** Files in a map; `refuse` makes every write fail the way a refused editor edit does. */
class FakeDocuments implements DocumentStore {
  readonly files = new Map<string, string>();
  readonly reads: string[] = [];
  refuse = false;
  async read(p: string): Promise<string | undefined> {
    this.reads.push(p);
    return this.files.get(p);
  }
  async write(p: string, content: string): Promise<boolean> {
    if (this.refuse) return false;
    this.files.set(p, content);
    return true;
  }
  uriOf(p: string): string {
    return `file://${p}`;
  }
}

class FakeGuard implements FsGuard {
  readonly asked: Array<[string, string]> = [];
  constructor(
    private readonly root: string,
    public answer: boolean,
  ) {}
  roots(): string[] {
    return [this.root];
  }
  async confirm(kind: 'read' | 'write', p: string): Promise<boolean> {
    this.asked.push([kind, p]);
    return this.answer;
  }
}

describe('acp AcpFsHost', () => {
  let dir: string;
  let ws: string;
  let outside: string;
  let docs: FakeDocuments;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ab-fshost-'));
    ws = path.join(dir, 'ws');
    outside = path.join(dir, 'elsewhere');
    mkdirSync(ws);
    mkdirSync(outside);
    docs = new FakeDocuments();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads and writes inside the workspace without asking', async () => {
    const guard = new FakeGuard(ws, false);
    const host = new AcpFsHost(docs, guard);
    const file = path.join(ws, 'a.txt');
    await host.writeTextFile(file, 'one\ntwo\nthree');
    assert.equal(docs.files.get(file), 'one\ntwo\nthree');
    assert.equal(await host.readTextFile(file), 'one\ntwo\nthree');
    assert.equal(await host.readTextFile(file, 2, 1), 'two');
    assert.deepEqual(guard.asked, []);
  });

  it('a file not yet created inside the workspace is still inside (nearest existing parent)', async () => {
    const guard = new FakeGuard(ws, false);
    await new AcpFsHost(docs, guard).writeTextFile(path.join(ws, 'new', 'deep', 'b.txt'), 'x');
    assert.deepEqual(guard.asked, []);
  });

  it('outside the workspace asks first; a refusal is a JSON-RPC error and nothing is read or written', async () => {
    const guard = new FakeGuard(ws, false);
    const host = new AcpFsHost(docs, guard);
    const file = path.join(outside, 'secret.txt');
    docs.files.set(file, 'secret');

    const read = await rejection(host.readTextFile(file));
    assert.equal(read.code, FS_DENIED_CODE);
    assert.equal(read.message, `Denied: reading ${file} (outside the workspace) was not approved by the user`);
    assert.equal(read.message, fsDeniedMessage('read', file));
    assert.deepEqual(read.data, { path: file });
    assert.deepEqual(docs.reads, []);

    const write = await rejection(host.writeTextFile(file, 'overwritten'));
    assert.equal(write.code, -32001);
    assert.equal(write.message, `Denied: writing ${file} (outside the workspace) was not approved by the user`);
    assert.equal(docs.files.get(file), 'secret');
    assert.deepEqual(guard.asked, [
      ['read', file],
      ['write', file],
    ]);
  });

  it('outside the workspace with the user’s yes reads and writes', async () => {
    const guard = new FakeGuard(ws, true);
    const host = new AcpFsHost(docs, guard);
    const file = path.join(outside, 'ok.txt');
    await host.writeTextFile(file, 'fine');
    assert.equal(await host.readTextFile(file), 'fine');
    assert.equal(guard.asked.length, 2);
  });

  it('a symlink inside the workspace that points outside counts as outside', async () => {
    const guard = new FakeGuard(ws, false);
    symlinkSync(outside, path.join(ws, 'link'));
    const err = await rejection(new AcpFsHost(docs, guard).readTextFile(path.join(ws, 'link', 'f.txt')));
    assert.equal(err.code, FS_DENIED_CODE);
    assert.deepEqual(guard.asked, [['read', path.join(ws, 'link', 'f.txt')]]);
  });

  it('a `..` path that leaves the workspace asks', async () => {
    const guard = new FakeGuard(ws, false);
    const p = path.join(ws, '..', 'elsewhere', 'x');
    await rejection(new AcpFsHost(docs, guard).readTextFile(p));
    assert.deepEqual(guard.asked, [['read', p]]);
  });

  it('a relative path is invalid params and never reaches the guard or the store', async () => {
    const guard = new FakeGuard(ws, true);
    const err = await rejection(new AcpFsHost(docs, guard).readTextFile('rel/a.txt'));
    assert.equal(err.code, -32602);
    assert.equal(err.message, 'Invalid params: Path must be absolute: rel/a.txt');
    assert.deepEqual(guard.asked, []);
    assert.deepEqual(docs.reads, []);
  });

  it('a missing file is -32002 with its uri', async () => {
    const file = path.join(ws, 'missing.txt');
    const err = await rejection(new AcpFsHost(docs).readTextFile(file));
    assert.equal(err.code, FILE_NOT_FOUND_CODE);
    assert.equal(err.message, `File not found: ${file}`);
    assert.deepEqual(err.data, { uri: `file://${file}` });
  });

  it('an edit the editor refuses is an internal error', async () => {
    docs.refuse = true;
    const err = await rejection(new AcpFsHost(docs).writeTextFile(path.join(ws, 'a'), 'x'));
    assert.equal(err.code, -32603);
    assert.equal(err.message, `Internal error: ${EDIT_REFUSED_MESSAGE}`);
  });

  it('without a guard nothing asks (the whole file system is reachable)', async () => {
    const file = path.join(outside, 'x');
    docs.files.set(file, 'y');
    assert.equal(await new AcpFsHost(docs).readTextFile(file), 'y');
  });

  it('sliceLines: 1-based line, limit counts from there, null means unset', () => {
    assert.equal(sliceLines('a\nb\nc\nd', null, null), 'a\nb\nc\nd');
    assert.equal(sliceLines('a\nb\nc\nd', 3), 'c\nd');
    assert.equal(sliceLines('a\nb\nc\nd', null, 2), 'a\nb');
    assert.equal(sliceLines('a\nb\nc\nd', 2, 0), '');
    assert.equal(sliceLines('a\nb', 9, 1), '');
  });
});
