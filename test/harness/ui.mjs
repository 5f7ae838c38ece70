// The UI tier: Playwright drives the real workbench in normal mode (extension loaded as a development
// extension, no test entry, so VS Code shows modal dialogs) and clicks through what a user does.
// Each test is a function; the tier prints `ui: N passed, N failed, N skipped` and records the counts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setup } from './setup.mjs';
import { failureLine } from './failureLine.mjs';
import { openWorkbench, startCodeServer } from './codeServer.mjs';
import { uiTests } from '../ui/tests.mjs';

const root = path.resolve(import.meta.dirname, '..', '..');
const shotsDir = path.join(root, 'out', 'ui-screenshots');

function writeCounts(counts) {
  mkdirSync(path.join(root, 'out'), { recursive: true });
  writeFileSync(path.join(root, 'out', 'ui-counts.json'), JSON.stringify(counts));
}

async function main() {
  writeCounts({ passed: 0, failed: 1, error: 'did not finish' });
  setup();
  mkdirSync(shotsDir, { recursive: true });
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-ui-'));
  const workspace = path.join(runDir, 'workspace');
  mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  writeFileSync(path.join(workspace, 'README.txt'), 'Agent Bash UI workspace\n');
  // The ACP test agent and the sample workspace's demo agent, launched by `Connect ACP Agent` from the
  // palette; only a few echoes are allowed without asking, so the dialog tests still see their prompts.
  writeFileSync(
    path.join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({
      'agentBash.acp.agents': [
        { name: 'ui-test-agent', command: process.execPath, args: [path.join(root, 'out', 'test', 'fixtures', 'acpTestAgent.js')] },
        { name: 'Demo agent', command: process.execPath, args: [path.join(root, 'sample-workspace', '.agent-bash', 'demo-agent.js')] },
      ],
      'agentBash.patterns': [
        { match: 'echo ui-acp-*', approval: 'allow' },
        { match: 'echo ui-hist-*', approval: 'allow' },
        { match: 'echo ui-ten-*', approval: 'allow', allowRedirects: true },
        { match: 'rm -rf ui-*', approval: 'deny' },
      ],
    }, null, 2),
  );
  // A user-level rule, so the Manage Rules test sees two settings layers (user and workspace).
  const server = await startCodeServer({
    workspace,
    smokeTestDriver: true,
    runDir: path.join(runDir, 'server'),
    // AGENT_BASH_UI_THEME (e.g. `Default Dark Modern`, `Default High Contrast`): the tier in that colour theme.
    userSettings: {
      'agentBash.patterns': [{ match: 'echo ui-user-*', approval: 'allow' }],
      ...(process.env.AGENT_BASH_UI_THEME ? { 'workbench.colorTheme': process.env.AGENT_BASH_UI_THEME } : {}),
    },
  });
  const userSettings = path.join(server.userDataDir, 'User', 'settings.json');
  let browser;
  const cleanup = async () => {
    await browser?.close().catch(() => undefined);
    await server.stop();
  };
  const onSignal = () => cleanup().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  try {
    const opened = await openWorkbench(server, workspace, root);
    browser = opened.browser;
    const { page } = opened;
    const grep = process.env.AGENT_BASH_UI_GREP;
    // `a|b` runs the tests whose names contain a or b.
    for (const test of uiTests.filter((t) => !grep || grep.split('|').some((g) => t.name.includes(g)))) {
      const t = Date.now();
      try {
        // A test that cannot run on this machine returns `{ skipped: 'why' }`.
        const outcome = await test.run({ page, workspace, shotsDir, userSettings });
        if (outcome?.skipped) {
          skipped++;
          console.log(`  - ${test.name}: skipped: ${outcome.skipped}`);
        } else {
          passed++;
          console.log(`  ✔ ${test.name} (${Date.now() - t} ms)`);
        }
      } catch (err) {
        failed++;
        failures.push(failureLine(test.name, err));
        const shot = path.join(shotsDir, `${test.name.replace(/\W+/g, '-')}-failure.png`);
        await page.screenshot({ path: shot }).catch(() => undefined);
        console.log(`  ✘ ${test.name}: ${err?.stack ?? err}\n    screenshot: ${shot}`);
        await page.keyboard.press('Escape').catch(() => undefined);
      }
    }
  } finally {
    await cleanup();
  }
  writeCounts({ passed, failed, skipped, failures });
  console.log(`ui: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  if (failed === 0) rmSync(runDir, { recursive: true, force: true });
  else console.log(`ui: server log ${server.logFile}`);
  return failed > 0 || passed === 0 ? 1 : 0;
}

main().then(
  (rc) => process.exit(rc),
  (err) => {
    process.stderr.write(`ui: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
