import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_SANDBOX_LIMITS, LIMIT_NAMES, renamedLimit } from '../../../../../src/exec/sandbox/kernel/limits';

describe('sandbox limits: the renamed settings (Memory, Tmpdir Size)', () => {
  const fallback = DEFAULT_SANDBOX_LIMITS.memoryMiB;

  it('the new name wins once set; left at its default, the old name still counts', () => {
    assert.equal(renamedLimit(1024, 2048, fallback), 1024);
    assert.equal(renamedLimit(fallback, 2048, fallback), 2048);
    assert.equal(renamedLimit(undefined, 2048, fallback), 2048);
    assert.equal(renamedLimit(undefined, undefined, fallback), fallback);
    assert.equal(renamedLimit(0, 2048, fallback), 0);
  });

  it('a value that is no limit falls back the same way (negative, fraction, text)', () => {
    assert.equal(renamedLimit(-1, 300, fallback), 300);
    assert.equal(renamedLimit(1.5, undefined, fallback), fallback);
    assert.equal(renamedLimit('64', 'x', fallback), fallback);
  });

  it('the manifest offers the new names, marks the old ones deprecated naming the new, and results name the new', () => {
    const manifest = JSON.parse(readFileSync(path.join(__dirname, '../../../../../../package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Partial<Record<string, { default?: unknown; markdownDeprecationMessage?: string }>> } };
    };
    const props = manifest.contributes.configuration.properties;
    for (const [now, old, def] of [
      ['agentBash.sandbox.limits.memory', 'agentBash.sandbox.limits.memoryMiB', DEFAULT_SANDBOX_LIMITS.memoryMiB],
      ['agentBash.sandbox.limits.tmpdirSize', 'agentBash.sandbox.limits.tmpMiB', DEFAULT_SANDBOX_LIMITS.tmpMiB],
    ] as const) {
      const entry = props[now];
      assert.ok(entry, now);
      assert.equal(entry.default, def);
      assert.equal(entry.markdownDeprecationMessage, undefined);
      assert.ok(props[old]?.markdownDeprecationMessage?.includes(`#${now}#`), old);
    }
    assert.equal(LIMIT_NAMES.memory, 'agentBash.sandbox.limits.memory');
    assert.equal(LIMIT_NAMES.tmp, 'agentBash.sandbox.limits.tmpdirSize');
  });
});
