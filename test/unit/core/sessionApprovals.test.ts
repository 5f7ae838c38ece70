import * as assert from 'node:assert/strict';
import type { ApprovalRequest, CallerInfo } from '../../../src/core/contracts';
import { SessionApprovals } from '../../../src/core/sessionApprovals';

const decision = { decision: 'prompt' as const, rule: null, kind: 'default' as const, reason: 'r', segments: [], uncertain: false };
const acp = (sessionId: string): CallerInfo => ({ kind: 'acp', name: 'demo', sessionId });
const req = (command: string, caller?: CallerInfo, cwd = '/w'): ApprovalRequest => ({ command, cwd, decision, ...(caller ? { caller } : {}) });

describe('core/sessionApprovals', () => {
  it('answers the same command in the same directory of the same session only', () => {
    const s = new SessionApprovals();
    s.remember(req('npm test', acp('a')));
    assert.equal(s.has(req('npm test', acp('a'))), true);
    assert.equal(s.has(req('npm test', acp('b'))), false, 'another session asks again');
    assert.equal(s.has(req('npm test -- --watch', acp('a'))), false, 'another command asks again');
    assert.equal(s.has(req('npm test', acp('a'), '/elsewhere')), false, 'another directory asks again');
    assert.equal(s.has(req('npm test')), false, 'an unnamed caller is its own session');
  });

  it('unnamed callers share the window session; forget ends a session', () => {
    const s = new SessionApprovals();
    s.remember(req('ls'));
    assert.equal(s.has(req('ls')), true);
    s.remember(req('ls', acp('a')));
    s.forget('a');
    assert.equal(s.has(req('ls', acp('a'))), false);
    assert.equal(s.has(req('ls')), true);
  });
});
