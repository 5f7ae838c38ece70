// Which project config files a package manager's read form loads. A cloned repository's own config
// can make `npm ls` or `yarn --version` run its code or leak the environment: yarn 1's `yarn-path`
// (`.yarnrc`, read in every folder up to the root) and yarn 2+'s `yarnPath` and `plugins`
// (`.yarnrc.yml`) start a JavaScript file of the repository; pnpm runs `.pnpmfile.cjs` (named also by
// `pnpmfile` in `.npmrc` or `pnpm-workspace.yaml`) even for `pnpm --version`; a project `.npmrc` can
// name other config files (`globalconfig`, `userconfig`), move the cache and logs, point the registry
// elsewhere and expand `${ENV}` tokens into requests. So an allowed read form (programs/npm.ts) asks
// when such a file exists in the cwd or any folder above it, or in a workspace root. The files in
// HOME are the person's own settings and are left out unless HOME is inside a workspace folder.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Segment } from '../policyContracts';
import { shown } from '../policyReasons';
import { basename } from '../analysis/shellNormalize';
import { isInside } from './workspaceScope';
import { judgePackageManager } from '../programs/npm';
import { real } from './gitRepository';

/** Config files each package manager reads from a project folder (npm's `.npmrc` is read by all three). */
const CONFIG_FILES: Readonly<Record<string, readonly string[]>> = {
  npm: ['.npmrc'],
  pnpm: ['.npmrc', '.pnpmfile.cjs', '.pnpmfile.mjs', 'pnpm-workspace.yaml'],
  yarn: ['.npmrc', '.yarnrc', '.yarnrc.yml', '.yarnrc.yaml'],
};

export const PACKAGE_CONFIG = {
  found: (text: string, index: number, file: string, name: string) =>
    `\`${shown(text)}\` in segment ${index} makes ${name} load \`${file}\`, a project config file that can name code for it to run or settings that read the environment`,
} as const;

/** The folders whose config the program reads: the cwd and every folder above it, and each root. */
function folders(cwd: string, roots: readonly string[]): string[] {
  const out: string[] = [];
  for (let dir = real(cwd); ; dir = path.dirname(dir)) {
    out.push(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const r of roots) if (!out.includes(r)) out.push(r);
  return out;
}

/** Why an allowed package-manager read form loads a project config file, or undefined. */
export function projectPackageConfig(seg: Segment, index: number, cwd: string, workspaceRoots: readonly string[]): string | undefined {
  const name = basename(seg.argv.at(0) ?? '');
  if (!Object.hasOwn(CONFIG_FILES, name)) return undefined;
  // Only the read forms: a runner a rule allows (`npm test`) runs the project's code by design.
  if (judgePackageManager(name, seg.argv.slice(1).map((text) => ({ text, dynamic: false }))) === undefined) return undefined;
  const roots = workspaceRoots.map(real);
  const home = real(os.homedir());
  const homeIsWorkspace = isInside(home, roots);
  for (const dir of folders(cwd, roots)) {
    if (dir === home && !homeIsWorkspace) continue;
    for (const file of CONFIG_FILES[name]) {
      const p = path.join(dir, file);
      if (fs.statSync(p, { throwIfNoEntry: false }) !== undefined) return PACKAGE_CONFIG.found(seg.text || seg.source, index, p, name);
    }
  }
  return undefined;
}
