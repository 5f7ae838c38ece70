// Bundles the extension and the CLI into dist/ (CommonJS, Node 20). The native PTY module stays
// external and ships in the .vsix under node_modules; the tree-sitter wasm files are copied beside
// the bundle so the analyzer finds them next to its own file.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
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
