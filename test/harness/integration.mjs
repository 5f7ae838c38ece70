// The integration tier: boots the pinned code-server, opens its workbench in headless Chromium with the
// extension under development and out/test/integration as the test entry (URL `payload`, honoured only
// with `enable-smoke-test-driver`), and waits for `codeAutomationExit`. Prints mocha's report and
// records the counts. Everything it started is stopped on exit, failure, timeout or Ctrl+C.
import { chromium } from 'playwright-core';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setup } from './setup.mjs';
import { CHROMIUM_ARGS, remoteUri, startCodeServer } from './codeServer.mjs';
import { CHROMIUM_PATH } from './versions.mjs';

const root = path.resolve(import.meta.dirname, '..', '..');
const TIMEOUT_MS = Number(process.env.AGENT_BASH_IT_TIMEOUT_MS ?? 10 * 60 * 1000);

function writeCounts(counts) {
  mkdirSync(path.join(root, 'out'), { recursive: true });
  writeFileSync(path.join(root, 'out', 'integration-counts.json'), JSON.stringify(counts));
}

async function main() {
  writeCounts({ passed: 0, failed: 1, error: 'did not finish' });
  setup();
  const testOut = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-it-'));
  const workspace = path.join(testOut, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(path.join(workspace, 'README.txt'), 'Agent Bash integration workspace\n');
  const testHome = path.join(testOut, 'home');
  mkdirSync(testHome, { recursive: true });

  const started = Date.now();
  const server = await startCodeServer({
    workspace,
    smokeTestDriver: true,
    runDir: path.join(testOut, 'server'),
    env: {
      AGENT_BASH_TEST_OUT: testOut,
      AGENT_BASH_TEST_MODE: '1',
      AGENT_BASH_IT_GREP: process.env.AGENT_BASH_IT_GREP ?? '',
      // A home of its own: login shells the tests start (oh-my-pi's `bash -l -c` shape) must not run
      // the machine user's profile, whose stale locks or slow init would make timings depend on it.
      HOME: testHome,
    },
  });
  let browser;
  const cleanup = async () => {
    await browser?.close().catch(() => undefined);
    await server.stop();
  };
  const onSignal = (sig) => {
    process.stderr.write(`\nintegration: ${sig}, stopping code-server\n`);
    cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  let code;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const exited = new Promise((resolve) => page.exposeFunction('codeAutomationExit', (c) => resolve(c)));
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remoteUri(server.port, root)],
      ['extensionTestsPath', remoteUri(server.port, path.join(root, 'out', 'test', 'integration', 'index.js'))],
    ]);
    const url = `${server.url}?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`;
    // A loaded machine can take longer than the default 30 s to serve the workbench.
    await page.goto(url, { timeout: 120000 });
    let timer;
    const timedOut = new Promise((resolve) => {
      timer = setTimeout(() => resolve('timeout'), TIMEOUT_MS);
    });
    code = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    if (code === 'timeout') {
      const shot = path.join(testOut, 'timeout.png');
      await page.screenshot({ path: shot }).catch(() => undefined);
      throw new Error(
        `integration: no result from the extension host within ${TIMEOUT_MS / 1000} s (screenshot ${shot}, server log ${server.logFile})`,
      );
    }
  } finally {
    await cleanup();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
  const log = path.join(testOut, 'mocha.log');
  if (existsSync(log)) process.stdout.write(readFileSync(log, 'utf8'));
  const countsFile = path.join(testOut, 'counts.json');
  if (!existsSync(countsFile)) {
    throw new Error(`integration: the test entry did not run (exit code ${code}); server log: ${server.logFile}`);
  }
  const counts = JSON.parse(readFileSync(countsFile, 'utf8'));
  writeCounts(counts);
  console.log(`integration: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped ?? 0} skipped (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (counts.failed === 0 && code === 0) rmSync(testOut, { recursive: true, force: true });
  return counts.failed > 0 || code !== 0 || counts.passed === 0 ? 1 : 0;
}

main().then(
  (rc) => process.exit(rc),
  (err) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  },
);
