// UI tests driven through the real workbench (see test/harness/ui.mjs). Each asserts what a user sees
// and the command's effect on disk.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** Opens the palette and runs a command; retries while the development extension is still loading. */
export async function runFromPalette(page, commandTitle, timeoutMs = 45000) {
  const deadline = Date.now() + timeoutMs;
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: commandTitle }).first();
  for (;;) {
    await page.keyboard.press('F1');
    try {
      // F1 can be swallowed while focus sits in a webview or a closing widget: then press it again.
      await input.waitFor({ state: 'visible', timeout: 5000 });
      await input.fill(`>${commandTitle}`, { timeout: 5000 });
      await row.waitFor({ state: 'visible', timeout: 2000 });
      // A click picks exactly this row; Enter would take whichever row is highlighted (recently used first).
      await row.click();
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
  assert.match(text, /Agent Bash: (run this command\?|.+ wants to run a command)/, `dialog title missing in: ${text}`);
  assert.ok(text.includes(expectText), `dialog does not show ${expectText}: ${text}`);
  assert.ok(text.includes('Why you are asked:'), `dialog has no reason: ${text}`);
  assert.ok(!text.includes('segment'), `dialog speaks of segments: ${text}`);
  const buttons = await dialog.locator('.dialog-buttons .monaco-button').allInnerTexts();
  // The workbench orders dialog buttons by platform; compare the set.
  const labels = buttons.map((b) => b.trim()).filter((b) => b !== 'Always allow…').sort();
  assert.deepEqual(labels, ['Allow for this session', 'Allow once', 'Deny'], `no separate Cancel: ${labels}`);
  if (shotPath) await page.screenshot({ path: shotPath });
  await dialog.locator('.dialog-buttons .monaco-button', { hasText: button }).first().click();
  await dialog.waitFor({ state: 'hidden', timeout: 10000 });
}

async function announced(page, text) {
  // Information and error messages are announced through the workbench's aria alert region.
  await page.locator('.monaco-alert', { hasText: text }).first().waitFor({ state: 'attached', timeout: 15000 });
}


/** Connect ACP Agent from the palette, picking `name`; returns the agent panel's inner frame. */
async function connectAgent(page, name) {
  await runFromPalette(page, 'Agent Bash: Connect ACP Agent');
  // With several agents configured a quick pick asks which.
  const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first();
  // The first command after the workbench loads waits for the extension to activate.
  await pick.waitFor({ state: 'visible', timeout: 30000 });
  await pick.click();
  // VS Code webviews are an iframe holding the page's own iframe; the newest panel is the last one.
  return page.frameLocator('iframe.webview').last().frameLocator('iframe#active-frame');
}

/** Runs `command` from Run Agent Bash (no dialog expected unless `answer` is given). */
async function runAgentBash(page, command, answer) {
  // A terminal taking focus as the previous command ends can close the fresh quick pick: try again.
  for (let attempt = 1; ; attempt++) {
    await runFromPalette(page, 'Agent Bash: Run Agent Bash');
    const input = page.locator('.quick-input-widget input');
    try {
      await input.waitFor({ state: 'visible', timeout: 5000 });
      await input.fill(command, { timeout: 5000 });
      await page.keyboard.press('Enter');
      break;
    } catch (err) {
      if (attempt === 3) throw err;
      await page.keyboard.press('Escape');
    }
  }
  if (answer) await answerDialog(page, `Command: ${command}`, answer);
}

/**
 * A click on a button of the notification with this text: on its toast, or in the notification center
 * once the toast is gone (which then closes again). `shotPath`: a screenshot with the notification shown.
 */
async function clickToastButton(page, text, button, shotPath) {
  const toast = page.locator('.notification-toast', { hasText: text }).first();
  if (await toast.waitFor({ state: 'visible', timeout: 5000 }).then(() => true, () => false)) {
    if (shotPath) await page.screenshot({ path: shotPath });
    await toast.locator('.monaco-button', { hasText: button }).first().click();
    return;
  }
  await runFromPalette(page, 'Notifications: Show Notifications');
  const item = page.locator('.notifications-center .notification-list-item', { hasText: text }).first();
  await item.waitFor({ state: 'visible', timeout: 10000 });
  if (shotPath) await page.screenshot({ path: shotPath });
  await item.locator('.monaco-button', { hasText: button }).first().click();
  await hideNotifications(page);
}

/** Closes the notification center when it is open (it would cover the bottom of the editor area). */
async function hideNotifications(page) {
  if (await page.locator('.notifications-center.visible').isVisible()) await page.locator('.notifications-center .codicon-notifications-hide, .notifications-center .codicon-chevron-down').first().click();
}

/**
 * A settings.json as it is now. VS Code rewrites the file in place, so a read can catch it half
 * written: a parse error is retried until it parses (or 10 s pass).
 */
async function readSettingsFile(file) {
  const deadline = Date.now() + 10000;
  for (;;) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function patternsIn(file) {
  return ((await readSettingsFile(file))['agentBash.patterns'] ?? []).map((r) => `${r.approval} ${r.match}`);
}

const WORKSPACE_PATTERNS = ['allow echo ui-acp-*', 'allow echo ui-hist-*', 'allow echo ui-ten-*', 'deny rm -rf ui-*'];

/** The approval dialog's buttons, sorted (the workbench orders them by platform). */
async function dialogButtons(dialog) {
  return (await dialog.locator('.dialog-buttons .monaco-button').allInnerTexts()).map((b) => b.trim()).sort();
}

/** The Manage Rules page (the newest webview's inner frame). */
function rulesFrame(page) {
  return page.frameLocator('iframe.webview').last().frameLocator('iframe#active-frame');
}

/**
 * The notification with this message: its toast, or (once the toast is gone, or when the workbench
 * shows none) the notification center's row, waited for up to `timeoutMs` (hideNotifications closes it).
 */
async function findNotification(page, text, timeoutMs = 10000) {
  const toast = page.locator('.notification-toast', { hasText: text }).first();
  if (await toast.waitFor({ state: 'visible', timeout: 5000 }).then(() => true, () => false)) return toast;
  await runFromPalette(page, 'Notifications: Show Notifications');
  const item = page.locator('.notifications-center .notification-list-item', { hasText: text }).first();
  await item.waitFor({ state: 'visible', timeout: timeoutMs });
  return item;
}

/** A notification's severity from its icon: `info`, `warning` or `error`. */
async function severityOf(note) {
  const cls = (await note.locator('.notification-list-item-icon').first().getAttribute('class')) ?? '';
  return /codicon-error/.test(cls) ? 'error' : /codicon-warning/.test(cls) ? 'warning' : /codicon-info/.test(cls) ? 'info' : cls;
}

/** A notification's buttons' labels, sorted. */
async function notificationButtons(note) {
  return (await note.locator('.monaco-button').allInnerTexts()).map((b) => b.trim()).filter(Boolean).sort();
}

/** The OS sandbox support on this machine, as the extension probes it (compiled by compile-tests). */
function sandboxSupport() {
  const require = createRequire(import.meta.url);
  return require('../../out/src/exec/sandbox/sandboxProbe.js').probeSandbox();
}

/** The default themes' ids (the `workbench.colorTheme` values) and the labels the theme picker shows. */
const THEME_LABELS = {
  'Light 2026': 'Light 2026',
  'Dark 2026': 'Dark 2026',
  'Dark+': 'Dark+',
  'Dark Modern': 'Dark Modern',
  'Light+': 'Light+',
  'Light Modern': 'Light Modern',
  'Default High Contrast': 'Dark High Contrast',
  'Default High Contrast Light': 'Light High Contrast',
};

/**
 * Sets `workbench.colorTheme` as a person does: Preferences: Color Theme, then the theme's row (the
 * workbench writes the user setting). An edit of settings.json from outside is not picked up here.
 */
async function pickColorTheme(page, themeId) {
  const label = THEME_LABELS[themeId];
  if (!label) throw new Error(`no label known for the theme ${themeId}`);
  await runFromPalette(page, 'Preferences: Color Theme');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(label);
  const row = page.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[+]/g, '\\+')}$`) }) }).first();
  await row.waitFor({ state: 'visible', timeout: 10000 });
  await row.click();
  await input.waitFor({ state: 'hidden', timeout: 10000 });
}

/** The theme a webview page was last given (VS Code marks the page's body with it). */
function webviewTheme(view) {
  return view.locator('body').evaluate((b) => b.getAttribute('data-vscode-theme-id') ?? b.getAttribute('data-vscode-theme-name') ?? '');
}

/**
 * The WCAG contrast ratio of an element's text against what is behind it, from the computed styles
 * inside its page: the background is the first ancestors' colours composited over the editor
 * background (the webview shows the editor background behind a transparent page).
 */
async function textContrast(locator) {
  const { color, layers, base } = await locator.evaluate((el) => {
    // This runs in the webview's page (its globals are not this module's).
    const doc = el.ownerDocument;
    const getComputedStyle = (node) => doc.defaultView.getComputedStyle(node);
    // Any CSS colour as the browser's rgb()/rgba() string.
    const probe = doc.createElement('span');
    doc.body.append(probe);
    const rgb = (css) => {
      probe.style.color = '';
      probe.style.color = css;
      return getComputedStyle(probe).color;
    };
    const layers = [];
    for (let n = el; n; n = n.parentElement) {
      const bg = getComputedStyle(n).backgroundColor;
      if (bg && bg !== 'transparent' && !/^rgba\(.*,\s*0\)$/.test(bg)) layers.push(bg);
    }
    const base = rgb(getComputedStyle(doc.documentElement).getPropertyValue('--vscode-editor-background').trim());
    const color = getComputedStyle(el).color;
    probe.remove();
    return { color, layers, base };
  });
  const parse = (css) => {
    const m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(css);
    if (!m) throw new Error(`not an rgb colour: ${css}`);
    return { r: +m[1], g: +m[2], b: +m[3], a: m[4] === undefined ? 1 : +m[4] };
  };
  const over = (top, below) => ({
    r: top.r * top.a + below.r * (1 - top.a),
    g: top.g * top.a + below.g * (1 - top.a),
    b: top.b * top.a + below.b * (1 - top.a),
    a: 1,
  });
  // Outermost first: each layer painted over what is behind it.
  let bg = parse(base);
  for (const layer of layers.reverse()) bg = over(parse(layer), bg);
  const fg = over(parse(color), bg);
  const lum = (c) => {
    const ch = (v) => {
      const s = v / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b);
  };
  const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  const hex = (c) => `#${[c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
  return { ratio: (hi + 0.05) / (lo + 0.05), fg: hex(fg), bg: hex(bg) };
}

