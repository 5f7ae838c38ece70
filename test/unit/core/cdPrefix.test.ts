import * as assert from 'node:assert/strict';
import { extractCdPrefix } from '../../../src/core/cdPrefix';

describe('core/cdPrefix extractCdPrefix', () => {
  const cases: Array<[string, { cwd: string; command: string } | undefined]> = [
    ['cd src && ls', { cwd: 'src', command: 'ls' }],
    ['cd /tmp/x   &&   make -j4 && make test', { cwd: '/tmp/x', command: 'make -j4 && make test' }],
    ['cd\tsrc&&ls', { cwd: 'src', command: 'ls' }],
    ['cd "my dir" && ls', { cwd: 'my dir', command: 'ls' }],
    ["cd 'my dir' && ls", { cwd: 'my dir', command: 'ls' }],
    ['cd ~/proj && git status | head', { cwd: '~/proj', command: 'git status | head' }],
    ['cd ../a-b.c_d && ls', { cwd: '../a-b.c_d', command: 'ls' }],
    // Declined: the command goes to the shell unchanged.
    ['cd $HOME && ls', undefined],
    ['cd `pwd` && ls', undefined],
    ['cd $(git rev-parse --show-toplevel) && ls', undefined],
    ['cd (x) && ls', undefined],
    ['cd src; ls', undefined],
    ['cd src && ls\necho hi', undefined],
    ['cd src\n&& ls', undefined],
    ['cd src &&', undefined],
    ['cd src && ', undefined],
    ['cd && ls', undefined],
    ['cd - && ls', undefined],
    ['cd a b && ls', undefined],
    ['cd my\\ dir && ls', undefined],
    ['cd src > log && ls', undefined],
    ['cd /tmp; rm -rf x && ls', undefined],
    ['cd src* && ls', undefined],
    ['cd src || ls', undefined],
    ['cdx src && ls', undefined],
    [' cd src && ls', undefined],
    ['ls && cd src && ls', undefined],
    ['echo cd src && ls', undefined],
  ];
  for (const [command, expected] of cases) {
    it(`${JSON.stringify(command)} → ${expected ? JSON.stringify(expected) : 'unchanged'}`, () => {
      assert.deepEqual(extractCdPrefix(command), expected);
    });
  }
});
