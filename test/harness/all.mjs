// `npm test`: build once, lint, run the unit tier and the integration tier (inside a real VS Code), and
// end with one line `N passed, N failed` summing them (lint counts as one test). Exits non-zero when
// anything failed, when a tier did not run, or when setup failed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');
const started = Date.now();

function step(name, cmd, args) {
  const t = Date.now();
  const res = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  console.log(`[test] ${name}: exit ${res.status ?? res.signal} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  return res.status === 0;
}

function counts(file) {
  const full = path.join(root, 'out', file);
  if (!existsSync(full)) return { passed: 0, failed: 1, missing: true };
  return JSON.parse(readFileSync(full, 'utf8'));
}

for (const f of ['unit-counts.json', 'integration-counts.json', 'ui-counts.json']) rmSync(path.join(root, 'out', f), { force: true });

let ok = step('build', 'npm', ['run', '--silent', 'build']) && step('compile tests', 'npx', ['tsc', '-p', 'tsconfig.test.json']);
if (!ok) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
// Lint before the tiers: a failure fails the run, but the tiers still run so one run shows everything.
const lintOk = step('lint', 'npm', ['run', '--silent', 'lint']);
if (!lintOk) console.log('[test] lint FAILED: the problems are listed above (`npm run lint` shows them again)');
// Setup first (Debian packages, Node 24, code-server): a failed setup fails the run, never skips a tier.
const setupOk = step('setup', process.execPath, ['test/harness/setup.mjs']);
const unitOk = step('unit tier', process.execPath, ['test/harness/unit.mjs']);
const itOk = step('integration tier', process.execPath, ['test/harness/integration.mjs']);
const uiOk = step('ui tier', process.execPath, ['test/harness/ui.mjs']);
const tiers = [counts('unit-counts.json'), counts('integration-counts.json'), counts('ui-counts.json')];
const passed = tiers.reduce((n, c) => n + c.passed, lintOk ? 1 : 0);
const failed = tiers.reduce((n, c) => n + c.failed, lintOk ? 0 : 1);
const skipped = tiers.reduce((n, c) => n + (c.skipped ?? 0), 0);
ok = lintOk && setupOk && unitOk && itOk && uiOk && failed === 0;
console.log(`[test] wall time ${((Date.now() - started) / 1000).toFixed(1)} s`);
// Named again at the very end, so a log that keeps only its tail still says which tests failed.
const names = ['unit', 'integration', 'ui'];
for (const [i, c] of tiers.entries()) {
  if (c.missing) console.log(`[test] FAILED ${names[i]}: the tier wrote no counts`);
  else if (c.failed > 0 && !(c.failures ?? []).length) console.log(`[test] FAILED ${names[i]}: ${c.error ?? `${c.failed} test(s); see the tier's output above`}`);
  for (const title of c.failures ?? []) console.log(`[test] FAILED ${names[i]}: ${title}`);
}
if (!lintOk) console.log('[test] FAILED lint (`npm run lint` lists the problems)');
if (!setupOk) console.log('[test] FAILED setup (its error is above)');
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(ok ? 0 : 1);
