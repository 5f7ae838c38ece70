// Idempotent setup of the integration tier: Debian packages (chromium, libkrb5-dev; bubblewrap, socat,
// ripgrep, strace, direnv where missing), Node 24 from the
// npm registry, code-server built on it. Each step is marked done by a stamp written only after it
// succeeded, so an interrupted install is redone, never trusted. A failure throws: never a silent skip.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

function ensureDebianPackages() {
  const missing = [];
  if (!existsSync(CHROMIUM_PATH)) missing.push('chromium');
  if (!existsSync('/usr/include/gssapi/gssapi.h') && !existsSync(path.join(CODE_SERVER_DIR, '.done'))) missing.push('libkrb5-dev');
  // The policy's differential test (bash as the judge under bwrap + strace) and the sandbox tests.
  for (const [pkg, bin] of [['bubblewrap', '/usr/bin/bwrap'], ['socat', '/usr/bin/socat'], ['ripgrep', '/usr/bin/rg'], ['strace', '/usr/bin/strace']]) {
    if (!existsSync(bin)) missing.push(pkg);
  }
  // Optional: with direnv the direnv preflight tests run against the real program instead of skipping.
  const optional = existsSync('/usr/bin/direnv') ? [] : ['direnv'];
  if (!isRootOnDebian()) {
    if (missing.length === 0) return;
    throw new Error(`setup failed: missing ${missing.join(' and ')}. Install with: sudo apt-get install -y ${missing.join(' ')}`);
  }
  const install = [...missing, ...optional];
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
  log(`installing code-server ${CODE_SERVER_VERSION} on Node 24 (about 2 minutes, once)`);
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
  const ms = run('npm', ['install', '--no-save', `code-server@${CODE_SERVER_VERSION}`], { cwd: CODE_SERVER_DIR, env });
  if (!existsSync(CODE_SERVER_ENTRY)) throw new Error(`setup failed: ${CODE_SERVER_ENTRY} missing after npm install`);
  log(`code-server installed in ${(ms / 1000).toFixed(0)} s`);
  writeFileSync(stamp, CODE_SERVER_VERSION);
}

export function setup() {
  mkdirSync(CACHE_DIR, { recursive: true });
  ensureDebianPackages();
  ensureNode24();
  ensureCodeServer();
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
