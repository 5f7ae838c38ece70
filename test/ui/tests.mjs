// UI tests driven through the real workbench (see test/harness/ui.mjs). Each asserts what a user sees
// and the command's effect on disk.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Opens the palette and runs a command; retries while the development extension is still loading. */
export async function runFromPalette(page, commandTitle, timeoutMs = 45000) {
  const deadline = Date.now() + timeoutMs;
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: commandTitle }).first();
  for (;;) {
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${commandTitle}`);
    try {
      await row.waitFor({ state: 'visible', timeout: 2000 });
      await page.keyboard.press('Enter');
      return;
    } catch (err) {
      await page.keyboard.press('Escape');
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function typeIntoInputBox(page, text) {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(text);
  await page.keyboard.press('Enter');
}

/**
 * Run Agent Bash with a typed command. On a loaded machine the workbench sometimes hides the quick
 * pick before it can be typed into (nothing ran then): open it again, up to three times.
 */
async function runAgentBash(page, command) {
  const input = page.locator('.quick-input-widget input');
  for (let attempt = 1; ; attempt++) {
    await runFromPalette(page, 'Agent Bash: Run Agent Bash');
    try {
      await input.fill(command, { timeout: 10000 });
      await page.keyboard.press('Enter');
      return;
    } catch (err) {
      await page.keyboard.press('Escape');
      if (attempt === 3) throw err;
    }
  }
}

async function waitFor(predicate, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Waits for the modal dialog, checks it names the command, and clicks a button by its label. */
async function answerDialog(page, expectText, button, shotPath) {
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ state: 'visible', timeout: 20000 });
  const text = await dialog.innerText();
  assert.ok(text.includes('Agent Bash: run this command?'), `dialog title missing in: ${text}`);
  assert.ok(text.includes(expectText), `dialog does not show ${expectText}: ${text}`);
  assert.ok(text.includes('Why you are asked:'), `dialog has no reason: ${text}`);
  if (shotPath) await page.screenshot({ path: shotPath });
  await dialog.locator('.dialog-buttons .monaco-button', { hasText: button }).first().click();
  await dialog.waitFor({ state: 'hidden', timeout: 10000 });
}

async function announced(page, text) {
  // Information and error messages are announced through the workbench's aria alert region.
  await page.locator('.monaco-alert', { hasText: text }).first().waitFor({ state: 'attached', timeout: 15000 });
}

export const uiTests = [
  {
    name: 'Run Agent Bash from the palette, Allow once in the real dialog, the command runs',
    async run({ page, workspace, shotsDir }) {
      await runFromPalette(page, 'Agent Bash: Run Agent Bash');
      await typeIntoInputBox(page, 'echo palette-ok > ui-allowed.txt');
      await answerDialog(page, 'Command: echo palette-ok > ui-allowed.txt', 'Allow once', path.join(shotsDir, 'approval-dialog.png'));
      const marker = path.join(workspace, 'ui-allowed.txt');
      await waitFor(() => existsSync(marker), 20000, 'ui-allowed.txt');
      assert.equal(readFileSync(marker, 'utf8'), 'palette-ok\n');
      await announced(page, 'Agent Bash: `echo palette-ok > ui-allowed.txt` [exit code 0]');
      await new Promise((r) => setTimeout(r, 1000));
      await page.screenshot({ path: path.join(shotsDir, 'run-agent-bash.png') });
    },
  },
  {
    name: 'Run Agent Bash from the palette, Deny in the real dialog, the command does not run',
    async run({ page, workspace }) {
      await runFromPalette(page, 'Agent Bash: Run Agent Bash');
      await typeIntoInputBox(page, 'touch ui-denied.txt');
      await answerDialog(page, 'Command: touch ui-denied.txt', 'Deny');
      await announced(page, 'Agent Bash: `touch ui-denied.txt` was not run or failed: Command denied by the user');
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(existsSync(path.join(workspace, 'ui-denied.txt')), false, 'the denied command ran');
    },
  },
  {
    name: 'Connect ACP Agent from the palette: a prompt in the panel runs the agent command as a terminal card',
    async run({ page, shotsDir }) {
      await runFromPalette(page, 'Agent Bash: Connect ACP Agent');
      // With one agent configured it connects at once; with several a quick pick asks which.
      const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'ui-test-agent' }).first();
      if (await pick.isVisible().catch(() => false)) await pick.click();
      // VS Code webviews are an iframe holding the page's own iframe.
      const view = page.frameLocator('iframe.webview').frameLocator('iframe#active-frame');
      const prompt = view.locator('#prompt');
      await prompt.waitFor({ state: 'visible', timeout: 20000 });
      await prompt.fill(JSON.stringify({ scenario: 'run', command: 'echo ui-acp-card' }));
      await view.locator('#send').click();
      const card = view.locator('.terminal-card', { hasText: 'echo ui-acp-card' }).first();
      await card.waitFor({ state: 'visible', timeout: 20000 });
      await view.locator('.terminal-card.exited .terminal-output', { hasText: 'ui-acp-card' }).first().waitFor({ timeout: 10000 });
      const exitText = await card.locator('.terminal-exit').innerText();
      assert.equal(exitText, '[exit code 0]');
      await page.screenshot({ path: path.join(shotsDir, 'acp-panel.png') });
    },
  },
  {
    name: 'Ten commands from the palette share one "Agent Bash" terminal',
    async run({ page, workspace, shotsDir }) {
      for (let i = 1; i <= 10; i++) {
        await runAgentBash(page, `echo ui-ten-${i} && echo ui-ten-${i} > ui-ten-${i}.txt`);
        const marker = path.join(workspace, `ui-ten-${i}.txt`);
        await waitFor(() => existsSync(marker) && readFileSync(marker, 'utf8') === `ui-ten-${i}\n`, 20000, marker);
      }
      // With more than one terminal open the panel lists them as tabs: the palette's is listed once.
      const tabs = page.locator('.terminal-tabs-entry');
      await waitFor(async () => (await tabs.count()) > 0, 10000, 'the terminal tab list');
      const labels = (await tabs.allInnerTexts()).map((t) => t.trim());
      assert.equal(labels.filter((l) => l === 'Agent Bash').length, 1, `terminal tabs: ${labels.join(' | ')}`);
      await tabs.nth(labels.indexOf('Agent Bash')).click();
      await new Promise((r) => setTimeout(r, 1500));
      await page.screenshot({ path: path.join(shotsDir, 'ten-commands-one-terminal.png') });
    },
  },
];
