// `npm run test:omp`: the opt-in end-to-end suite against the real oh-my-pi agent (`omp acp` on bun),
// offline, with a fake model server on 127.0.0.1. Installs the pinned agent into the cache once.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OMP_DIR, OMP_PACKAGES } from './versions.mjs';

const stamp = path.join(OMP_DIR, '.done');
if (!existsSync(stamp)) {
  mkdirSync(OMP_DIR, { recursive: true });
  writeFileSync(path.join(OMP_DIR, 'package.json'), '{"private":true}\n');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const res = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', ...OMP_PACKAGES], { cwd: OMP_DIR, stdio: 'inherit', env });
  if (res.status !== 0) {
    console.error(`test:omp: installing ${OMP_PACKAGES.join(' ')} failed`);
    process.exit(1);
  }
  writeFileSync(stamp, OMP_PACKAGES.join('\n'));
}
const run = spawnSync(process.execPath, [path.join(import.meta.dirname, 'integration.mjs')], {
  stdio: 'inherit',
  env: { ...process.env, AGENT_BASH_OMP_DIR: path.join(OMP_DIR, 'node_modules'), AGENT_BASH_IT_GREP: 'oh-my-pi' },
});
process.exit(run.status ?? 1);
