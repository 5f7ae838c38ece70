// Starts the pinned code-server on 127.0.0.1 in its own process group with fresh dirs, and stops the
// whole group. Shared by the integration runner, the UI tests and `npm start`.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, writeFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_PATH, CODE_SERVER_ENTRY, NODE24_BIN } from './versions.mjs';

export const TEST_SETTINGS = {
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'chat.disableAIFeatures': true,
  'security.workspace.trust.enabled': false,
  'workbench.tips.enabled': false,
};

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitHealthy(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited early with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`code-server did not answer ${url}healthz within ${timeoutMs / 1000} s`);
}

/**
 * @param {{ workspace: string, smokeTestDriver?: boolean, env?: Record<string,string>, extensionsDir?: string,
 *           userSettings?: Record<string, unknown>, runDir?: string, port?: number, keepUserSettings?: boolean }} opts
 */
export async function startCodeServer(opts) {
  const runDir = opts.runDir ?? mkdtempSync(path.join(os.tmpdir(), 'agent-bash-cs-'));
  const userDataDir = path.join(runDir, 'user-data');
  const extensionsDir = opts.extensionsDir ?? path.join(runDir, 'extensions');
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  // `npm start` keeps the person's settings (rules saved while trying it) across starts.
  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  if (!opts.keepUserSettings || !existsSync(settingsFile)) {
    writeFileSync(settingsFile, JSON.stringify({ ...TEST_SETTINGS, ...opts.userSettings }, null, 2));
  }
  const port = opts.port ?? (await freePort());
  const args = [
    CODE_SERVER_ENTRY,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
  ];
  if (opts.smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  args.push(opts.workspace);
  const logFile = path.join(runDir, 'code-server.log');
  const out = openSync(logFile, 'a');
  const child = spawn(NODE24_BIN, args, {
    detached: true,
    stdio: ['ignore', out, out],
    env: {
      ...process.env,
      ...opts.env,
      XDG_CONFIG_HOME: path.join(runDir, 'xdg'),
      EXTENSIONS_GALLERY: '{}',
      PATH: process.env.PATH,
    },
  });
  const url = `http://127.0.0.1:${port}/`;
  const reaper = startReaper(child.pid);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return;
    }
    const exited = new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // group already gone
    }
    reaper.kill();
  };
  try {
    await waitHealthy(url, child, 30000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, port, runDir, userDataDir, extensionsDir, logFile, pid: child.pid, stop, cleanup: () => rmSync(runDir, { recursive: true, force: true }) };
}

/**
 * A tiny watcher that kills the server's process group when this process dies, however it dies
 * (SIGKILL included): it holds the read end of a pipe whose write end only this process has, and
 * acts when that pipe closes. A Ctrl+C'd or killed runner never leaves code-server behind.
 */
function startReaper(pgid) {
  const script = `
    const pgid = Number(process.argv[1]);
    const kill = (sig) => { try { process.kill(-pgid, sig); } catch {} };
    process.stdin.on('data', () => {});
    process.stdin.on('close', () => { kill('SIGTERM'); setTimeout(() => { kill('SIGKILL'); process.exit(0); }, 3000); });
  `;
  const reaper = spawn(process.execPath, ['-e', script, String(pgid)], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  reaper.unref();
  reaper.stdin.unref?.();
  return reaper;
}

export function remoteUri(port, absPath) {
  return `vscode-remote://127.0.0.1:${port}${absPath}`;
}

/**
 * Headless Chromium on the workbench of `server`, with the extension at `extensionRoot` loaded as a
 * development extension in normal mode (as a person has it: real modal dialogs). Resolves once the
 * workbench is drawn; closes the browser again when it cannot get there.
 */
export async function openWorkbench(server, workspace, extensionRoot) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const payload = JSON.stringify([['extensionDevelopmentPath', remoteUri(server.port, extensionRoot)]]);
    // A loaded machine can take longer than the default 30 s to serve the workbench.
    await page.goto(`${server.url}?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`, { timeout: 120000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    return { browser, page };
  } catch (err) {
    await browser.close().catch(() => undefined);
    throw err;
  }
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
