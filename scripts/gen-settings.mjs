// Writes package.json's `contributes.configuration` (what the Settings UI shows) from the one settings
// schema in src/core/settingsSchema.ts. `npm run gen:settings`; a unit test fails when package.json
// and the schema drift apart.
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = await esbuild.build({
  entryPoints: [path.join(root, 'src/core/settingsSchema.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  write: false,
});
const mod = { exports: {} };
new Function('module', 'exports', 'require', out.outputFiles[0].text)(mod, mod.exports, createRequire(import.meta.url));
const pkgPath = path.join(root, 'package.json');
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
pkg.contributes.configuration = mod.exports.settingsContribution();
writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`package.json: contributes.configuration written (${Object.keys(pkg.contributes.configuration.properties).length} settings)`);
