// `npm run bench`, UI part: the real workbench in normal mode (as the UI tier runs it), Run Agent Bash
// from the palette with `echo hi` typed, timed in the page from the Enter keydown to the result's
// notification appearing (a MutationObserver sees the toast the moment it is added). Issue 23's bar:
// median ≤ 150 ms. Prints one table; exits 0 whatever it measures, 1 only if it could not run.
/* global window, document, MutationObserver -- the page.evaluate callbacks run in the browser */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setup } from '../test/harness/setup.mjs';
import { openWorkbench, startCodeServer } from '../test/harness/codeServer.mjs';
import { runFromPalette } from '../test/ui/tests.mjs';

const root = path.resolve(import.meta.dirname, '..');
const RUNS = 10;
const GOAL_MS = 150;

/** In the page: the Enter keydown's time, and the time the first toast added after it appears. */
function installTimer() {
  window.__abBench = { enter: undefined, toast: undefined };
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && window.__abBench.enter === undefined) window.__abBench.enter = performance.now();
  }, true);
  new MutationObserver(() => {
    const b = window.__abBench;
    if (b.enter === undefined || b.toast !== undefined) return;
    // The toast, or (where the workbench shows none, as headless it often does not) the status bar's
    // bell turning to "unread" as the notification lands in the center.
    const fresh = [...document.querySelectorAll('.notification-toast')].find((n) => !n.dataset.abSeen && n.textContent.includes('echo hi'));
    const bell = document.querySelector('#status\\.notifications .codicon-notifications-dot, #status\\.notifications .codicon-bell-dot');
    if (fresh || bell) b.toast = performance.now();
  }).observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ['class'] });
}

async function measure() {
  setup();
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-uibench-'));
  const workspace = path.join(runDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(path.join(workspace, 'README.txt'), 'Agent Bash UI bench\n');
  const server = await startCodeServer({ workspace, smokeTestDriver: true, runDir: path.join(runDir, 'server') });
  let browser;
  try {
    const opened = await openWorkbench(server, workspace, root);
    browser = opened.browser;
    const { page } = opened;
    await page.evaluate(installTimer);
    const input = page.locator('.quick-input-widget input');
    const times = [];
    // One run first (the caller's terminal, shell and analyzer start), then the measured ones.
    for (let i = 0; i <= RUNS; i++) {
      await page.evaluate(() => {
        for (const n of document.querySelectorAll('.notification-toast')) n.dataset.abSeen = '1';
        window.__abBench = { enter: undefined, toast: undefined };
      });
      await runFromPalette(page, 'Agent Bash: Run Agent Bash');
      await input.waitFor({ state: 'visible' });
      await input.fill('echo hi');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => window.__abBench.toast !== undefined, undefined, { timeout: 30000 }).catch(async (err) => {
        await page.screenshot({ path: path.join(os.tmpdir(), 'agent-bash-uibench-failure.png') });
        throw err;
      });
      const { enter, toast } = await page.evaluate(() => window.__abBench);
      if (i > 0) times.push(toast - enter);
      // Nothing unread for the next run: the bell goes back to plain (the clear is tried again should
      // the palette lose it to a repaint).
      for (let attempt = 1; ; attempt++) {
        await runFromPalette(page, 'Notifications: Clear All Notifications');
        const cleared = await page
          .waitForFunction(() => !document.querySelector('#status\\.notifications .codicon-notifications-dot, #status\\.notifications .codicon-bell-dot'), undefined, { timeout: 5000 })
          .then(() => true, () => false);
        if (cleared) break;
        if (attempt === 3) {
          await page.screenshot({ path: path.join(os.tmpdir(), 'agent-bash-uibench-failure.png') });
          throw new Error('the notifications could not be cleared between runs');
        }
      }
    }
    return times;
  } finally {
    await browser?.close().catch(() => undefined);
    await server.stop();
    rmSync(runDir, { recursive: true, force: true });
  }
}

try {
  const times = await measure();
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const rows = [
    { name: `Run Agent Bash \`echo hi\`: Enter → result notification (median of ${RUNS})`, value: median.toFixed(1), unit: 'ms', target: `≤ ${GOAL_MS}`, met: median <= GOAL_MS ? 'yes' : 'no' },
    { name: 'same, fastest / slowest', value: `${sorted[0].toFixed(1)} / ${sorted.at(-1).toFixed(1)}`, unit: 'ms', target: '', met: '' },
  ];
  const cols = ['bench', 'name', 'value', 'unit', 'target', 'met'];
  const text = rows.map((r) => cols.map((c) => (c === 'bench' ? 'ui' : String(r[c] ?? ''))));
  const widths = cols.map((c, i) => Math.max(c.length, ...text.map((t) => t[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join(' | ');
  console.log(line(cols));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const t of text) console.log(line(t));
} catch (err) {
  console.error(`ui bench: ${err?.stack ?? err}`);
  process.exit(1);
}
