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

async function waitFor(predicate, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export const uiTests = [
  {
    name: 'palette lists Run Agent Bash and it runs a command in a terminal',
    async run({ page, workspace, shotsDir }) {
      await runFromPalette(page, 'Agent Bash: Run Agent Bash');
      await typeIntoInputBox(page, 'echo palette-ok > ui-palette.txt');
      const marker = path.join(workspace, 'ui-palette.txt');
      await waitFor(() => existsSync(marker), 20000, 'ui-palette.txt');
      assert.equal(readFileSync(marker, 'utf8'), 'palette-ok\n');
      // The information message is announced through the workbench's aria alert region.
      await page.locator('.monaco-alert', { hasText: 'Agent Bash: `echo palette-ok > ui-palette.txt` [exit code 0]' })
        .first().waitFor({ state: 'attached', timeout: 10000 });
      await page.screenshot({ path: path.join(shotsDir, 'run-agent-bash.png') });
    },
  },
];
