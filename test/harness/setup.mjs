// Idempotent setup of what the tests and `npm start` need: Debian packages, Node 24 from the npm
// registry, code-server built on it. Each step is marked done by a stamp written only after it
// succeeded, so an interrupted install is redone, never trusted. A failure throws: never a silent skip.
// Concurrent setups (two clones, `npm start` beside `npm test`) take a lock on the cache instead of
// deleting each other's half-built files.
//
// What each purpose needs (as root on Debian the missing ones are installed; elsewhere the message
// names them and the install command):
//   test:  chromium, libkrb5-dev (to build code-server once), bubblewrap, socat, ripgrep, strace; direnv optional
//   start: libkrb5-dev (to build code-server once); bubblewrap, socat, ripgrep, direnv optional (what is
//          then unavailable is said, and it starts anyway)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CACHE_DIR, CHROMIUM_PATH, CODE_SERVER_DIR, CODE_SERVER_ENTRY, CODE_SERVER_VERSION, NODE24_BIN, NODE24_DIR, NODE24_PACKAGE,
} from './versions.mjs';

function log(msg) {
  process.stderr.write(`[setup] ${msg}\n`);
}

function run(cmd, args, opts = {}) {
  const started = Date.now();
  const res = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (res.status !== 0) {
    throw new Error(`setup failed: \`${cmd} ${args.join(' ')}\` exited with ${res.status ?? res.signal}`);
  }
  return Date.now() - started;
}

function isRootOnDebian() {
  return process.getuid?.() === 0 && existsSync('/etc/debian_version') && existsSync('/usr/bin/apt-get');
}

/** Optional packages and what goes missing without them (`npm start` says it and starts anyway). */
export const OPTIONAL_FOR_START = [
  ['bubblewrap', '/usr/bin/bwrap', 'the OS sandbox and PID namespaces (commands run unsandboxed, with a warning)'],
  ['socat', '/usr/bin/socat', "the sandbox's network proxy bridge (sandboxed commands get no network)"],
  ['ripgrep', '/usr/bin/rg', "the interceptor's suggestion of rg"],
  ['direnv', '/usr/bin/direnv', '.envrc loading'],
];

/** Debian packages by purpose: required ones stop the run when missing, optional ones are named. */
export function packagesFor(purpose) {
  const required = [];
  const optional = [];
  const needsKrb = !existsSync('/usr/include/gssapi/gssapi.h') && !existsSync(path.join(CODE_SERVER_DIR, '.done'));
  if (needsKrb) required.push('libkrb5-dev');
  if (purpose === 'test') {
    if (!existsSync(CHROMIUM_PATH)) required.push('chromium');
    // The policy's differential test (bash as the judge under bwrap + strace) and the sandbox tests.
    for (const [pkg, bin] of [['bubblewrap', '/usr/bin/bwrap'], ['socat', '/usr/bin/socat'], ['ripgrep', '/usr/bin/rg'], ['strace', '/usr/bin/strace']]) {
      if (!existsSync(bin)) required.push(pkg);
    }
    // Optional: with direnv the direnv preflight tests run against the real program instead of skipping.
    if (!existsSync('/usr/bin/direnv')) optional.push('direnv');
  } else {
    for (const [pkg, bin] of OPTIONAL_FOR_START) if (!existsSync(bin)) optional.push(pkg);
  }
  return { required, optional };
}

