// A login profile's own output never reaches a one-shot command's result (pyenv's "cannot rehash"
// came out at the top of parallel MCP calls); when the shell never reaches the command, it does.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OutputSink } from '../../../src/core/output/outputSink';
import { runOneShot } from '../../../src/exec/oneShotRun';
import { StartTokenFilter } from '../../../src/exec/startTokenFilter';

describe('exec/startTokenFilter', () => {
  it('drops what comes before the token, also when the token is cut across chunks', () => {
    const out: string[] = [];
    const f = new StartTokenFilter((c) => out.push(c.toString()));
    const t = f.token;
    f.stdout(Buffer.from(`banner\n${t.slice(0, 5)}`));
    f.stderr(Buffer.from('pyenv: cannot rehash\n'));
    f.stdout(Buffer.from(`${t.slice(5)}hello\n`));
    f.stdout(Buffer.from('world\n'));
    f.end();
    assert.equal(out.join(''), 'hello\nworld\n');
  });

  it('hands over everything when the shell ended before the command', () => {
    const out: string[] = [];
    const f = new StartTokenFilter((c) => out.push(c.toString()));
    f.stdout(Buffer.from('profile says\n'));
    f.stderr(Buffer.from('profile: fatal\n'));
    f.end();
    assert.equal(out.join(''), 'profile says\nprofile: fatal\n');
  });

  describe('with a real login bash', function () {
    this.timeout(60_000);
    let home: string;
    before(() => {
      home = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-profile-'));
    });
    after(() => rmSync(home, { recursive: true, force: true }));

    async function run(profile: string, command: string): Promise<{ text: string; exitCode: number | undefined }> {
      writeFileSync(path.join(home, '.bash_profile'), profile);
      const sink = new OutputSink({});
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
      const r = await runOneShot({ command, cwd: home, sink, timeoutMs: 30_000 }, { shell: '/bin/bash', args: ['-l', '-c'], env });
      return { text: r.summary.output, exitCode: r.exitCode };
    }

    it('a noisy profile (stdout and stderr) does not show in the output', async () => {
      const r = await run('echo banner; echo "pyenv: cannot rehash" >&2\n', 'echo only-this; echo err-too >&2');
      assert.equal(r.text, 'only-this\nerr-too\n');
      assert.equal(r.exitCode, 0);
    });

    it('a profile that exits before the command shows what it printed', async () => {
      const r = await run('echo profile broke >&2; exit 3\n', 'echo never');
      assert.equal(r.text, 'profile broke\n');
      assert.equal(r.exitCode, 3);
    });
  });
});
