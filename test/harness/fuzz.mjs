// `npm run fuzz -- [COUNT] [SEED]`: the policy's differential test at length. Generates COUNT command
// lines (default 20000) from SEED (default: random, printed), runs every one the policy allows
// under real bash in a bubblewrap sandbox with strace, and prints each violation. Exit 1 on any.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);
const out = path.resolve('out');
const { createShellAnalyzer } = require(path.join(out, 'src/core/policy/analysis/shellAnalysis.js'));
const { runDifferential, formatViolation } = require(path.join(out, 'test/unit/security/policy/differential/differentialRun.js'));
const { sandboxAvailable } = require(path.join(out, 'test/unit/security/policy/differential/sandboxJudge.js'));

const count = Number(process.argv[2] ?? 20000);
const seed = process.argv[3] !== undefined ? Number(process.argv[3]) : Math.floor(Math.random() * 2 ** 31);
if (!Number.isInteger(count) || count <= 0 || !Number.isInteger(seed)) {
  console.error('usage: npm run fuzz -- [COUNT] [SEED]');
  process.exit(2);
}
if (!sandboxAvailable()) {
  console.error('fuzz: needs bwrap (bubblewrap) and strace; run `node test/harness/setup.mjs` as root');
  process.exit(2);
}
console.log(`fuzz: seed ${seed}, ${count} command lines`);
const started = Date.now();
// The kernel as a second judge: every allowed line runs again behind the read-only fence (the
// compiled launcher's `readonly` stage), where it must do no harm whatever the policy made of it.
const launcher = path.resolve('dist/agent-bash-launch');
const { fenceSupport } = require(path.join(out, 'src/exec/sandbox/readOnly/readOnlySupport.js'));
const fenceLauncher = fenceSupport('sandboxed').enforced && existsSync(launcher) ? launcher : undefined;
if (!fenceLauncher) console.log('fuzz: the read-only fence cannot hold here: the kernel judges nothing');
const report = await runDifferential({ seed, count, analyzer: await createShellAnalyzer(), log: (l) => console.log(l), ...(fenceLauncher ? { fenceLauncher } : {}) });
for (const v of report.violations) console.log(`VIOLATION ${formatViolation(v)}`);
for (const v of report.fencedViolations ?? []) console.log(`FENCED VIOLATION ${formatViolation(v)}`);
const fenced = report.fencedViolations === undefined ? 'not judged' : `${report.fencedViolations.length} behind the read-only fence`;
console.log(`fuzz: ${report.generated} generated, ${report.allowed} allowed, ${report.ran} run under bash, ${report.violations.length} violations, ${fenced}, ${((Date.now() - started) / 1000).toFixed(1)} s (seed ${seed})`);
process.exit(report.violations.length > 0 || (report.fencedViolations?.length ?? 0) > 0 ? 1 : 0);
