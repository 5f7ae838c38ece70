// Bundles the extension and the CLI into dist/ (CommonJS, Node 20). The native PTY module stays
// external and ships in the .vsix under node_modules; the tree-sitter wasm files are copied beside
// the bundle so the analyzer finds them next to its own file.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');

const wasm = [
  path.join(path.dirname(require.resolve('web-tree-sitter')), 'web-tree-sitter.wasm'),
  require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'),
];

function copyWasm() {
  mkdirSync('dist', { recursive: true });
  for (const file of wasm) copyFileSync(file, path.join('dist', path.basename(file)));
}

// The sandbox's compiled launcher (native/sandbox-launch.c; src/exec/sandbox/kernel/nativeLaunch.ts).
// Without a C compiler the build goes on: sandboxed commands then start through the script route.
// The read-only fence as a bash builtin (native/readonly-builtin.c; src/exec/sandbox/readOnly/):
// without it a persistent shell's auto-approved reads run one-shot through the launcher's fence.
const NATIVE = [
  { source: 'native/sandbox-launch.c', out: path.join('dist', 'agent-bash-launch'), flags: [], what: 'sandboxed commands start through the script launcher (slower)' },
  { source: 'native/readonly-builtin.c', out: path.join('dist', 'agent-bash-readonly.so'), flags: ['-shared', '-fPIC'], what: "auto-approved reads in a persistent shell run one-shot (slower)" },
];
const NATIVE_HEADER = 'native/readonly-fence.h';

function buildNative({ source, out, flags: extra, what }) {
  if (process.platform !== 'linux') return;
  const newest = Math.max(statSync(source).mtimeMs, statSync(NATIVE_HEADER).mtimeMs);
  if (existsSync(out) && statSync(out).mtimeMs >= newest) return;
  mkdirSync('dist', { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  const flags = ['-O2', '-Wall', '-Wextra', '-Werror', ...extra, '-o', tmp];
  for (const [cc, lang] of [['cc', []], ['gcc', []], ['clang', []], ['g++', ['-x', 'c']]]) {
    const r = spawnSync(cc, [...lang, ...flags, source], { encoding: 'utf8' });
    if (r.error) continue;
    if (r.status !== 0) {
      rmSync(tmp, { force: true });
      throw new Error(`${cc} could not build ${source}:\n${r.stderr}`);
    }
    renameSync(tmp, out);
    return;
  }
  rmSync(out, { force: true });
  console.warn(`agent-bash: no C compiler (cc, gcc, clang or g++): ${out} not built; ${what}`);
}

for (const n of NATIVE) buildNative(n);

const options = {
  entryPoints: { extension: 'src/extension.ts', cli: 'src/cli.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  external: ['vscode', '@lydell/node-pty'],
  logLevel: 'warning',
  plugins: [{ name: 'copy-wasm', setup(build) { build.onEnd(copyWasm); } }],
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log('esbuild: watching');
} else {
  await esbuild.build(options);
}