function ensureDebianPackages(purpose) {
  const { required, optional } = packagesFor(purpose);
  if (!isRootOnDebian()) {
    if (optional.length > 0 && purpose === 'start') {
      for (const [pkg, , what] of OPTIONAL_FOR_START) if (optional.includes(pkg)) log(`${pkg} is not installed: no ${what}`);
      log(`to have them: sudo apt-get install -y ${optional.join(' ')}`);
    }
    if (required.length === 0) return;
    throw new Error(`setup failed: missing ${required.join(' and ')}. Install with: sudo apt-get install -y ${required.join(' ')}`);
  }
  const install = [...required, ...optional];
  if (install.length === 0) return;
  log(`apt-get install ${install.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  const ms = run('apt-get', ['install', '-y', '-qq', ...install], { env });
  log(`apt-get took ${(ms / 1000).toFixed(1)} s`);
}

function ensureNode24() {
  const stamp = path.join(NODE24_DIR, '.done');
  if (existsSync(stamp) && existsSync(NODE24_BIN)) return;
  log(`fetching ${NODE24_PACKAGE} from the npm registry`);
  const tmp = path.join(CACHE_DIR, 'node24.tmp');
  rmSync(tmp, { recursive: true, force: true });
  rmSync(NODE24_DIR, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  run('npm', ['pack', NODE24_PACKAGE, '--silent'], { cwd: tmp, stdio: ['ignore', 'ignore', 'inherit'] });
  const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error(`setup failed: npm pack ${NODE24_PACKAGE} produced no tarball`);
  run('tar', ['xzf', tgz], { cwd: tmp });
  renameSync(path.join(tmp, 'package'), NODE24_DIR);
  rmSync(tmp, { recursive: true, force: true });
  writeFileSync(stamp, NODE24_PACKAGE);
}

function ensureCodeServer() {
  const stamp = path.join(CODE_SERVER_DIR, '.done');
  if (existsSync(stamp) && existsSync(CODE_SERVER_ENTRY)) return;
  log(`building code-server ${CODE_SERVER_VERSION} on Node 24: once, about 2 minutes on a fast machine and 5 to 6 on two busy cores`);
  rmSync(CODE_SERVER_DIR, { recursive: true, force: true });
  mkdirSync(CODE_SERVER_DIR, { recursive: true });
  writeFileSync(path.join(CODE_SERVER_DIR, 'package.json'), '{"private":true}\n');
  // Under `npm test` the outer npm (on Node 20) exports npm_config_* / npm_* variables; inherited, they
  // make the inner npm report Node 20 in its user agent and code-server's postinstall refuses to run.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const env = {
    ...inherited,
    PATH: `${path.dirname(NODE24_BIN)}:${process.env.PATH}`,
    npm_config_nodedir: NODE24_DIR,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  // Progress while it builds: a line every 30 s, so a long first start never looks hung.
  const started = Date.now();
  const ticker = spawn(process.execPath, ['-e', `setInterval(() => process.stderr.write('[setup] still building code-server (' + Math.round((Date.now() - ${started}) / 1000) + ' s)\\n'), 30000)`], { stdio: ['ignore', 'ignore', 'inherit'] });
  let ms;
  try {
    ms = run('npm', ['install', '--no-save', `code-server@${CODE_SERVER_VERSION}`], { cwd: CODE_SERVER_DIR, env });
  } finally {
    ticker.kill();
  }
  if (!existsSync(CODE_SERVER_ENTRY)) throw new Error(`setup failed: ${CODE_SERVER_ENTRY} missing after npm install`);
  log(`code-server installed in ${(ms / 1000).toFixed(0)} s`);
  writeFileSync(stamp, CODE_SERVER_VERSION);
}

const LOCK_DIR = path.join(CACHE_DIR, '.setup-lock');

function lockOwnerAlive() {
  try {
    process.kill(Number(readFileSync(path.join(LOCK_DIR, 'pid'), 'utf8')), 0);
    return true;
  } catch {
    return false;
  }
}

/** Holds the cache lock (a directory made atomically) while `fn` runs; a dead owner's lock is broken. */
function withCacheLock(fn) {
  let waitedFrom;
  for (;;) {
    try {
      mkdirSync(LOCK_DIR);
      writeFileSync(path.join(LOCK_DIR, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // The owner may not have written its pid yet: only an owner known dead is broken.
      if (existsSync(path.join(LOCK_DIR, 'pid')) && !lockOwnerAlive()) {
        rmSync(LOCK_DIR, { recursive: true, force: true });
        continue;
      }
      if (waitedFrom === undefined) {
        waitedFrom = Date.now();
        log(`another setup is using ${CACHE_DIR}; waiting for it`);
      }
      spawnSync('sleep', ['1']);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(LOCK_DIR, { recursive: true, force: true });
  }
}

/** `purpose`: 'test' (the default: every tier) or 'start' (`npm start`: what the editor needs). */
export function setup(purpose = 'test') {
  mkdirSync(CACHE_DIR, { recursive: true });
  withCacheLock(() => {
    ensureDebianPackages(purpose);
    ensureNode24();
    ensureCodeServer();
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    setup();
    log('ready');
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
