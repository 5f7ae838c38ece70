// Runs the unit tier (mocha on plain Node over out/test/unit) and records its counts for all.mjs.
import Mocha from 'mocha';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { failureLine } from './failureLine.mjs';

// UNIT_ROOT: folders of out/test/unit only (several joined by `:`); UNIT_COUNTS: where the counts go (the second pass below).
const roots = (process.env.UNIT_ROOT ?? 'out/test/unit').split(':').map((r) => path.resolve(r));
const countsFile = process.env.UNIT_COUNTS ?? 'out/unit-counts.json';
// A sandboxed command starts through the compiled launcher (dist/agent-bash-launch) where the build
// made one, else through scripts doing the same steps. The sandbox's tests run on both routes: the
// whole tier on the first, then the sandbox folders (its own and the escape suites in security/) again
// with AGENT_BASH_NATIVE_LAUNCH=off.
const scriptPass = process.env.UNIT_ROOT === undefined && process.env.AGENT_BASH_NATIVE_LAUNCH !== 'off' && existsSync('dist/agent-bash-launch');
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
for (const file of roots.flatMap((r) => collect(r))) mocha.addFile(file);
// The failing tests' titles go into the counts, so the run's last lines name them (a CI log keeps only its tail).
const failedTitles = [];
const runner = mocha.run((failures) => {
  let passed = runner.stats?.passes ?? 0;
  let failed = runner.stats?.failures ?? failures;
  let skipped = runner.stats?.pending ?? 0;
  if (scriptPass) {
    console.log('\nunit: the sandbox tests again, on the script route (AGENT_BASH_NATIVE_LAUNCH=off)');
    const second = 'out/unit-script-route-counts.json';
    rmSync(second, { force: true });
    const r = spawnSync(process.execPath, [process.argv[1]], {
      stdio: 'inherit',
      env: { ...process.env, AGENT_BASH_NATIVE_LAUNCH: 'off', UNIT_ROOT: 'out/test/unit/exec/sandbox:out/test/unit/security/sandbox', UNIT_COUNTS: second },
    });
    let c = { passed: 0, failed: 1, skipped: 0, failures: ['unit (script route): wrote no counts'] };
    try {
      c = JSON.parse(readFileSync(second, 'utf8'));
    } catch {
      console.log(`unit: the script route's pass wrote no counts (exit ${r.status})`);
    }
    passed += c.passed;
    failed += c.failed;
    skipped += c.skipped;
    failedTitles.push(...(c.failures ?? []).map((t) => `${t} [script route]`));
  }
  mkdirSync('out', { recursive: true });
  writeFileSync(countsFile, JSON.stringify({ passed, failed, skipped, failures: failedTitles }));
  console.log(`unit: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
});
runner.on('fail', (test, err) => failedTitles.push(failureLine(test.fullTitle(), err)));
