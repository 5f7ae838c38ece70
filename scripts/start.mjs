// `npm start`, the main job: build and package the extension, install the .vsix into the pinned
// code-server with a fresh user-data-dir, open a copy of the sample workspace, print the URL, and run
// until Ctrl+C, then stop everything it started. Binds to 127.0.0.1 only (hence `--auth none`).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setup } from '../test/harness/setup.mjs';
import { freePort, startCodeServer } from '../test/harness/codeServer.mjs';
import { CODE_SERVER_ENTRY, NODE24_BIN } from '../test/harness/versions.mjs';
import { packageExtension } from './package.mjs';

const root = path.resolve(import.meta.dirname, '..');

async function portOrFree(preferred) {
  const net = await import('node:net');
  const free = await new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(preferred, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
  return free ? preferred : freePort();
}

async function main() {
  setup();
  const vsix = packageExtension();
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-start-'));
  const workspace = path.join(runDir, 'sample-workspace');
  cpSync(path.join(root, 'sample-workspace'), workspace, { recursive: true });
  const userDataDir = path.join(runDir, 'server', 'user-data');
  const extensionsDir = path.join(runDir, 'server', 'extensions');
  const install = spawnSync(
    NODE24_BIN,
    [CODE_SERVER_ENTRY, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', vsix],
    { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, EXTENSIONS_GALLERY: '{}', XDG_CONFIG_HOME: path.join(runDir, 'xdg') } },
  );
  if (install.status !== 0) throw new Error(`installing ${vsix} into code-server failed (exit ${install.status})`);
  const port = await portOrFree(Number(process.env.AGENT_BASH_PORT ?? 8765));
  const server = await startCodeServer({ workspace, runDir: path.join(runDir, 'server'), extensionsDir, port });
  const stop = async (sig) => {
    process.stderr.write(`\n${sig}: stopping Agent Bash (code-server pid ${server.pid})\n`);
    await server.stop();
    rmSync(runDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  console.log(`Agent Bash is ready: ${server.url}`);
  console.log(`(workspace ${workspace}; server log ${server.logFile}; Ctrl+C stops everything)`);
  // Stay up until a signal arrives.
  setInterval(() => undefined, 1 << 30);
}

main().catch((err) => {
  console.error(`start: ${err.message}`);
  process.exit(1);
});
