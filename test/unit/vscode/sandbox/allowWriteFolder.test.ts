// Allow Writing proposes the narrowest existing folder that holds the refused path, and checks a
// folder the person types instead (issue 31).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { allowWriteProblem, folderToAllow, isBroadFolder } from '../../../../src/vscode/sandbox/allowWriteFolder';

describe('vscode/sandbox: the folder Allow Writing proposes', () => {
  let dir: string;
  before(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'allow-write-')));
    fs.mkdirSync(path.join(dir, 'out', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'out', 'f.txt'), 'x');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the narrowest existing folder: the folder itself, a file\'s folder, a missing path\'s nearest existing parent', () => {
    assert.equal(folderToAllow(path.join(dir, 'out', 'deep'), '/'), path.join(dir, 'out', 'deep'));
    assert.equal(folderToAllow('out/f.txt', dir), path.join(dir, 'out'));
    assert.equal(folderToAllow(path.join(dir, 'out', 'new', 'a', 'b.txt'), '/'), path.join(dir, 'out'));
  });

  it('a typed folder must be absolute, existing, hold the refused path, and not be /', () => {
    const refused = path.join(dir, 'out', 'deep', 'x.txt');
    assert.equal(allowWriteProblem(path.join(dir, 'out'), refused, '/'), undefined);
    assert.equal(allowWriteProblem('out', refused, '/'), 'give an absolute path');
    assert.equal(allowWriteProblem('/', refused, '/'), 'not the whole file system');
    assert.equal(allowWriteProblem('/usr', refused, '/'), `/usr does not hold ${refused}, so the command would still be refused`);
    assert.equal(allowWriteProblem(path.join(dir, 'out', 'f.txt'), path.join(dir, 'out', 'f.txt'), '/'), `${path.join(dir, 'out', 'f.txt')} is not a folder`);
    assert.equal(allowWriteProblem(path.join(dir, 'out', 'deep', 'x'), path.join(dir, 'out', 'deep', 'x', 'y'), '/'), `${path.join(dir, 'out', 'deep', 'x')} does not exist (the sandbox opens existing folders only)`);
  });

  it('/tmp, the home folder and / are named as broad', () => {
    assert.equal(isBroadFolder('/tmp', '/home/me'), true);
    assert.equal(isBroadFolder('/tmp/', '/home/me'), true);
    assert.equal(isBroadFolder('/home/me', '/home/me'), true);
    assert.equal(isBroadFolder('/', '/home/me'), true);
    assert.equal(isBroadFolder('/tmp/build', '/home/me'), false);
  });
});
