// Writes the `agent_bash` language model tool's inputSchema into package.json from the zod schema in
// src/core/input.ts (the single source of the input type). `npm run gen:schema`; a unit test fails
// when package.json and the schema drift apart.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadTsModule } from './loadTs.mjs';

const root = path.resolve(import.meta.dirname, '..');
const mod = await loadTsModule(path.join(root, 'src/core/input.ts'));
const schema = mod.bashInputJsonSchema({ asyncEnabled: true });
const pkgPath = path.join(root, 'package.json');
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
const tool = pkg.contributes.languageModelTools.find((t) => t.name === 'agent_bash');
tool.inputSchema = schema;
writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
console.log('package.json: agent_bash inputSchema updated');
