import * as assert from 'node:assert/strict';
import { Transcript } from '../../../src/acp/transcript';

describe('acp Transcript', () => {
  it('merges consecutive message chunks and starts a new item after a tool call', () => {
    const t = new Transcript();
    t.addUser('hi');
    t.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hel' } });
    t.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'lo' } });
    t.apply({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'ls', kind: 'execute', status: 'pending' });
    t.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'done' } });
    assert.deepEqual(
      t.items.map((i) => [i.kind, i.kind === 'tool' ? i.title : i.text]),
      [
        ['user', 'hi'],
        ['agent', 'Hello'],
        ['tool', 'ls'],
        ['agent', 'done'],
      ],
    );
  });

  it('keeps a terminal id after the final update drops the terminal block', () => {
    const t = new Transcript();
    t.apply({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'make', status: 'pending' });
    t.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'term_1' }] });
    const index = t.apply({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'a',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'ok' } }],
    });
    assert.equal(index, 0);
    assert.deepEqual(t.tool('a'), {
      kind: 'tool',
      toolCallId: 'a',
      title: 'make',
      status: 'completed',
      toolKind: 'other',
      text: 'ok',
      terminalIds: ['term_1'],
    });
  });

  it('ignores updates it does not show', () => {
    const t = new Transcript();
    assert.equal(t.apply({ sessionUpdate: 'plan', entries: [] }), undefined);
    assert.deepEqual(t.items, []);
  });
});
