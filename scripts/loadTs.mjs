// Loads one TypeScript module of src/ into this script (bundled by esbuild in memory), for the
// generators that write package.json from a single source in the code.
import * as esbuild from 'esbuild';
import { createRequire } from 'node:module';

export async function loadTsModule(entry) {
  const out = await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', write: false });
  const mod = { exports: {} };
  new Function('module', 'exports', 'require', out.outputFiles[0].text)(mod, mod.exports, createRequire(import.meta.url));
  return mod.exports;
}
