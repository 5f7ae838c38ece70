import * as assert from 'node:assert/strict';
import { buttonLabels, PermissionHost, permissionTitle, type PermissionOptionLike, type PermissionQuestion } from '../../../src/acp/permissionHost';

const OPTIONS: PermissionOptionLike[] = [
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
  { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
  { optionId: 'always', name: 'Always', kind: 'allow_always' },
];
const CALL = { toolCallId: 't1', title: 'npm test', kind: 'execute', rawInput: { command: 'npm test' } };

function asker(answers: Array<string | undefined>) {
  const asked: PermissionQuestion[] = [];
  return {
    asked,
    ask: async (q: PermissionQuestion) => {
      asked.push(q);
      return answers.shift();
    },
  };
}

describe('acp PermissionHost', () => {
  it('orders buttons allow first and answers the chosen option id', async () => {
    const a = asker(['Allow']);
    const host = new PermissionHost('omp', a);
    assert.deepEqual(await host.request(CALL, OPTIONS, new AbortController().signal), { outcome: 'selected', optionId: 'yes' });
    assert.deepEqual(a.asked, [{ message: permissionTitle('omp', 'npm test'), detail: 'Command: npm test', buttons: ['Allow', 'Always', 'Reject'] }]);
  });

  it('answers cancelled when dismissed, or without asking when already aborted', async () => {
    const a = asker([undefined]);
    const host = new PermissionHost('omp', a);
    assert.deepEqual(await host.request(CALL, OPTIONS, new AbortController().signal), { outcome: 'cancelled' });
    const aborted = new AbortController();
    aborted.abort();
    assert.deepEqual(await host.request(CALL, OPTIONS, aborted.signal), { outcome: 'cancelled' });
    assert.equal(a.asked.length, 1);
  });

  it('answers cancelled when the turn is cancelled while the dialog is open', async () => {
    const never = { ask: () => new Promise<string | undefined>(() => undefined) };
    const host = new PermissionHost('omp', never);
    const turn = new AbortController();
    const pending = host.request(CALL, OPTIONS, turn.signal);
    turn.abort();
    assert.deepEqual(await pending, { outcome: 'cancelled' });
  });

  it('remembers an always answer for the same tool call, falling back to the once option', async () => {
    const a = asker(['Always']);
    const host = new PermissionHost('omp', a);
    const signal = new AbortController().signal;
    assert.deepEqual(await host.request(CALL, OPTIONS, signal), { outcome: 'selected', optionId: 'always' });
    assert.deepEqual(await host.request(CALL, OPTIONS, signal), { outcome: 'selected', optionId: 'always' });
    const onceOnly = OPTIONS.filter((o) => o.kind !== 'allow_always');
    assert.deepEqual(await host.request(CALL, onceOnly, signal), { outcome: 'selected', optionId: 'yes' });
    assert.equal(a.asked.length, 1);
  });

  it('keeps button labels unique', () => {
    assert.deepEqual(
      buttonLabels([
        { optionId: 'a', name: 'Yes', kind: 'allow_once' },
        { optionId: 'b', name: 'Yes', kind: 'allow_always' },
        { optionId: 'c', name: ' ', kind: 'reject_once' },
      ]),
      ['Yes', 'Yes (allow_always)', 'reject_once'],
    );
  });

  it('remembers a command the person allowed (once), not one they rejected', async () => {
    const host = new PermissionHost('omp', asker(['Allow', 'Reject']));
    await host.request(CALL, OPTIONS, new AbortController().signal);
    assert.equal(host.takeAllowedCommand('npm test'), true);
    assert.equal(host.takeAllowedCommand('npm test'), false);
    await host.request({ ...CALL, toolCallId: 't2', rawInput: { command: 'rm -rf x' } }, OPTIONS, new AbortController().signal);
    assert.equal(host.takeAllowedCommand('rm -rf x'), false);
  });
});
