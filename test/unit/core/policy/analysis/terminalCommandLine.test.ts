import * as assert from 'node:assert/strict';
import { policyCommandLine } from '../../../../../src/core/policy/analysis/terminalCommandLine';

describe('acp policyCommandLine', () => {
  it('judges a raw line (claude-code-acp shape) as written', () => {
    assert.equal(policyCommandLine({ command: 'rm -rf build && ls' }), 'rm -rf build && ls');
    assert.equal(policyCommandLine({ command: 'ls', args: [] }), 'ls');
  });

  it('judges the payload of a shell wrapper (oh-my-pi shape)', () => {
    assert.equal(policyCommandLine({ command: '/bin/bash', args: ['-l', '-c', 'touch x; ls'] }), 'touch x; ls');
    assert.equal(policyCommandLine({ command: '/usr/bin/zsh', args: ['-lc', 'echo hi'] }), 'echo hi');
    assert.equal(policyCommandLine({ command: 'sh', args: ['-c', 'echo $1', 'sh', 'arg'] }), 'echo $1');
  });

  it('quotes any other argv back into a line', () => {
    assert.equal(policyCommandLine({ command: 'ls', args: ['-la', 'my dir', "it's"] }), `ls -la 'my dir' 'it'\\''s'`);
    assert.equal(policyCommandLine({ command: '/bin/bash', args: ['script.sh', '-c', 'x'] }), `/bin/bash script.sh -c x`);
    assert.equal(policyCommandLine({ command: 'env', args: ['bash', '-c', 'rm -rf /'] }), `env bash -c 'rm -rf /'`);
  });
});
