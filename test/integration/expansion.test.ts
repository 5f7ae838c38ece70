// The policy's helper bash (exec/bashExpander.ts) inside the real extension host: a worker thread
// owns it and the decision blocks on Atomics.wait, so explain answers with bash's own expansion.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { activateApi, setPatterns, workspaceDir } from './testApi';

describe('policy: words expanded by bash in the extension host', () => {
  before(async () => setPatterns([{ match: 'cat *', approval: 'allow' }]));
  after(async () => setPatterns(undefined));

  it('a glob reaching outside asks, naming the file bash finds; braces and globs inside are allowed', async () => {
    const api = await activateApi();
    const d = api.explain('cat /etc/host[n]ame');
    assert.equal(d.decision, 'prompt');
    assert.equal(d.reason, '`cat /etc/host[n]ame` in segment 1 touches `/etc/hostname` (/etc/hostname), outside the workspace');
    const file = path.join(workspaceDir(), 'expansion-it.txt');
    fs.writeFileSync(file, 'x\n');
    try {
      assert.equal(api.explain('cat expansion-it.{txt,md} expansion-i?.t[x]t').decision, 'allow');
    } finally {
      fs.rmSync(file);
    }
  });
});
