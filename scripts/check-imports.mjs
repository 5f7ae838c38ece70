// Checks the import graph of src/: nothing in src/core imports from the layers above it (exec, vscode,
// cli, mcp, acp, the entry points), and no module imports itself back through others (a cycle).
// Type-only imports count too: a cycle of types is still two modules that cannot be read apart.
// Run by `npm run lint`; exits 1 and prints each offending import or cycle. (The TypeScript in
// node_modules is the native compiler, which has no JS API, so the specifiers are read by pattern:
// statements that begin a line with `import`/`export … from`, and `import(…)`/`require(…)` calls.)
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const srcDir = path.join(root, 'src');
const rel = (file) => path.relative(root, file).split(path.sep).join('/');

function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out.sort();
}

function resolveRelative(fromFile, spec) {
  const base = path.resolve(path.dirname(fromFile), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.d.ts`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  const jsToTs = base.replace(/\.js$/, '.ts');
  return existsSync(jsToTs) ? jsToTs : undefined;
}

/** Static `import … from 'x'`, `import 'x'`, `export … from 'x'` (also across lines), `import('x')`, `require('x')`. */
const STATIC = /^[ \t]*(?:import|export)\b(?:[^;'"`]*?\bfrom)?\s*['"]([^'"\n]+)['"]/gm;
const CALL = /(?<![\w$.])(?:import|require)\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;
function specifiers(text) {
  const found = [];
  for (const match of text.matchAll(STATIC)) found.push(match[1]);
  for (const match of text.matchAll(CALL)) found.push(match[1]);
  return found;
}

const files = sources(srcDir);
/** @type {Map<string, string[]>} file -> files it imports (inside src/) */
const graph = new Map();
const problems = [];
for (const file of files) {
  const targets = [];
  for (const spec of specifiers(readFileSync(file, 'utf8'))) {
    if (!spec.startsWith('.')) continue;
    const target = resolveRelative(file, spec);
    if (!target) {
      problems.push(`${rel(file)}: cannot resolve import '${spec}'`);
      continue;
    }
    if (target.startsWith(srcDir + path.sep)) targets.push(target);
  }
  graph.set(file, [...new Set(targets)]);
}

// 1. core imports nothing above it.
const coreDir = path.join(srcDir, 'core') + path.sep;
for (const [file, targets] of graph) {
  if (!file.startsWith(coreDir)) continue;
  for (const target of targets) {
    if (!target.startsWith(coreDir)) problems.push(`upward import: ${rel(file)} imports ${rel(target)} (src/core may import only src/core)`);
  }
}

// 2. no cycles: Tarjan's strongly connected components; each component of more than one module (or a
// module importing itself) is reported with one cycle through it.
let index = 0;
const indexOf = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
function connect(v) {
  indexOf.set(v, index);
  low.set(v, index);
  index++;
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!indexOf.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) {
      low.set(v, Math.min(low.get(v), indexOf.get(w)));
    }
  }
  if (low.get(v) === indexOf.get(v)) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
  }
}
for (const file of files) if (!indexOf.has(file)) connect(file);

/** One cycle inside a component: a breadth-first walk from its first module back to itself. */
function cycleThrough(component) {
  const members = new Set(component);
  const start = [...component].sort()[0];
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (previous.get(path[0]) !== undefined) path.unshift(previous.get(path[0]));
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
for (const component of components) {
  const cycle = cycleThrough(component).map(rel);
  const more = component.length > cycle.length - 1 ? ` (${component.length} modules in this knot: ${component.map(rel).sort().join(', ')})` : '';
  problems.push(`import cycle: ${cycle.join(' -> ')}${more}`);
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`check-imports: ${problems.length} problem(s) in ${files.length} modules`);
  process.exit(1);
}
console.log(`check-imports: ${files.length} modules, no upward import from src/core, no cycles`);
