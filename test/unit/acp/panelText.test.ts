import * as assert from 'node:assert/strict';
import { boundedTail, toolStatusWord, turnEndStatus, turnFailedStatus } from '../../../src/acp/panelText';

describe('acp panelText: what the agent panel says', () => {
  it('says how a turn ended in words, not stop reasons', () => {
    assert.equal(turnEndStatus('end_turn'), 'Done');
    assert.equal(turnEndStatus('cancelled'), 'Stopped');
    assert.equal(turnEndStatus('max_tokens'), 'Failed: the agent ran out of room for its answer (it reached its token limit)');
    assert.equal(turnEndStatus('max_turn_requests'), 'Failed: the agent made more model requests in this turn than it may');
    assert.equal(turnEndStatus('refusal'), 'Failed: the agent refused to go on');
    assert.equal(turnEndStatus('something_new'), 'Failed: the agent stopped for a reason it did not explain (something_new)');
    assert.equal(turnFailedStatus('Internal error'), 'Failed: Internal error');
  });

  it('names tool call states in words', () => {
    assert.deepEqual(['pending', 'in_progress', 'completed', 'failed'].map(toolStatusWord), ['Waiting', 'Running', 'Done', 'Failed']);
  });

  it('keeps the end of an output, bounded, from a line start', () => {
    assert.deepEqual(boundedTail('short\n', 10), { text: 'short\n', cut: false });
    // 'aaaa\nbbbb\ncccc\n' cut to 8 would start inside "bbbb": it starts at "cccc".
    assert.deepEqual(boundedTail('aaaa\nbbbb\ncccc\n', 8), { text: 'cccc\n', cut: true });
    // Exactly at a line start: kept as it is.
    assert.deepEqual(boundedTail('aaaa\nbbbb\ncccc\n', 10), { text: 'bbbb\ncccc\n', cut: true });
    // One long line: no line start to go to, so the last characters.
    assert.deepEqual(boundedTail('x'.repeat(20), 5), { text: 'xxxxx', cut: true });
    assert.deepEqual(boundedTail(`${'x'.repeat(20)}\n`, 5), { text: 'xxxx\n', cut: true });
  });
});