export const uiTests = [
  {
    name: 'Run Agent Bash from the palette, Allow once in the real dialog, the command runs',
    async run({ page, workspace, shotsDir }) {
      await runFromPalette(page, 'Agent Bash: Run Agent Bash');
      await typeIntoInputBox(page, 'echo palette-ok > ui-allowed.txt');
      await answerDialog(page, 'Command: echo palette-ok > ui-allowed.txt', 'Allow once', path.join(shotsDir, 'approval-dialog.png'));
      const marker = path.join(workspace, 'ui-allowed.txt');
      // The redirect creates the file before echo writes to it: wait for the text.
      await waitFor(() => existsSync(marker) && readFileSync(marker, 'utf8') === 'palette-ok\n', 20000, 'palette-ok in ui-allowed.txt');
      await announced(page, 'Agent Bash: “echo palette-ok > ui-allowed.txt”: Finished (exit 0)');
      await new Promise((r) => setTimeout(r, 1000));
      await page.screenshot({ path: path.join(shotsDir, 'run-agent-bash.png') });
    },
  },
  {
    name: 'Run Agent Bash from the palette, Deny in the real dialog, the command does not run',
    async run({ page, workspace, shotsDir }) {
      await runFromPalette(page, 'Agent Bash: Run Agent Bash');
      await typeIntoInputBox(page, 'touch ui-denied.txt');
      await answerDialog(page, 'Command: touch ui-denied.txt', 'Deny', path.join(shotsDir, 'deny-dialog.png'));
      await announced(page, 'Agent Bash: You denied “touch ui-denied.txt”.');
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(existsSync(path.join(workspace, 'ui-denied.txt')), false, 'the denied command ran');
    },
  },
  {
    name: 'Connect ACP Agent from the palette: a prompt in the panel runs the agent command as a terminal card',
    async run({ page, shotsDir }) {
      const view = await connectAgent(page, 'ui-test-agent');
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
    name: 'ACP panel (issue 34): follows new output unless scrolled up; the agent-facing _meta retry stays out of sight',
    async run({ page, shotsDir }) {
      await runFromPalette(page, 'View: Close All Editors');
      await hideNotifications(page);
      const view = await connectAgent(page, 'ui-test-agent');
      const prompt = view.locator('#prompt');
      await prompt.waitFor({ state: 'visible', timeout: 20000 });
      const send = async (script) => {
        await waitFor(async () => !(await prompt.isDisabled()), 20000, 'the prompt box to be free');
        await prompt.fill(JSON.stringify(script));
        await view.locator('#send').click();
      };
      const body = view.locator('body');
      // Wholly visible: below the sticky status line's top and above the fixed composer.
      const inView = (loc) => loc.evaluate((e) => {
        const r = e.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= e.ownerDocument.getElementById('composer').getBoundingClientRect().top;
      });
      const card = (i) => view.locator('.terminal-card.exited', { hasText: `echo ui-acp-follow-${i}` }).first();
      for (let i = 1; i <= 8; i++) {
        await send({ scenario: 'run', command: `echo ui-acp-follow-${i}`, toolCallId: `tc-follow-${i}` });
        await card(i).waitFor({ state: 'attached', timeout: 20000 });
      }
      await waitFor(async () => !(await prompt.isDisabled()), 20000, 'the last turn to end');
      assert.ok(await body.evaluate((b) => b.scrollHeight > b.ownerDocument.defaultView.innerHeight), 'the transcript is taller than the panel');
      await waitFor(() => inView(card(8)), 5000, 'the newest card in view');
      // A card whose output grows line by line after it was drawn: the panel keeps its end in view.
      await send({ scenario: 'run', command: '/bin/bash', args: ['-c', 'for i in $(seq 1 14); do echo ui-acp-grow-$i; sleep 0.1; done'], toolCallId: 'tc-grow' });
      const ask = view.locator('.question').first();
      await ask.waitFor({ state: 'visible', timeout: 20000 });
      await ask.locator('button', { hasText: 'Allow once' }).first().click();
      const grown = view.locator('.terminal-card.exited', { hasText: 'ui-acp-grow-14' }).first();
      await grown.waitFor({ state: 'attached', timeout: 20000 });
      await waitFor(async () => !(await prompt.isDisabled()), 20000, 'the growing turn to end');
      await waitFor(() => inView(grown), 5000, 'the grown card wholly in view');
      await page.screenshot({ path: path.join(shotsDir, 'acp-panel-follows.png') });
      // Scrolled up to read: a new reply does not pull the panel down.
      await body.evaluate((b) => b.ownerDocument.defaultView.scrollTo(0, 0));
      await send({ scenario: 'run', command: 'echo ui-acp-follow-9', toolCallId: 'tc-follow-9' });
      await card(9).waitFor({ state: 'attached', timeout: 20000 });
      await waitFor(async () => !(await prompt.isDisabled()), 20000, 'that turn to end');
      assert.equal(await body.evaluate((b) => b.ownerDocument.defaultView.scrollY), 0, 'the panel moved while the person read above');
      assert.equal(await inView(card(9)), false);
      // Back at the bottom, it follows again.
      await body.evaluate((b) => b.ownerDocument.defaultView.scrollTo(0, b.scrollHeight));
      await send({ scenario: 'run', command: 'echo ui-acp-follow-10', toolCallId: 'tc-follow-10' });
      await card(10).waitFor({ state: 'attached', timeout: 20000 });
      await waitFor(() => inView(card(10)), 5000, 'the newest card in view again');
      const support = sandboxSupport();
      if (!support.sandbox) return undefined;
      // A write the sandbox refuses: the person reads what was refused, not the agent's _meta retry recipe.
      const outside = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-ui-acp-meta-'));
      try {
        await send({ scenario: 'run', command: '/bin/bash', args: ['-c', `echo x > ${outside}/ui-acp-meta`], toolCallId: 'tc-meta' });
        const question = view.locator('.question').first();
        await question.waitFor({ state: 'visible', timeout: 20000 });
        await question.locator('button', { hasText: 'Allow once' }).first().click();
        const item = view.locator('.item.tool', { has: view.locator('.terminal-card.exited') }).last();
        await view.locator('.item.tool .tool-text', { hasText: 'The OS sandbox refused writing' }).first().waitFor({ state: 'attached', timeout: 20000 });
        const got = await view.locator('.item.tool .tool-text', { hasText: 'The OS sandbox refused writing' }).first().evaluate((e) => e.textContent ?? '');
        assert.ok(!got.includes('_meta') && !got.includes('create the terminal again'), got);
        await item.locator('summary').first().click();
        await page.screenshot({ path: path.join(shotsDir, 'acp-panel-no-meta.png') });
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
      return undefined;
    },
  },
  {
    name: 'Walkthrough (issue 34): Get started with Agent Bash lists its five steps, and its first button opens the Run box',
    async run({ page, shotsDir }) {
      await runFromPalette(page, 'View: Close All Editors');
      await hideNotifications(page);
      await runFromPalette(page, 'Welcome: Open Walkthrough...');
      const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with Agent Bash' }).first();
      await pick.waitFor({ state: 'visible', timeout: 20000 });
      await pick.click();
      const steps = page.locator('.getting-started-step .step-title');
      await waitFor(async () => (await steps.count()) === 5, 20000, 'the five steps');
      assert.deepEqual(
        (await steps.allInnerTexts()).map((t) => t.trim()),
        ['Run a command', 'See an approval', 'Open History', 'Connect the demo agent', 'Turn on MCP'],
      );
      await page.screenshot({ path: path.join(shotsDir, 'walkthrough.png') });
      // The first step is open; its button runs Run Agent Bash, whose box mentions the timeout prefix.
      await page.locator('.getting-started-step.expanded .button-link, .getting-started-step.expanded a', { hasText: 'Run Agent Bash' }).first().click();
      await page.locator('.quick-input-widget', { hasText: 'Start with --timeout 30' }).waitFor({ state: 'visible', timeout: 20000 });
      await page.screenshot({ path: path.join(shotsDir, 'walkthrough-run-box.png') });
      await page.keyboard.press('Escape');
      await runFromPalette(page, 'View: Close All Editors');
    },
  },
  {
    name: 'Big output (issue 34): the document opens on what the agent saw, with the cut marked and no large-file banner; Show Full Output has all of it',
    async run({ page, shotsDir }) {
      await runFromPalette(page, 'View: Close All Editors');
      await hideNotifications(page);
      const command = 'seq 1 300000';
      await runAgentBash(page, command, 'Allow once');
      const toast = await findNotification(page, `Agent Bash: “${command}”: Finished (exit 0)`, 60000);
      const said = (await toast.locator('.notification-list-item-message').innerText()).trim();
      assert.match(said, /Output cut: the agent saw \d+ KB of 1\.9 MB\./, said);
      const clicked = Date.now();
      await toast.locator('.monaco-button', { hasText: 'Show Output' }).first().click();
      const lines = page.locator('.view-lines', { hasText: `$ ${command}` }).first();
      await lines.waitFor({ state: 'visible', timeout: 15000 });
      const openMs = Date.now() - clicked;
      console.log(`    big output: the agent's window opened ${openMs} ms after the click`);
      assert.ok(openMs < 3000, `${openMs} ms`);
      await hideNotifications(page);
      const doc = (await lines.innerText()).replace(/\u00a0/g, ' ');
      assert.match(doc, /\nOutput cut: the agent saw \d+ KB of 1\.9 MB\.\n/, doc);
      assert.ok(doc.includes('Below is what the agent saw: the start and the end of the output, with where it was cut marked.'), doc);
      assert.ok(!doc.includes('Below is all of it.'), doc);
      assert.equal(await page.locator('.notification-toast', { hasText: 'large file' }).count(), 0, 'the large-file banner');
      await page.screenshot({ path: path.join(shotsDir, 'big-output-agent-window.png') });
      // The whole output on demand, from the palette (also the editor's title bar).
      await runFromPalette(page, 'Agent Bash: Show Full Output');
      await page.locator('.tabs-container .tab.active', { hasText: '(full)' }).first().waitFor({ state: 'visible', timeout: 20000 });
      const full = page.locator('.view-lines', { hasText: 'Below is all of it.' }).first();
      await full.waitFor({ state: 'visible', timeout: 20000 });
      await page.screenshot({ path: path.join(shotsDir, 'big-output-full.png') });
      await runFromPalette(page, 'View: Close All Editors');
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
  {
    name: 'Allow for this session: the same command runs again without a dialog',
    async run({ page, workspace }) {
      const marker = path.join(workspace, 'ui-session.txt');
      await runAgentBash(page, 'touch ui-session.txt', 'Allow for this session');
      await waitFor(() => existsSync(marker), 20000, 'ui-session.txt');
      rmSync(marker);
      await runAgentBash(page, 'touch ui-session.txt');
      await waitFor(() => existsSync(marker), 20000, 'ui-session.txt again, without a dialog');
      assert.equal(await page.locator('.monaco-dialog-box').isVisible(), false, 'a dialog asked again');
    },
  },
  {
    name: 'Always allow… saves the rule, the notification names it and where, Undo removes it',
    async run({ page, workspace, shotsDir }) {
      await runFromPalette(page, 'Agent Bash: Run Agent Bash');
      // Not `printf`: the built-in read-only list allows that without asking.
      await typeIntoInputBox(page, 'expr ui-always');
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ state: 'visible', timeout: 20000 });
      await dialog.locator('.dialog-buttons .monaco-button', { hasText: 'Always allow…' }).first().click();
      // The second question replaces the first in the same dialog box.
      await page.locator('.monaco-dialog-box', { hasText: 'always allow commands matching these rules?' }).waitFor({ state: 'visible', timeout: 10000 });
      assert.match(await dialog.innerText(), /allow: expr \*/);
      await page.screenshot({ path: path.join(shotsDir, 'always-allow-where.png') });
      await dialog.locator('.dialog-buttons .monaco-button', { hasText: 'Save to Workspace Settings' }).first().click();
      const saved = 'Agent Bash: saved an allow rule to workspace settings (.vscode/settings.json): “expr *”.';
      // The notice is checked where it stays (toast, else the notification center): the aria alert
      // region keeps only the latest announcements, and the command's own result toast follows at once.
      const wsFile = path.join(workspace, '.vscode', 'settings.json');
      await waitFor(async () => (await patternsIn(wsFile)).includes('allow expr *'), 10000, 'expr * in settings.json');
      await clickToastButton(page, saved, 'Undo', path.join(shotsDir, 'always-allow-saved.png'));
      await waitFor(async () => !(await patternsIn(wsFile)).includes('allow expr *'), 10000, 'expr * removed');
      assert.deepEqual(await patternsIn(wsFile), WORKSPACE_PATTERNS);
    },
  },
  {
    name: 'Show Output opens a read-only document with the command and exit status, not an Untitled one',
    async run({ page, shotsDir }) {
      await runAgentBash(page, 'echo ui-hist-output');
      await clickToastButton(page, 'Agent Bash: “echo ui-hist-output”: Finished (exit 0)', 'Show Output', path.join(shotsDir, 'result-toast.png'));
      const editor = page.locator('.editor-instance .view-lines').first();
      await page.locator('.view-lines', { hasText: '$ echo ui-hist-output' }).first().waitFor({ state: 'visible', timeout: 15000 });
      const tab = await page.locator('.tabs-container .tab.active').first().innerText();
      assert.ok(!/Untitled/.test(tab), `the output opened as ${tab}`);
      assert.match(tab, /\.log/);
      // Monaco renders spaces as no-break spaces.
      assert.match((await editor.innerText()).replace(/\u00a0/g, ' '), /Result: Finished \(exit 0\)/);
      await page.screenshot({ path: path.join(shotsDir, 'show-output.png') });
      await runFromPalette(page, 'View: Close All Editors');
      assert.equal(await page.locator('.monaco-dialog-box').isVisible(), false, 'closing asked to save');
    },
  },
  {
    name: 'A bang cd shows the agent directory on the status bar; clicking it resets',
    async run({ page, shotsDir }) {
      await runFromPalette(page, 'Agent Bash: Run Bang Command');
      await typeIntoInputBox(page, 'cd /tmp');
      const item = page.locator('.statusbar-item', { hasText: 'Agent Bash: /tmp' }).first();
      await item.waitFor({ state: 'visible', timeout: 15000 });
      await page.screenshot({ path: path.join(shotsDir, 'bang-cd-status.png') });
      await item.click();
      await item.waitFor({ state: 'hidden', timeout: 10000 });
      await announced(page, 'Agent Bash: agent commands run in the workspace folder again');
    },
  },
  {
    name: 'Ten commands from the palette appear in the history view with the right decisions',
    async run({ page, shotsDir }) {
      const runs = [
        ['echo ui-hist-1'], ['echo ui-hist-2'], ['rm -rf ui-nothing-1'], ['echo ui-hist-3'], ['echo ui-hist-4'],
        ['touch ui-hist-once.txt', 'Allow once'], ['echo ui-hist-5'], ['rm -rf ui-nothing-2'], ['touch ui-hist-denied.txt', 'Deny'], ['echo ui-hist-6'],
      ];
      for (const [command, answer] of runs) {
        await runAgentBash(page, command, answer);
        await page.locator('.monaco-alert', { hasText: `“${command}”` }).first().waitFor({ state: 'attached', timeout: 20000 });
      }
      await runFromPalette(page, 'Agent Bash: Focus on History View');
      await runFromPalette(page, 'View: Toggle Maximized Panel');
      const rows = page.locator('.monaco-list-row', { hasText: 'You (Run Agent Bash)' });
      const expect = {
        'echo ui-hist-1': 'allowed by rule `echo ui-hist-*`',
        'rm -rf ui-nothing-1': 'denied by rule `rm -rf ui-*`',
        'touch ui-hist-once.txt': 'allowed by you, once',
        'touch ui-hist-denied.txt': 'denied by you',
        'echo ui-hist-6': 'allowed by rule `echo ui-hist-*`',
      };
      for (const [command, decision] of Object.entries(expect)) {
        const row = page.locator('.monaco-list-row', { hasText: command }).first();
        await row.waitFor({ state: 'visible', timeout: 15000 });
        const text = await row.innerText();
        assert.ok(text.includes(decision), `${command}: ${text}`);
      }
      assert.ok((await rows.count()) >= 10, `only ${await rows.count()} history rows`);
      await page.screenshot({ path: path.join(shotsDir, 'history-view.png') });
      await runFromPalette(page, 'View: Toggle Maximized Panel');
    },
  },
  {
    name: 'History (issue 34): a row from the start, running with its time, updated in place; Ctrl+C reads stopped by you',
    async run({ page, shotsDir }) {
      await runFromPalette(page, 'View: Close All Editors');
      await hideNotifications(page);
      // The History view, shown again if the command's terminal took the panel as it started.
      const rowText = async (command) => {
        const row = page.locator('.monaco-list-row', { hasText: command }).first();
        if (!(await row.isVisible())) await runFromPalette(page, 'Agent Bash: Focus on History View');
        return (await row.isVisible()) ? row.innerText() : '';
      };
      const slow = 'sleep 4 && echo ui-run-slow';
      await runAgentBash(page, slow, 'Allow once');
      let running = '';
      await waitFor(async () => /Running for \d/.test((running = await rowText(slow))), 15000, `a running row for ${slow}`);
      assert.ok(running.includes('allowed by you, once'), running);
      await page.screenshot({ path: path.join(shotsDir, 'history-running.png') });
      // Its time moves while it runs, in the same row.
      await waitFor(async () => { const t = await rowText(slow); return /Running for \d/.test(t) && t !== running; }, 5000, 'the running time to move');
      await waitFor(async () => (await rowText(slow)).includes('Finished (exit 0)'), 20000, `${slow} finished in its row`);
      assert.equal(await page.locator('.monaco-list-row', { hasText: slow }).count(), 1, 'the row was updated in place, not added again');
      await page.screenshot({ path: path.join(shotsDir, 'history-finished-in-place.png') });
      // Ctrl+C in the command's terminal: the row says the person stopped it, without signal numbers.
      const stopped = 'sleep 30 && echo ui-run-stopped';
      await runAgentBash(page, stopped, 'Allow once');
      await waitFor(async () => /Running for \d/.test(await rowText(stopped)), 15000, `a running row for ${stopped}`);
      const tabs = page.locator('.terminal-tabs-entry', { hasText: 'Agent Bash' });
      await runFromPalette(page, 'Terminal: Focus Terminal');
      if (await tabs.first().isVisible()) await tabs.first().click();
      await page.locator('.terminal-wrapper.active .xterm, .terminal .xterm').first().click();
      await page.keyboard.press('Control+C');
      let end = '';
      await waitFor(async () => (end = await rowText(stopped)).includes('Stopped by you (Ctrl+C)'), 20000, `${stopped} stopped by you`);
      assert.ok(!/SIGTERM|137|143/.test(end), end);
      await page.screenshot({ path: path.join(shotsDir, 'history-ctrl-c.png') });
    },
  },
  {
    name: 'Wording (issue 34): --timeout in the Run box; each ending said once, no "Command aborted" in the output; no backticks; your Deny and a non-zero exit are not errors',
    async run({ page, shotsDir }) {
      await runFromPalette(page, 'View: Close All Editors');
      await hideNotifications(page);
      // The box says how to give a timeout.
      await runFromPalette(page, 'Agent Bash: Run Agent Bash');
      await page.locator('.quick-input-widget', { hasText: 'Start with --timeout 30 to stop it after 30 s.' }).waitFor({ state: 'visible', timeout: 10000 });
      await page.screenshot({ path: path.join(shotsDir, 'run-box-timeout-hint.png') });
      await typeIntoInputBox(page, '--timeout 1 sleep 5');
      await answerDialog(page, 'Command: sleep 5', 'Allow once');
      const timedOut = await findNotification(page, 'Agent Bash: “sleep 5”: Stopped after ', 20000);
      const said = (await timedOut.locator('.notification-list-item-message').innerText()).trim();
      assert.match(said, /^Agent Bash: “sleep 5”: Stopped after 1(\.\d)? s: it ran out of time\.$/);
      assert.equal(await severityOf(timedOut), 'warning');
      await page.screenshot({ path: path.join(shotsDir, 'words-timeout-notification.png') });
      await timedOut.locator('.monaco-button', { hasText: 'Show Output' }).first().click();
      await hideNotifications(page);
      const lines = page.locator('.view-lines', { hasText: '$ sleep 5' }).first();
      await lines.waitFor({ state: 'visible', timeout: 15000 });
      const doc = (await lines.innerText()).replace(/\u00a0/g, ' ');
      assert.match(doc, /\nResult: Stopped after 1(\.\d)? s: it ran out of time\n/, doc);
      assert.ok(!/Command (aborted|cancelled|timed out)|Wall time|SIGTERM/.test(doc), doc);
      assert.equal((doc.match(/ after \d/g) ?? []).length, 1, doc);
      await page.screenshot({ path: path.join(shotsDir, 'words-timeout-output.png') });
      await runFromPalette(page, 'View: Close All Editors');
      // The terminal says it in its status line only: no "Command cancelled" drawn as if sleep printed it.
      const origin = new URL(page.url()).origin;
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      await page.evaluate(() => navigator.clipboard.writeText(''));
      const tabs = page.locator('.terminal-tabs-entry', { hasText: 'Agent Bash' });
      await runFromPalette(page, 'Terminal: Focus Terminal');
      if (await tabs.first().isVisible()) await tabs.first().click();
      await runFromPalette(page, 'Terminal: Select All');
      await runFromPalette(page, 'Terminal: Copy Selection');
      let screen = '';
      await waitFor(async () => (screen = await page.evaluate(() => navigator.clipboard.readText())).includes('$ sleep 5'), 10000, 'the terminal text on the clipboard');
      const region = screen.slice(screen.lastIndexOf('$ sleep 5'));
      assert.match(region, /timed out after 1 s/, region);
      assert.ok(!region.includes('Command cancelled'), region);
      // Your own Deny is information, as is a grep that found nothing (exit 1).
      await runAgentBash(page, 'touch ui-words-denied.txt', 'Deny');
      const denied = await findNotification(page, 'Agent Bash: You denied “touch ui-words-denied.txt”.', 20000);
      assert.equal(await severityOf(denied), 'info');
      await hideNotifications(page);
      await runAgentBash(page, 'grep ui-words-not-there README.txt');
      const grep = await findNotification(page, 'Agent Bash: “grep ui-words-not-there README.txt”: Failed with exit 1 in ', 20000);
      assert.ok(!(await grep.innerText()).includes('`'), await grep.innerText());
      assert.equal(await severityOf(grep), 'info');
      await page.screenshot({ path: path.join(shotsDir, 'words-grep-not-error.png') });
      await hideNotifications(page);
    },
  },
  {
    name: 'The demo agent runs a typed command through its panel after an inline approval',
    async run({ page, workspace, shotsDir }) {
      await runFromPalette(page, 'View: Close All Editors');
      await hideNotifications(page);
      const view = await connectAgent(page, 'Demo agent');
      const prompt = view.locator('#prompt');
      await prompt.waitFor({ state: 'visible', timeout: 20000 });
      await prompt.fill('touch ui-demo.txt');
      await view.locator('#send').click();
      const card = view.locator('.question', { hasText: 'Demo agent wants to run a command' }).first();
      await card.waitFor({ state: 'visible', timeout: 20000 });
      assert.match(await card.innerText(), /No rule matches `touch ui-demo\.txt`, so Agent Bash asks\./);
      assert.equal(await page.locator('.monaco-dialog-box').isVisible(), false, 'a modal was shown too');
      await page.screenshot({ path: path.join(shotsDir, 'demo-agent-inline-approval.png') });
      await card.locator('button', { hasText: 'Allow once' }).click();
      await waitFor(() => existsSync(path.join(workspace, 'ui-demo.txt')), 20000, 'ui-demo.txt');
      await view.locator('.terminal-card.exited', { hasText: 'touch ui-demo.txt' }).first().waitFor({ timeout: 15000 });
      await view.locator('.item.agent strong', { hasText: 'Done' }).first().waitFor({ timeout: 15000 });
      await page.screenshot({ path: path.join(shotsDir, 'demo-agent-done.png') });
    },
  },
  {
    name: 'Always allow… second step: Back and Escape return to the first step; Allow once instead runs once and saves nothing',
    async run({ page, workspace, shotsDir, userSettings }) {
      const command = 'touch ui-once-instead.txt';
      const marker = path.join(workspace, 'ui-once-instead.txt');
      const wsFile = path.join(workspace, '.vscode', 'settings.json');
      const userBefore = await patternsIn(userSettings);
      const wsBefore = await patternsIn(wsFile);
      await runAgentBash(page, command);
      const dialog = page.locator('.monaco-dialog-box');
      const first = page.locator('.monaco-dialog-box', { hasText: `Command: ${command}` });
      const second = page.locator('.monaco-dialog-box', { hasText: 'always allow commands matching these rules?' });
      const toSecond = async () => {
        await first.waitFor({ state: 'visible', timeout: 20000 });
        await dialog.locator('.dialog-buttons .monaco-button', { hasText: 'Always allow…' }).first().click();
        await second.waitFor({ state: 'visible', timeout: 10000 });
      };
      await toSecond();
      assert.deepEqual(await dialogButtons(dialog), ['Allow This Exact Command', 'Allow once instead', 'Back', 'Edit Patterns…', 'Save to User Settings', 'Save to Workspace Settings']);
      assert.match(await dialog.innerText(), /allow: touch \*/);
      await page.screenshot({ path: path.join(shotsDir, 'always-allow-second-step.png') });
      // Back: the first question again, with its own buttons.
      await dialog.locator('.dialog-buttons .monaco-button', { hasText: 'Back' }).first().click();
      await first.waitFor({ state: 'visible', timeout: 10000 });
      assert.deepEqual(await dialogButtons(dialog), ['Allow for this session', 'Allow once', 'Always allow…', 'Deny']);
      // Escape on the second step goes back too; it does not deny.
      await toSecond();
      await page.keyboard.press('Escape');
      await first.waitFor({ state: 'visible', timeout: 10000 });
      assert.equal(existsSync(marker), false, 'the command ran before anyone allowed it');
      // Allow once instead: it runs, and nothing is saved anywhere.
      await toSecond();
      await dialog.locator('.dialog-buttons .monaco-button', { hasText: 'Allow once instead' }).first().click();
      await waitFor(() => existsSync(marker), 20000, 'ui-once-instead.txt');
      await announced(page, `Agent Bash: “${command}”: Finished (exit 0)`);
      assert.deepEqual(await patternsIn(wsFile), wsBefore);
      assert.deepEqual(await patternsIn(userSettings), userBefore);
      // Not remembered either: the same command asks again (Deny now; it does not run).
      rmSync(marker);
      await runAgentBash(page, command, 'Deny');
      await announced(page, `Agent Bash: You denied “${command}”.`);
      assert.equal(existsSync(marker), false, 'the denied command ran');
    },
  },
  {
    name: 'Run Agent Bash runs exactly the typed text: 20 fills each followed at once by Enter',
    async run({ page, workspace }) {
      // Two families that take turns, each command a prefix of its family's previous one: what is
      // typed matches a recent entry that is not the newest (the list highlights it, and a quick pick
      // whose items were replaced under it took the neighbour of the same index: the other family).
      // A box that ran anything but the typed text writes a marker that no longer exists.
      const markerOf = (i) => `ui-fast-${i % 2 ? 'a' : 'b'}${'x'.repeat(11 - Math.ceil(i / 2))}`;
      const commandOf = (i) => `echo ui-ten-fast > ${markerOf(i)}`;
      const input = page.locator('.quick-input-widget input');
      for (let i = 1; i <= 20; i++) {
        // A box the workbench closed before anything was typed in it (nothing ran) is opened again.
        for (let attempt = 1; ; attempt++) {
          await runFromPalette(page, 'Agent Bash: Run Agent Bash');
          try {
            await page.locator('.quick-input-widget', { hasText: 'Enter runs exactly this text' }).waitFor({ state: 'visible', timeout: 10000 });
            // No pause between the fill and Enter.
            await input.fill(commandOf(i), { timeout: 5000 });
            break;
          } catch (err) {
            if (attempt === 3) throw err;
            await page.keyboard.press('Escape');
          }
        }
        await input.press('Enter');
        const marker = path.join(workspace, markerOf(i));
        await waitFor(() => existsSync(marker) && readFileSync(marker, 'utf8') === 'ui-ten-fast\n', 20000, `${markerOf(i)} (run ${i})`);
        // Nothing else ran: every earlier marker was removed and none came back.
        for (let j = 1; j <= 20; j++) {
          if (j !== i) assert.equal(existsSync(path.join(workspace, markerOf(j))), false, `after run ${i}: ${markerOf(j)} exists`);
        }
        rmSync(marker);
      }
      // A recent command runs only when picked: the history button lists them; the pick goes into the box.
      await runFromPalette(page, 'Agent Bash: Run Agent Bash');
      await input.waitFor({ state: 'visible', timeout: 10000 });
      await page.locator('.quick-input-widget .action-label[aria-label="Recent commands"], .quick-input-widget .action-label[title="Recent commands"]').first().click();
      const firstRow = page.locator('.quick-input-list .monaco-list-row').first();
      await firstRow.waitFor({ state: 'visible', timeout: 10000 });
      assert.ok((await firstRow.innerText()).includes(commandOf(20)), 'the newest first');
      // The list shows about fifteen rows: typing filters it down to the one wanted (the longest a).
      await input.fill(markerOf(1));
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: commandOf(1) }).first();
      await row.waitFor({ state: 'visible', timeout: 10000 });
      await row.click();
      await waitFor(async () => (await input.inputValue()) === commandOf(1), 10000, 'the picked command in the box');
      assert.equal(existsSync(path.join(workspace, markerOf(1))), false, 'picking ran it before Enter');
      await page.keyboard.press('Enter');
      await waitFor(() => existsSync(path.join(workspace, markerOf(1))), 20000, `${markerOf(1)} again`);
    },
  },
  {
    name: 'Manage Rules shows every layer, adds and moves a workspace rule, adds a user rule, tries a command',
    async run({ page, workspace, shotsDir, userSettings }) {
      await runFromPalette(page, 'View: Close All Editors');
      await hideNotifications(page);
      const wsFile = path.join(workspace, '.vscode', 'settings.json');
      const userBefore = await patternsIn(userSettings);
      const wsBefore = await patternsIn(wsFile);
      const wsRows = ((await readSettingsFile(wsFile))['agentBash.patterns'] ?? []).map(
        (r, k) => `${k + 1} ${r.approval} ${r.match}${r.allowRedirects ? ' redirects allowed' : ''} ↑↓✕`,
      );
      await runFromPalette(page, 'Agent Bash: Manage Rules');
      const view = rulesFrame(page);
      const layer = (name) => view.locator(`.layer[data-layer="${name}"]`);
      // Each row as its parts' texts joined by spaces: position, verdict, glob, flags, buttons.
      const rows = (name) => layer(name).locator('.rule').evaluateAll((els) => els.map((e) => [...e.children].map((c) => c.textContent).join(' ')));
      await layer('workspace').locator('.rule').first().waitFor({ state: 'visible', timeout: 20000 });
      // The layers in the policy's order, each naming where its rules come from.
      const order = await view.locator('.layer').evaluateAll((els) => els.map((e) => e.getAttribute('data-layer')));
      assert.deepEqual(order, ['builtin', 'managed', 'user', 'workspace']);
      assert.ok((await rows('builtin')).some((r) => r.includes('allow ls *')), `built-in: ${await rows('builtin')}`);
      assert.deepEqual(await rows('user'), ['1 allow echo ui-user-* ↑↓✕']);
      assert.deepEqual(await rows('workspace'), wsRows);
      assert.ok(wsRows.includes('4 deny rm -rf ui-* ↑↓✕'), `workspace rows: ${wsRows}`);
      assert.match(await layer('workspace').locator('.source').innerText(), /\.vscode\/settings\.json$/);
      // Add a deny rule to the workspace: it goes at the end of that layer, and only there.
      await layer('workspace').locator('.add-match').fill('printf ui-managed *');
      await layer('workspace').locator('.add-approval').selectOption('deny');
      await layer('workspace').locator('form.add button[type="submit"]').click();
      await waitFor(async () => (await patternsIn(wsFile)).at(-1) === 'deny printf ui-managed *', 10000, 'the new rule at the end of settings.json');
      await view.locator('#notice', { hasText: 'Added deny `printf ui-managed *` at the end of workspace settings.' }).waitFor({ timeout: 10000 });
      assert.deepEqual(await patternsIn(userSettings), userBefore, 'the user layer changed');
      // Move it up one: before `rm -rf ui-*`.
      await layer('workspace').locator('.rule', { hasText: 'printf ui-managed *' }).locator('button[title^="Move"][title$="up"]').click();
      const moved = [...wsBefore.slice(0, -1), 'deny printf ui-managed *', ...wsBefore.slice(-1)];
      await waitFor(async () => (await patternsIn(wsFile)).join('|') === moved.join('|'), 10000, 'the moved rule in settings.json');
      await waitFor(async () => (await rows('workspace'))[wsBefore.length - 1] === `${wsBefore.length} deny printf ui-managed * ↑↓✕`, 10000, 'the view to show the move');
      // A user rule goes to the user settings and leaves the workspace's alone.
      await layer('user').locator('.add-match').fill('git status *');
      await layer('user').locator('form.add button[type="submit"]').click();
      await waitFor(async () => (await patternsIn(userSettings)).join('|') === [...userBefore, 'allow git status *'].join('|'), 10000, 'the user rule in the user settings.json');
      assert.equal((await patternsIn(wsFile)).length, wsBefore.length + 1);
      // Try a command: the explain result in plain words (nothing runs).
      await view.locator('#try-input').fill('printf ui-managed now > ui-try.txt');
      await view.locator('#try-form button[type="submit"]').click();
      const result = view.locator('#try-result');
      await result.locator('.headline', { hasText: 'Refused: it does not run.' }).waitFor({ timeout: 10000 });
      assert.match(await result.innerText(), /printf ui-managed \*/);
      assert.equal(existsSync(path.join(workspace, 'ui-try.txt')), false, 'trying ran the command');
      await view.locator('h1').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(shotsDir, 'manage-rules.png') });
      await layer('workspace').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(shotsDir, 'manage-rules-workspace.png') });
      // Remove both again: each file is back to what it was.
      await layer('workspace').locator('.rule', { hasText: 'printf ui-managed *' }).locator('button[title^="Remove"]').click();
      await waitFor(async () => (await patternsIn(wsFile)).join('|') === wsBefore.join('|'), 10000, 'the workspace rules as before');
      await layer('user').locator('.rule', { hasText: 'git status *' }).locator('button[title^="Remove"]').click();
      await waitFor(async () => (await patternsIn(userSettings)).join('|') === userBefore.join('|'), 10000, 'the user rules as before');
      await runFromPalette(page, 'View: Close All Editors');
    },
  },
  {
    name: 'Manage Rules (issue 31): a deny added after an allow refuses in the Try box, a saved exact rule allows only its command, a removal is undone',
    async run({ page, workspace, shotsDir, userSettings }) {
      await runFromPalette(page, 'View: Close All Editors');
      await hideNotifications(page);
      const wsFile = path.join(workspace, '.vscode', 'settings.json');
      const userBefore = await patternsIn(userSettings);
      const wsBefore = await patternsIn(wsFile);
      await runFromPalette(page, 'Agent Bash: Manage Rules');
      const view = rulesFrame(page);
      const layer = (name) => view.locator(`.layer[data-layer="${name}"]`);
      await layer('workspace').locator('.rule').first().waitFor({ state: 'visible', timeout: 20000 });
      // The deny goes at the END of the workspace layer, after `allow echo ui-acp-*`: it still wins.
      await layer('workspace').locator('.add-match').fill('echo ui-acp-secret*');
      await layer('workspace').locator('.add-approval').selectOption('deny');
      await layer('workspace').locator('form.add button[type="submit"]').click();
      await waitFor(async () => (await patternsIn(wsFile)).at(-1) === 'deny echo ui-acp-secret*', 10000, 'the deny at the end of settings.json');
      const result = view.locator('#try-result');
      const tryIt = async (command, headline) => {
        await view.locator('#try-input').fill(command);
        await view.locator('#try-form button[type="submit"]').click();
        await result.locator('.headline', { hasText: headline }).waitFor({ timeout: 10000 });
        await waitFor(async () => (await result.innerText()).includes(command), 10000, `the Try result for ${command}`);
        return result.innerText();
      };
      const refused = await tryIt('echo ui-acp-secret-x', 'Refused: it does not run.');
      assert.match(refused, /deny rule `echo ui-acp-secret\*` from workspace settings decided \(matched `echo ui-acp-secret-x`\)/);
      await page.screenshot({ path: path.join(shotsDir, 'manage-rules-deny-after-allow.png') });
      assert.match(await tryIt('echo ui-acp-other', 'Runs without asking.'), /allow rule `echo ui-acp-\*`/);
      // An exact rule in the user layer: that command runs unasked, with one argument more it asks.
      await layer('user').locator('.add-match').fill('touch ui-exact.txt');
      await layer('user').locator('.add-exact input').check();
      await layer('user').locator('form.add button[type="submit"]').click();
      await waitFor(async () => (await patternsIn(userSettings)).at(-1) === 'allow touch ui-exact.txt', 10000, 'the exact rule in the user settings.json');
      assert.equal((await readSettingsFile(userSettings))['agentBash.patterns'].at(-1).exact, true);
      await layer('user').locator('.rule', { hasText: 'exact command' }).waitFor({ timeout: 10000 });
      await tryIt('touch ui-exact.txt', 'Runs without asking.');
      await tryIt('touch ui-exact.txt ui-more.txt', 'Asks you first.');
      assert.equal(existsSync(path.join(workspace, 'ui-exact.txt')), false, 'trying ran the command');
      await layer('user').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(shotsDir, 'manage-rules-exact.png') });
      // Remove the deny, Undo puts it back where it was, then remove it for good.
      const removeDeny = () => layer('workspace').locator('.rule', { hasText: 'echo ui-acp-secret*' }).locator('button[title^="Remove"]').click();
      await removeDeny();
      await waitFor(async () => (await patternsIn(wsFile)).join('|') === wsBefore.join('|'), 10000, 'the deny removed');
      await view.locator('#notice button', { hasText: 'Undo' }).click();
      await waitFor(async () => (await patternsIn(wsFile)).at(-1) === 'deny echo ui-acp-secret*', 10000, 'the deny back after Undo');
      await removeDeny();
      await waitFor(async () => (await patternsIn(wsFile)).join('|') === wsBefore.join('|'), 10000, 'the workspace rules as before');
      await layer('user').locator('.rule', { hasText: 'touch ui-exact.txt' }).locator('button[title^="Remove"]').click();
      await waitFor(async () => (await patternsIn(userSettings)).join('|') === userBefore.join('|'), 10000, 'the user rules as before');
      await runFromPalette(page, 'View: Close All Editors');
    },
  },
  {
    name: 'Explain Policy Decision opens a Markdown document that says the decision in a sentence, with actions on its notification',
    async run({ page, workspace, shotsDir }) {
      const command = 'echo ui-acp-explain && touch ui-explain.txt';
      await runFromPalette(page, 'Agent Bash: Explain Policy Decision');
      await typeIntoInputBox(page, command);
      // The Markdown preview of the read-only document (the newest webview).
      const view = page.frameLocator('iframe.webview').last().frameLocator('iframe#active-frame');
      const sentence = 'Agent Bash would ask you, because no rule covers touch ui-explain.txt.';
      await view.locator('p', { hasText: sentence }).first().waitFor({ state: 'visible', timeout: 20000 });
      // The first list says each command's decision; the last section lists every check it went through.
      const items = (await view.locator('ol').first().locator(':scope > li').allInnerTexts()).map((t) => t.trim());
      assert.deepEqual(items, [
        'echo ui-acp-explain: runs without asking: the allow rule echo ui-acp-* in workspace settings covers it.',
        'touch ui-explain.txt: asks: no rule covers it.',
      ]);
      await view.locator('h2', { hasText: 'What the sandbox would confine' }).waitFor({ timeout: 5000 });
      await view.locator('h2', { hasText: 'Every check, in the order it ran' }).waitFor({ timeout: 5000 });
      const checks = (await view.locator('ol').last().locator(':scope > li').allInnerTexts()).map((t) => t.trim().split('\n').map((l) => l.trim()));
      assert.deepEqual(checks.map((c) => c[0]), ['echo ui-acp-explain', 'touch ui-explain.txt']);
      assert.equal(checks[0][1], 'rule passed: allow rule echo ui-acp-*');
      assert.equal(checks[1][1], 'rule asks: no rule matched');
      assert.ok(checks[1].includes('program_identity not run: runs only where an allow rule matched'), checks[1].join(' | '));
      assert.ok(!(await view.locator('body').innerText()).includes('segment'), 'the explanation speaks of segments');
      // The same sentence on a notification, with the actions as buttons (the preview runs no command links).
      // A toast, or (once the toast timed out while the preview loaded) the notification center's row.
      const said = 'Agent Bash would ask you, because no rule covers';
      let note = page.locator('.notification-toast', { hasText: said }).first();
      if (!(await note.waitFor({ state: 'visible', timeout: 5000 }).then(() => true, () => false))) {
        await runFromPalette(page, 'Notifications: Show Notifications');
        note = page.locator('.notifications-center .notification-list-item', { hasText: said }).first();
        await note.waitFor({ state: 'visible', timeout: 10000 });
      }
      const buttons = (await note.locator('.monaco-button').allInnerTexts()).map((b) => b.trim()).filter(Boolean);
      assert.deepEqual(buttons.sort(), ['Add Allow Rule…', 'Manage Rules']);
      await page.screenshot({ path: path.join(shotsDir, 'explain-policy.png') });
      await hideNotifications(page);
      assert.equal(existsSync(path.join(workspace, 'ui-explain.txt')), false, 'explaining ran the command');
      await page.keyboard.press('Escape');
      await runFromPalette(page, 'View: Close All Editors');
    },
  },
  {
    name: 'ACP panel badges: Done and Failed are readable in the light, dark and high-contrast themes',
    async run({ page, shotsDir, userSettings }) {
      await runFromPalette(page, 'View: Close All Editors');
      await hideNotifications(page);
      const view = await connectAgent(page, 'ui-test-agent');
      const prompt = view.locator('#prompt');
      await prompt.waitFor({ state: 'visible', timeout: 20000 });
      const badge = (command) => view.locator('.item.tool', { hasText: command }).locator('.tool-status').first();
      const runs = [
        { command: 'echo ui-acp-done', toolCallId: 'tc-done', badge: 'Done', cls: 'status-completed' },
        { command: 'echo ui-acp-failed && false', toolCallId: 'tc-failed', badge: 'Failed', cls: 'status-failed' },
      ];
      for (const r of runs) {
        // The prompt box is disabled while a turn runs: fill waits for the previous turn to end.
        await prompt.fill(JSON.stringify({ scenario: 'run', command: r.command, toolCallId: r.toolCallId }), { timeout: 20000 });
        await view.locator('#send').click();
        await view.locator(`.item.tool .tool-status.${r.cls}`, { hasText: r.badge }).first().waitFor({ timeout: 20000 });
      }
      await view.locator('#status', { hasText: 'Done' }).waitFor({ timeout: 20000 });
      const themeBefore = await webviewTheme(view);
      // Theme ids as this VS Code names them (Light 2026 is its default).
      const themes = [
        ['Light 2026', 'acp-badges-light.png'],
        ['Dark Modern', 'acp-badges-dark.png'],
        ['Default High Contrast', 'acp-badges-high-contrast.png'],
        ['Default High Contrast Light', 'acp-badges-high-contrast-light.png'],
      ];
      try {
        for (const [theme, shot] of themes) {
          await pickColorTheme(page, theme);
          // The webview has the theme once VS Code has applied it and passed it on to the page.
          await waitFor(async () => (await webviewTheme(view)) === theme, 20000, `the panel in ${theme} (now ${await webviewTheme(view)})`);
          // The pick is the user setting (the theme already shown, VS Code's default here, writes nothing).
          if (theme !== themeBefore) {
            await waitFor(async () => (await readSettingsFile(userSettings))['workbench.colorTheme'] === theme, 10000, `workbench.colorTheme ${theme} in the user settings`);
          }
          const ratios = [];
          for (const r of runs) {
            assert.equal(await badge(r.command).innerText(), r.badge);
            const c = await textContrast(badge(r.command));
            assert.ok(c.ratio >= 4.5, `${theme}: the ${r.badge} badge's contrast is ${c.ratio.toFixed(2)} (${c.fg} on ${c.bg}), below 4.5`);
            ratios.push(`${r.badge} ${c.ratio.toFixed(1)}:1`);
          }
          console.log(`    ${theme}: ${ratios.join(', ')}`);
          await page.screenshot({ path: path.join(shotsDir, shot) });
        }
      } finally {
        if ((await webviewTheme(view)) !== themeBefore) {
          await pickColorTheme(page, themeBefore);
          await waitFor(async () => (await webviewTheme(view)) === themeBefore, 20000, `the theme as before (${themeBefore})`);
        }
        await runFromPalette(page, 'View: Close All Editors');
      }
    },
  },
  {
    name: 'Sandbox refusal: the notification says what the sandbox kept the command from writing; Allow Writing lets the same command write (buttons not cut)',
    async run({ page, workspace, shotsDir }) {
      const support = sandboxSupport();
      if (!support.sandbox) return { skipped: `the OS sandbox cannot run on this machine: ${support.problem}` };
      await page.locator('.statusbar-item', { hasText: 'Sandboxed' }).first().waitFor({ state: 'visible', timeout: 60000 });
      await runFromPalette(page, 'View: Close All Editors');
      await hideNotifications(page);
      const outside = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-ui-outside-'));
      const target = path.join(outside, 'ui-sbx.txt');
      const command = `echo ui-sbx-written > ${target}`;
      const wsFile = path.join(workspace, '.vscode', 'settings.json');
      const setting = 'agentBash.sandbox.filesystem.allowWrite';
      try {
        assert.equal((await readSettingsFile(wsFile))[setting], undefined);
        // The redirect outside the workspace asks; allowed, it runs in the sandbox, which refuses the write.
        await runAgentBash(page, command, 'Allow once');
        const sentence = `The sandbox kept this command from writing ${target}.`;
        const refusal = await findNotification(page, sentence, 20000);
        assert.equal((await refusal.locator('.notification-list-item-message').innerText()).trim(), sentence);
        assert.deepEqual(await notificationButtons(refusal), ['Allow Writing', 'Run Unsandboxed', 'Show Output']);
        // Each label is shown whole: none is cut to "Allow Writing T…" by the notification's width.
        const cut = await refusal.locator('.monaco-button').evaluateAll((buttons) =>
          buttons
            .filter((b) => b.textContent?.trim() && [b, ...b.querySelectorAll('*')].some((e) => e.scrollWidth > e.clientWidth + 1))
            .map((b) => b.textContent?.trim()),
        );
        assert.deepEqual(cut, []);
        assert.equal(existsSync(target), false, 'the sandbox let the write through');
        await page.screenshot({ path: path.join(shotsDir, 'sandbox-refusal.png') });
        await refusal.locator('.monaco-button', { hasText: 'Allow Writing' }).first().click();
        await hideNotifications(page);
        // First the folder, proposed narrowest and editable: accepted as proposed.
        const folderBox = page.locator('.quick-input-widget input');
        await folderBox.waitFor({ state: 'visible', timeout: 10000 });
        await waitFor(async () => (await folderBox.inputValue()) === outside, 10000, `the proposed folder ${outside}`);
        await folderBox.press('Enter');
        // Where to add it: a quick pick of the settings scopes.
        await page.locator('.quick-input-widget', { hasText: `Add ${outside} to ${setting} in…` }).waitFor({ state: 'visible', timeout: 10000 });
        const scopes = (await page.locator('.quick-input-list .monaco-list-row').allInnerTexts()).map((t) => t.trim());
        assert.deepEqual(scopes, ['Workspace Settings', 'User Settings']);
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Workspace Settings' }).first().click();
        await waitFor(async () => JSON.stringify((await readSettingsFile(wsFile))[setting]) === JSON.stringify([outside]), 10000, `${outside} in ${setting}`);
        const added = `Added ${outside} to ${setting} (workspace settings).`;
        const addedNote = await findNotification(page, added);
        assert.equal((await addedNote.locator('.notification-list-item-message').innerText()).trim(), added);
        assert.deepEqual(await notificationButtons(addedNote), ['Undo']);
        await page.screenshot({ path: path.join(shotsDir, 'sandbox-allowed-there.png') });
        await hideNotifications(page);
        // The same command again: the sandbox now lets it write there.
        await runAgentBash(page, command, 'Allow once');
        await waitFor(() => existsSync(target) && readFileSync(target, 'utf8') === 'ui-sbx-written\n', 20000, `ui-sbx-written in ${target}`);
        await announced(page, `Agent Bash: “${command}”: Finished (exit 0)`);
        await page.screenshot({ path: path.join(shotsDir, 'sandbox-after-allow.png') });
        // The History view marks the refused run (and only that one).
        await runFromPalette(page, 'Agent Bash: Focus on History View');
        const rows = page.locator('.monaco-list-row', { hasText: command });
        await waitFor(async () => (await rows.count()) >= 2, 15000, 'both runs in the History view');
        const texts = await rows.allInnerTexts();
        const mark = `sandbox refused writing ${target}`;
        assert.equal(texts.filter((t) => t.includes(mark)).length, 1, `history rows: ${texts.join(' | ')}`);
        // The row is cut off before its mark at this width: the hover says it in full.
        await page.locator('.monaco-list-row', { hasText: mark }).first().hover();
        const hover = page.locator('.monaco-hover, .workbench-hover', { hasText: 'Sandbox: refused writing' }).first();
        await hover.waitFor({ state: 'visible', timeout: 10000 });
        const hoverLines = (await hover.innerText()).split('\n').map((l) => l.trim());
        assert.ok(hoverLines.includes(`Sandbox: refused writing ${target}`), `hover: ${hoverLines.join(' | ')}`);
        await page.screenshot({ path: path.join(shotsDir, 'sandbox-history-mark.png') });
        await page.mouse.move(0, 0);
        // Undo on the notice takes the folder out of the setting again.
        await clickToastButton(page, added, 'Undo');
        await waitFor(async () => (await readSettingsFile(wsFile))[setting] === undefined, 10000, `${setting} removed again`);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
      return undefined;
    },
  },
  {
    // Last: it reloads the window.
    name: 'MCP: after Developer: Reload Window the server listens on the same port and the copied configuration still connects',
    async run({ page, workspace, shotsDir }) {
      const wsFile = path.join(workspace, '.vscode', 'settings.json');
      const before = readFileSync(wsFile, 'utf8');
      const settings = await readSettingsFile(wsFile);
      writeFileSync(wsFile, JSON.stringify({ ...settings, 'agentBash.mcp.enabled': true }, null, 2));
      try {
        const item = page.locator('.statusbar-item', { hasText: /MCP \d+/ }).first();
        await item.waitFor({ state: 'visible', timeout: 30000 });
        const port = Number(/MCP (\d+)/.exec(await item.innerText())?.[1]);
        assert.ok(port > 0, `port ${port}`);
        // What a person gives their client: Copy MCP Configuration (the status bar item), read back from the clipboard.
        const origin = new URL(page.url()).origin;
        await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
        await page.evaluate(() => navigator.clipboard.writeText(''));
        await item.click();
        await announced(page, `Agent Bash MCP configuration (port ${port}, with its token) copied to the clipboard.`);
        let copied = '';
        await waitFor(async () => (copied = await page.evaluate(() => navigator.clipboard.readText())).includes('mcpServers'), 10000, 'the configuration on the clipboard');
        const start = copied.indexOf('{\n  "mcpServers"');
        const json = JSON.parse(copied.slice(start, copied.indexOf('\n}', start) + 2));
        const entry = json.mcpServers['agent-bash'];
        assert.equal(entry.url, `http://127.0.0.1:${port}/mcp`);
        const initialize = () =>
          fetch(entry.url, {
            method: 'POST',
            headers: { ...entry.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ui-reload', version: '1' } } }),
          });
        const first = await initialize();
        assert.equal(first.status, 200);
        await first.text();

        await runFromPalette(page, 'Developer: Reload Window');
        await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
        const again = page.locator('.statusbar-item', { hasText: `MCP ${port}` }).first();
        await again.waitFor({ state: 'visible', timeout: 120000 });
        await page.screenshot({ path: path.join(shotsDir, 'mcp-after-reload.png') });
        // The configuration copied before the reload still works: same URL, same token.
        const after = await initialize();
        assert.equal(after.status, 200, await after.clone().text());
        assert.ok(after.headers.get('mcp-session-id'), 'a session id');
        assert.match(await after.text(), /"serverInfo":\{"name":"agent-bash"/);
      } finally {
        writeFileSync(wsFile, before);
      }
      return undefined;
    },
  },
];
