// `npm start`, the main job: build and package the extension, install the .vsix into the pinned
// code-server, open the sample workspace, print the URL, and run until stopped, then stop everything
// it started. Binds to 127.0.0.1 only (hence `--auth none`).
//
// The sample workspace and the editor's profile are kept between starts (in the cache, under
// `start/`), so rules and settings saved while trying it are there next time; `npm start -- --fresh`
// starts from a new copy. The workspace is a git repository, as its README suggests `git status`.
// SIGINT, SIGTERM and SIGHUP to this script stop everything; so does the end of its parent (`kill` of
// the npm process leaves this script orphaned: it notices and stops).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setup } from '../test/harness/setup.mjs';
import { freePort, startCodeServer } from '../test/harness/codeServer.mjs';
import { CACHE_DIR, CODE_SERVER_ENTRY, NODE24_BIN } from '../test/harness/versions.mjs';
import { packageExtension } from './package.mjs';

const root = path.resolve(import.meta.dirname, '..');
const START_DIR = path.join(CACHE_DIR, 'start');
const USAGE = 'usage: npm start [-- --fresh]   (--fresh: a new copy of the sample workspace and a new editor profile)';

async function portOrFree(preferred) {
  const net = await import('node:net');
  const free = await new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(preferred, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
  return free ? preferred : freePort();
}

/** The sample workspace, copied once and kept; a git repository with one commit. */
function sampleWorkspace(fresh) {
  const workspace = path.join(START_DIR, 'sample-workspace');
  if (fresh) rmSync(START_DIR, { recursive: true, force: true });
  if (existsSync(workspace)) return { workspace, created: false };
  mkdirSync(START_DIR, { recursive: true });
  cpSync(path.join(root, 'sample-workspace'), workspace, { recursive: true });
  const git = (...args) => spawnSync('git', args, { cwd: workspace, stdio: 'ignore' }).status === 0;
  if (git('init', '-q')) {
    git('add', '-A');
    git('-c', 'user.name=Agent Bash', '-c', 'user.email=agent-bash@localhost', 'commit', '-q', '-m', 'Sample workspace');
  }
  return { workspace, created: true };
}

async function main() {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== '--fresh');
  if (unknown.length > 0) {
    console.error(`start: unknown option ${unknown[0]}\n${USAGE}`);
    process.exit(2);
  }
  setup('start');
  const vsix = packageExtension();
  const { workspace, created } = sampleWorkspace(args.includes('--fresh'));
  const serverDir = path.join(START_DIR, 'server');
  const userDataDir = path.join(serverDir, 'user-data');
  const extensionsDir = path.join(serverDir, 'extensions');
  // The extension is reinstalled every start (the .vsix may be newer); the profile stays.
  rmSync(extensionsDir, { recursive: true, force: true });
  const install = spawnSync(
    NODE24_BIN,
    [CODE_SERVER_ENTRY, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', vsix],
    { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, EXTENSIONS_GALLERY: '{}', XDG_CONFIG_HOME: path.join(START_DIR, 'xdg') } },
  );
  if (install.status !== 0) throw new Error(`installing ${vsix} into code-server failed (exit ${install.status})`);
  const port = await portOrFree(Number(process.env.AGENT_BASH_PORT ?? 8765));
  const server = await startCodeServer({ workspace, runDir: serverDir, extensionsDir, port, keepUserSettings: true });
  let stopping = false;
  const stop = async (why) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n${why}: stopping Agent Bash (code-server pid ${server.pid})\n`);
    await server.stop();
    process.exit(0);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(sig, () => void stop(sig));
  // npm does not pass SIGTERM on to this script; when npm is gone, this script is re-parented.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop('npm exited');
  }, 500);
  console.log(`Agent Bash is ready: ${server.url}`);
  console.log(`(workspace ${workspace}${created ? ', new' : ', kept from the last start; --fresh for a new one'}; server log ${server.logFile}; Ctrl+C stops everything)`);
}

main().catch((err) => {
  console.error(`start: ${err.message}`);
  process.exit(1);
});
