// `npm run test:fast`: the unit files of test/harness/fastTier.mjs only, in seconds. Refuses to start
// when the list names a missing file or one whose imports reach a process (fastGuard.mjs), and fails
// when a test starts a process anyway. Prints `fast: N passed, N failed, N skipped in S s`. It records
// no counts for `npm test`, which runs every unit file in the unit tier.
import Mocha from 'mocha';
import path from 'node:path';
import { FAST_UNIT_FILES } from './fastTier.mjs';
import { checkFastList, tripwire } from './fastGuard.mjs';

const root = path.resolve(import.meta.dirname, '..', '..');
const outRoot = path.join(root, 'out');
// Seconds the tier should take on the 2-core test machine; past it a line says so (the run still counts).
const BUDGET_S = 30;
const started = Date.now();

const problems = checkFastList(FAST_UNIT_FILES, outRoot);
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`fast: ${problems.length} problem(s) with test/harness/fastTier.mjs; nothing ran`);
  process.exit(1);
}

const attempts = tripwire();
// A hang, not slowness, is what the timeout catches; a fast test taking seconds belongs in the unit tier.
const mocha = new Mocha({ ui: 'bdd', timeout: 20000, reporter: 'dot', ...(process.env.UNIT_GREP ? { grep: process.env.UNIT_GREP } : {}) });
for (const name of FAST_UNIT_FILES) mocha.addFile(path.join(outRoot, 'test', 'unit', name.replace(/\.ts$/, '.js')));
const runner = mocha.run((failures) => {
  const passed = runner.stats?.passes ?? 0;
  const failed = (runner.stats?.failures ?? failures) + attempts.length;
  const skipped = runner.stats?.pending ?? 0;
  for (const attempt of attempts) console.log(attempt);
  const seconds = (Date.now() - started) / 1000;
  console.log(`fast: ${passed} passed, ${failed} failed, ${skipped} skipped in ${seconds.toFixed(1)} s (${FAST_UNIT_FILES.length} files)`);
  if (seconds > BUDGET_S) console.log(`fast: over the ${BUDGET_S} s budget: move the slowest file back to the unit tier`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
});
