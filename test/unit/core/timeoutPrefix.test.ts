import * as assert from 'node:assert/strict';
import { parseTimeoutPrefix } from '../../../src/core/timeoutPrefix';

describe('core/timeoutPrefix (issue 34): the Run Agent Bash box accepts a timeout', () => {
  it('reads --timeout N and --timeout=N in front of the command, and leaves other text alone', () => {
    assert.deepEqual(parseTimeoutPrefix('--timeout 30 npm test'), { command: 'npm test', timeout: 30 });
    assert.deepEqual(parseTimeoutPrefix('--timeout=1.5 sleep 5 && echo x'), { command: 'sleep 5 && echo x', timeout: 1.5 });
    assert.deepEqual(parseTimeoutPrefix('npm test --timeout 30'), { command: 'npm test --timeout 30' });
    assert.deepEqual(parseTimeoutPrefix('--timeoutx 3 ls'), { command: '--timeoutx 3 ls' });
    assert.deepEqual(parseTimeoutPrefix('--timeout abc ls'), { invalid: true });
    assert.deepEqual(parseTimeoutPrefix('--timeout 30'), { invalid: true });
  });
});
