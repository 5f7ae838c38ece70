// Runs the unit tier (mocha on plain Node over out/test/unit) and records its counts for all.mjs.
import Mocha from 'mocha';
import { readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve('out/test/unit');
// Tests kill shells mid-run on purpose. A login shell killed while its profile runs can leave stale
// locks behind (pyenv's rehash lock makes every later login shell wait 60 s), so the suite runs shells
// without `-l`; the login default itself is covered by shellConfig's unit tests.
process.env.AGENT_BASH_NO_LOGIN ??= '1';
const grep = process.env.UNIT_GREP;

function collect(dir) {
  const files = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) files.push(...collect(full));
    else if (name.endsWith('.test.js')) files.push(full);
  }
  return files.sort();
}

// The per-test timeout only catches a hang: tests that run bash a few hundred times take 10 s on a quiet
// machine and twice that on a busy 2-core one, so it is generous. Slowness is measured in `npm run bench`.
const mocha = new Mocha({ ui: 'bdd', timeout: 120000, reporter: 'spec', ...(grep ? { grep } : {}) });
for (const file of collect(root)) mocha.addFile(file);
const runner = mocha.run((failures) => {
  const passed = runner.stats?.passes ?? 0;
  const failed = runner.stats?.failures ?? failures;
  const skipped = runner.stats?.pending ?? 0;
  mkdirSync('out', { recursive: true });
  writeFileSync('out/unit-counts.json', JSON.stringify({ passed, failed, skipped }));
  console.log(`unit: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
});
