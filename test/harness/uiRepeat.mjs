// An opt-in check that the UI tier is steady: runs it N times in a row in CI mode (CI=true, as the CI
// machine does), each run a fresh code-server and browser, and stops at the first failed run.
// Not part of `npm test`. Usage: `node test/harness/uiRepeat.mjs [--times N]` (default 3);
// AGENT_BASH_UI_GREP narrows each run as it does for ui.mjs. Prints `ui repeat: N of N runs passed`.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');

function timesArg(argv) {
  const at = argv.indexOf('--times');
  if (at < 0) return 3;
  const n = Number(argv[at + 1]);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`ui repeat: --times needs a whole number of runs of at least 1, not ${argv[at + 1] ?? 'nothing'}\n`);
    process.exit(2);
  }
  return n;
}

const times = timesArg(process.argv.slice(2));
/** The run in progress: its process group is stopped as a whole on SIGINT/SIGTERM. */
let child;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    // ui.mjs stops its code-server and browser on SIGTERM; the group takes anything else with it.
    if (child?.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
    process.exitCode = 130;
  });
}

function runOnce() {
  return new Promise((resolve) => {
    child = spawn(process.execPath, [path.join(root, 'test', 'harness', 'ui.mjs')], {
      cwd: root,
      stdio: 'inherit',
      detached: true,
      env: { ...process.env, CI: 'true' },
    });
    child.on('exit', (code, signal) => {
      child = undefined;
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

function counts() {
  const file = path.join(root, 'out', 'ui-counts.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { passed: 0, failed: 1 };
}

let passedRuns = 0;
for (let run = 1; run <= times && process.exitCode !== 130; run++) {
  const started = Date.now();
  console.log(`ui repeat: run ${run} of ${times}`);
  const code = await runOnce();
  if (process.exitCode === 130) {
    console.log(`ui repeat: run ${run} stopped by a signal`);
    break;
  }
  const c = counts();
  console.log(`ui repeat: run ${run}: ${c.passed} passed, ${c.failed} failed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (code !== 0 || c.failed > 0 || c.passed === 0) break;
  passedRuns++;
}
console.log(`ui repeat: ${passedRuns} of ${times} runs passed`);
process.exitCode = passedRuns === times ? 0 : process.exitCode === 130 ? 130 : 1;
