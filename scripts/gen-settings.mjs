// Writes package.json's `contributes.configuration` (what the Settings UI shows) from the one settings
// schema in src/core/settingsSchema.ts. `npm run gen:settings`; a unit test fails when package.json
// and the schema drift apart.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadTsModule } from './loadTs.mjs';

const root = path.resolve(import.meta.dirname, '..');
const mod = await loadTsModule(path.join(root, 'src/core/settingsSchema.ts'));
const pkgPath = path.join(root, 'package.json');
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
pkg.contributes.configuration = mod.settingsContribution();
writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`package.json: contributes.configuration written (${Object.keys(pkg.contributes.configuration.properties).length} settings)`);
