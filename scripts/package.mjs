// `npm run package`: build, then vsce (3.x, which runs on Node 20) → agent-bash-<version>.vsix.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const out = path.join(root, `agent-bash-${version}.vsix`);

function run(cmd, args) {
  const res = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (res.status !== 0) throw new Error(`\`${cmd} ${args.join(' ')}\` exited with ${res.status ?? res.signal}`);
}

export function packageExtension() {
  run('npm', ['run', '--silent', 'build']);
  run('npx', ['vsce', 'package', '--skip-license', '--allow-missing-repository', '--out', out]);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    console.log(packageExtension());
  } catch (err) {
    console.error(`package: ${err.message}`);
    process.exit(1);
  }
}
