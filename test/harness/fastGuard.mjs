// What keeps the fast tier free of processes. Two checks, because either alone can be fooled:
// - before anything runs, every listed file and everything it imports from this repository (the
//   compiled JavaScript under out/, followed require by require) must name no module that starts
//   processes or threads and none of the modules that run commands;
// - while the tests run, every child_process function throws and node-pty cannot be loaded, and each
//   attempt is recorded, so a test that catches the error still fails the run.
import childProcess from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';

/** Node modules that start processes or threads, the PTY library, and packages that spawn (an MCP stdio client). */
const PROCESS_MODULE =
  /^(?:node:)?(?:child_process|worker_threads|cluster)$|(?:^|\/)node-pty(?:$|[/-])|^cross-spawn$|^@modelcontextprotocol\/sdk\/client\/stdio(?:\.js)?$/;
/** The repository's modules that run commands (out/src/…, without `.js`); they also import child_process. */
export const EXECUTOR_MODULES = [
  'exec/bang', 'exec/bashExpander', 'exec/bridgeProcess', 'exec/direnv', 'exec/localExecutor', 'exec/oneShotRun',
  'exec/persistentShell', 'exec/ptyExecutor', 'exec/sandbox/sandboxProbe', 'exec/sandbox/sandboxRuntime',
];
// Literal module names as tsc writes them (`require("x")`, a lazy `require('x')`, `import("x")`), and any
// string naming a process module, so one hidden in a script text for a child is found too.
const IMPORT = /\b(?:require|import)\(\s*(['"`])([^'"`$]+)\1\s*\)/g;
const PROCESS_STRING = /(['"`])((?:node:)?(?:child_process|worker_threads|cluster)|[^'"`]*node-pty[^'"`]*)\1/g;

export const GUARD_MISSING = 'fast tier: listed file is not there, or not compiled (renamed, moved or deleted?)';
export const GUARD_TWICE = 'fast tier: file listed twice';
export const GUARD_STALE = 'fast tier: an executor module of fastGuard.mjs is gone (moved? update EXECUTOR_MODULES)';
export const GUARD_IMPORTS = 'fast tier: listed file reaches a module that starts processes';
export const GUARD_STARTED = 'fast tier: a test started a process';

function resolveLocal(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.js`, path.join(base, 'index.js')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/**
 * The first forbidden module a compiled file reaches, with the chain of imports that leads to it
 * (`a.test.js → src/x.js → node:child_process`), or undefined.
 */
export function forbiddenImport(file, outRoot) {
  const executors = new Set(EXECUTOR_MODULES.map((m) => path.join(outRoot, 'src', `${m}.js`)));
  const via = new Map([[file, undefined]]);
  const queue = [file];
  const chain = (last, name) => {
    const names = [name];
    for (let f = last; f !== undefined; f = via.get(f)) names.unshift(path.relative(outRoot, f));
    return names.join(' → ');
  };
  while (queue.length > 0) {
    const current = queue.shift();
    if (executors.has(current)) return chain(via.get(current), `${path.relative(outRoot, current)} (runs commands)`);
    const text = readFileSync(current, 'utf8');
    for (const [, , name] of text.matchAll(PROCESS_STRING)) return chain(current, name);
    for (const [, , spec] of text.matchAll(IMPORT)) {
      if (PROCESS_MODULE.test(spec)) return chain(current, spec);
      if (!spec.startsWith('.')) continue;
      const next = resolveLocal(current, spec);
      if (next !== undefined && !via.has(next)) {
        via.set(next, current);
        queue.push(next);
      }
    }
  }
  return undefined;
}

/** Problems with the declared list: files that are missing, and files whose imports reach a process. */
export function checkFastList(files, outRoot) {
  const problems = [];
  for (const module of EXECUTOR_MODULES) {
    if (!existsSync(path.join(outRoot, 'src', `${module}.js`))) problems.push(`${GUARD_STALE}: src/${module}.ts`);
  }
  for (const name of files.filter((name, i) => files.indexOf(name) !== i)) problems.push(`${GUARD_TWICE}: test/unit/${name}`);
  for (const name of files) {
    // The source too: a deleted test's compiled file stays in out/ until it is cleaned.
    const source = path.join(outRoot, '..', 'test', 'unit', name);
    const compiled = path.join(outRoot, 'test', 'unit', name.replace(/\.ts$/, '.js'));
    if (!existsSync(source) || !existsSync(compiled)) {
      problems.push(`${GUARD_MISSING}: test/unit/${name}`);
      continue;
    }
    const found = forbiddenImport(compiled, outRoot);
    if (found !== undefined) problems.push(`${GUARD_IMPORTS}: ${found}`);
  }
  return problems;
}

const SPAWNING = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'];

/** Makes every way to start a process throw from now on; returns the attempts made (read it at the end). */
export function tripwire() {
  const attempts = [];
  const refuse = (what) => {
    const message = `${GUARD_STARTED} (${what})`;
    attempts.push(message);
    throw new Error(message);
  };
  for (const name of SPAWNING) {
    childProcess[name] = (command) => refuse(`child_process.${name} ${String(command)}`);
  }
  const load = Module._load;
  Module._load = function guardedLoad(request, ...rest) {
    if (/(?:^|\/)node-pty(?:$|[/-])/.test(request)) refuse(`loading ${request}`);
    return load.call(this, request, ...rest);
  };
  return attempts;
}
