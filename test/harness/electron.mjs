// `npm run test:electron`: the same integration suites in desktop VS Code through @vscode/test-electron,
// for machines that can download VS Code (this one cannot; it fails with a clear message).
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import { existsSync, mkdtempSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');

async function main() {
  let vscodeExecutablePath = process.env.AGENT_BASH_VSCODE_PATH;
  if (!vscodeExecutablePath) {
    try {
      vscodeExecutablePath = await downloadAndUnzipVSCode('stable');
    } catch (err) {
      throw new Error(
        `test:electron: could not download desktop VS Code (${err.message}). This machine cannot reach ` +
          'update.code.visualstudio.com; use `npm test` (code-server) here, or set AGENT_BASH_VSCODE_PATH to a local VS Code.',
        { cause: err },
      );
    }
  }
  const out = mkdtempSync(path.join(os.tmpdir(), 'agent-bash-electron-'));
  const workspace = path.join(out, 'workspace');
  mkdirSync(workspace);
  await runTests({
    vscodeExecutablePath,
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(root, 'out', 'test', 'integration', 'index.js'),
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
    extensionTestsEnv: { AGENT_BASH_TEST_OUT: out, AGENT_BASH_TEST_MODE: '1' },
  }).finally(() => {
    const log = path.join(out, 'mocha.log');
    if (existsSync(log)) process.stdout.write(readFileSync(log, 'utf8'));
  });
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
